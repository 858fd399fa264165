//! Read datasets under the BioC rules (ritsuko's; the deprecated policy's on request):
//! datatype checks, missing values by placeholder, and choosing a placeholder for writing.
//!
//! `cargo run --example bioc [FILE]` (default: the `bioc.h5` fixture written by h5py).

use std::path::PathBuf;

use h5_bioc::{Reader, Rules};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../h5-io/tests/fixtures/h5py/bioc.h5")
        });
    let f = h5::File::open(&path)?;
    println!("{}", path.display());

    // Integers: anything an i32 holds.
    for name in ["/int/i8", "/int/u16", "/int/i32", "/int/u32"] {
        let ds = f.dataset(name)?;
        match h5_bioc::read::<i32>(&ds) {
            Ok(m) => println!("{name} as i32: {:?}", m.into_options()),
            Err(e) => println!("{e}"),
        }
    }
    // Floats: IEEE binary32/binary64, or integers of at most 52 bits; a NaN placeholder
    // matches the NaNs of identical bits (ritsuko), or every NaN (the deprecated policy).
    for name in [
        "/int/u32",
        "/float/f32",
        "/float/f64_nan",
        "/float/f64_point_one",
    ] {
        let ds = f.dataset(name)?;
        let m = h5_bioc::read::<f64>(&ds)?;
        println!("{name} as f64: {:?}", m.into_options());
    }
    let ds = f.dataset("/float/f64_nan")?;
    let policy = Reader::new()
        .rules(Rules::DeprecatedPolicy)
        .read::<f64>(&ds)?;
    println!(
        "/float/f64_nan as f64 (deprecated policy): {:?}",
        policy.into_options()
    );
    // Comparison at full precision even when reading into a narrower type.
    let ds = f.dataset("/float/f64_point_one")?;
    let narrow = Reader::new().allow_narrowing(true).read::<f32>(&ds)?;
    println!(
        "/float/f64_point_one as f32 (narrowing): {:?}",
        narrow.into_options()
    );
    // Strings: fixed or variable, ending at NUL or full length, space padding kept.
    for name in [
        "/str/fixed_nullpad",
        "/str/fixed_spacepad",
        "/str/vlen_utf8",
        "/str/fixed_ascii_holding_utf8",
    ] {
        let ds = f.dataset(name)?;
        println!("{name}: {:?}", h5_bioc::read_options::<String>(&ds)?);
    }
    // Another attribute name.
    let ds = f.dataset("/int/i16_other_name")?;
    let m = Reader::new()
        .placeholder_name("missing_placeholder")
        .read::<i32>(&ds)?;
    println!(
        "/int/i16_other_name (missing_placeholder): {:?}",
        m.into_options()
    );
    // Files that break a rule.
    for (name, result) in [
        (
            "/int/i16_wrong_type",
            h5_bioc::read::<i32>(&f.dataset("/int/i16_wrong_type")?).map(|_| ()),
        ),
        (
            "/int/i32_vector_placeholder",
            h5_bioc::read::<i32>(&f.dataset("/int/i32_vector_placeholder")?).map(|_| ()),
        ),
        (
            "/float/longdouble",
            h5_bioc::check::<f64>(&f.dataset("/float/longdouble")?),
        ),
        (
            "/str/fixed_invalid_utf8",
            h5_bioc::read::<String>(&f.dataset("/str/fixed_invalid_utf8")?).map(|_| ()),
        ),
    ] {
        if let Err(e) = result {
            println!("{name}: rule {:?}\n  {e}", e.broken_rule());
        }
    }
    // Writing: a placeholder chosen for the data.
    let counts = [Some(3i32), None, Some(i32::MIN), Some(7)];
    let w = h5_bioc::with_placeholder(&counts)?;
    println!("write {:?} with placeholder {:?}", w.values, w.placeholder);
    let scores = [Some(0.5f64), None, Some(f64::NAN)];
    let w = h5_bioc::with_placeholder(&scores)?;
    println!("write {:?} with placeholder {:?}", w.values, w.placeholder);
    Ok(())
}
