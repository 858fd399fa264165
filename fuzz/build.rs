//! Declares the `fuzzing` cfg that `cargo fuzz` sets, so the targets' `cfg(fuzzing)` items
//! are expected.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(fuzzing)");
}
