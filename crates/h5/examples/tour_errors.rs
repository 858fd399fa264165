//! Tour, "Errors": one error type with matchable kinds, the object path and the cause.
//!
//! `cargo run --example tour_errors [PATH]`

use h5::ErrorKind;

fn main() -> h5::Result<()> {
    let path = std::env::args()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("tour_errors.h5"));
    let f = h5::File::create(&path)?;
    f.create_group("g")?;
    f.close()?;

    let f = h5::File::open(&path)?;
    for (what, r) in [
        ("a group opened as a dataset", f.dataset("g").map(|_| ())),
        ("a missing path", f.dataset("nope").map(|_| ())),
        (
            "a write to a read-only file",
            f.create_group("h").map(|_| ()),
        ),
    ] {
        let e = r.unwrap_err();
        let kind = match e.kind() {
            ErrorKind::WrongKind => "WrongKind",
            ErrorKind::NotFound => "NotFound",
            ErrorKind::ReadOnly => "ReadOnly",
            _ => "other",
        };
        println!("{what}: {kind}: {e}");
    }
    let junk = path.with_extension("junk");
    std::fs::write(&junk, b"not HDF5")?;
    let e = h5::File::open(&junk).unwrap_err();
    println!(
        "{:?}: {e} (caused by: {:?})",
        e.kind(),
        std::error::Error::source(&e).map(|s| s.to_string())
    );
    Ok(())
}
