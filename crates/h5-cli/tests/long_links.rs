//! Links whose message does not fit an object header (names of 65536 bytes and more, the
//! corpus's tlonglinks.h5): in the latest format their group goes to dense storage, as the
//! reference library does. `h5 repack --latest` writes a file h5dump prints as it prints the
//! source, and whose group storage h5stat -g counts as it counts the reference h5repack's.

use std::path::Path;
use std::process::Command;

fn run(exe: &Path, args: &[&str]) -> String {
    let out = Command::new(exe).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{} {args:?}: {}",
        exe.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The text after its first line (which names the file).
fn body(s: &str) -> &str {
    s.split_once('\n').map_or("", |(_, b)| b)
}

#[test]
fn repack_latest_moves_long_links_to_dense_storage() {
    let (Some(h5dump), Some(h5stat), Some(h5repack)) = (
        h5_oracle::require("h5dump", h5_oracle::tool("h5dump")),
        h5_oracle::require("h5stat", h5_oracle::tool("h5stat")),
        h5_oracle::require("h5repack", h5_oracle::tool("h5repack")),
    ) else {
        return;
    };
    let src = h5_oracle::corpus("h5dump").join("tlonglinks.h5");
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("long_links");
    std::fs::create_dir_all(&d).unwrap();
    let ours = d.join("ours.h5");
    let theirs = d.join("theirs.h5");
    let _ = std::fs::remove_file(&ours);
    let _ = std::fs::remove_file(&theirs);
    let h5 = Path::new(env!("CARGO_BIN_EXE_h5"));
    let (s, o, t) = (
        src.to_str().unwrap(),
        ours.to_str().unwrap(),
        theirs.to_str().unwrap(),
    );
    run(h5, &["repack", "--latest", s, o]);
    run(&h5repack, &["--latest", s, t]);
    assert_eq!(body(&run(&h5dump, &[o])), body(&run(&h5dump, &[s])));
    // Group storage: the same groups dense and compact, of the same sizes.
    assert_eq!(
        body(&run(&h5stat, &["-g", o])),
        body(&run(&h5stat, &["-g", t]))
    );
    // And our reader reads it back.
    assert_eq!(body(&run(h5, &["dump", o])), body(&run(&h5dump, &[o])));
}
