//! Every input `#[derive(H5Type)]` rejects is a compile error at the offending token, with
//! the expected messages committed beside each case in `tests/ui/<category>/`. Refresh them
//! with `TRYBUILD=overwrite cargo test -p h5 --test derive_ui`.

#[test]
fn rejected_inputs() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}
