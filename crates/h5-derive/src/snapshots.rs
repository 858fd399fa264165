//! Snapshot tests of the macro's output: every `tests/expand/NAME.rs` holds one input item;
//! its expansion, formatted with prettyplease, must equal `tests/expand/NAME.expanded.rs`.
//! Refresh the snapshots with `H5_BLESS=1 cargo test -p h5-derive`.

use std::path::Path;

fn expand_file(src: &str) -> String {
    let file: syn::File = syn::parse_str(src).expect("snapshot input parses");
    let mut out = String::new();
    for item in file.items {
        let input: syn::DeriveInput =
            syn::parse2(quote::quote!(#item)).expect("snapshot input is a struct or enum");
        let tokens = crate::expand::derive(&input).unwrap_or_else(syn::Error::into_compile_error);
        let expanded: syn::File = syn::parse2(tokens).expect("expansion parses as items");
        out.push_str(&prettyplease::unparse(&expanded));
    }
    out
}

#[test]
fn expansions_match_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
    let bless = std::env::var_os("H5_BLESS").is_some_and(|v| v == "1");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/expand exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "rs")
                && !p.to_string_lossy().ends_with(".expanded.rs")
        })
        .collect();
    inputs.sort();
    assert!(
        !inputs.is_empty(),
        "no snapshot inputs in {}",
        dir.display()
    );
    let mut stale = Vec::new();
    for input in &inputs {
        let src = std::fs::read_to_string(input).expect("read input");
        let got = expand_file(&src);
        let snap = input.with_extension("expanded.rs");
        if bless {
            std::fs::write(&snap, &got).expect("write snapshot");
            continue;
        }
        match std::fs::read_to_string(&snap) {
            Ok(want) if want == got => {}
            Ok(want) => {
                eprintln!(
                    "--- {} (committed)\n{want}\n+++ (expanded now)\n{got}",
                    snap.display()
                );
                stale.push(snap.display().to_string());
            }
            Err(e) => stale.push(format!("{}: {e}", snap.display())),
        }
    }
    assert!(
        stale.is_empty(),
        "expansion snapshots differ (run with H5_BLESS=1 to refresh): {stale:?}"
    );
}
