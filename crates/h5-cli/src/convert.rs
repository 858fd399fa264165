//! `h5 convert SRC DST N`: convert `N` elements read as raw bytes of type `SRC` from stdin and
//! write raw bytes of type `DST` to stdout, printing `exceptions K` on stderr. Used for
//! differential testing against the reference library's `H5Tconvert` with a conversion
//! callback that counts exceptions and leaves the default action (so the results are those
//! of the reference library with such a callback installed).

use std::io::{Read, Write};

use h5::types::convert::{Action, ConversionOptions, Converter};
use h5::types::{Datatype, Error, ErrorKind, Result};

/// Usage line of the subcommand.
pub const USAGE: &str = "usage: h5 convert SRC DST N   (SRC and DST are DDL texts)";

/// Run `h5 convert` with the arguments after the subcommand name; the exit status.
pub fn main(args: &[String]) -> i32 {
    if matches!(args, [h] if h == "-h" || h == "--help") {
        println!("{USAGE}");
        return 0;
    }
    // No options but help; DDL texts and counts never start with `-`.
    if let Some(bad) = args.iter().find(|a| a.starts_with('-')) {
        eprintln!("h5 convert: unknown option {bad}\n{USAGE}");
        return 2;
    }
    let [src, dst, n] = args else {
        eprintln!("{USAGE}");
        return 2;
    };
    let parse = |what: &str, text: &str| -> std::result::Result<Datatype, i32> {
        text.parse::<Datatype>().map_err(|e| {
            eprintln!("h5 convert: {what}: {e}");
            2
        })
    };
    let (src, dst) = match (parse("SRC", src), parse("DST", dst)) {
        (Ok(s), Ok(d)) => (s, d),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let Ok(n) = n.parse::<usize>() else {
        eprintln!("h5 convert: N must be a number of elements, not {n:?}\n{USAGE}");
        return 2;
    };
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut input) {
        eprintln!("h5 convert: reading standard input: {e}");
        return 1;
    }
    match run(&src, &dst, n, &input) {
        Ok((out, exceptions)) => {
            if let Err(e) = std::io::stdout().write_all(&out) {
                eprintln!("h5 convert: writing standard output: {e}");
                return 1;
            }
            eprintln!("exceptions {exceptions}");
            0
        }
        Err(e) => {
            eprintln!("h5 convert: {e}");
            1
        }
    }
}

/// Convert `n` elements of `src` in `input` (exactly `n * src.size()` bytes) to `dst`.
/// Returns the `n * dst.size()` destination bytes and the number of exceptions raised.
/// Compound members absent from the source are zero bytes. Types with variable-length
/// parts cannot be given as raw bytes and are refused.
pub fn run(src: &Datatype, dst: &Datatype, n: usize, input: &[u8]) -> Result<(Vec<u8>, u64)> {
    if src.has_variable_length() || dst.has_variable_length() {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "variable-length types have no raw byte form on stdin",
        ));
    }
    let conv = Converter::new(src, dst)?;
    let need = n.checked_mul(src.size());
    if need != Some(input.len()) {
        return Err(Error::new(
            ErrorKind::BufferSize,
            format!(
                "stdin has {} bytes but {n} elements of {} bytes need {}",
                input.len(),
                src.size(),
                need.map_or_else(|| "more".to_owned(), |b| b.to_string())
            ),
        ));
    }
    let out_len = n.checked_mul(dst.size()).ok_or_else(|| {
        Error::new(
            ErrorKind::BufferSize,
            format!("{n} destination elements overflow"),
        )
    })?;
    let mut out = vec![0u8; out_len];
    let mut opts = ConversionOptions::new().with_handler(|_, _| Action::Unhandled);
    conv.convert(input, &mut out, n, &mut opts)?;
    Ok((out, opts.report.total()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use h5::types::{ByteOrder, FloatType, IntegerType, Sign};

    #[test]
    fn converts_and_counts_exceptions() {
        let src: Datatype = FloatType::ieee(8, ByteOrder::BigEndian, 11, 52).into();
        let dst: Datatype =
            IntegerType::new(1, ByteOrder::LittleEndian, Sign::TwosComplement).into();
        let input: Vec<u8> = [1.0f64, 300.0, -2.5]
            .iter()
            .flat_map(|x| x.to_be_bytes())
            .collect();
        let (out, k) = run(&src, &dst, 3, &input).unwrap();
        assert_eq!(out, [1, 127, 0xfe]);
        // 1.0 and -2.5 truncate (the general path reports every value with a fraction
        // position), 300 overflows.
        assert_eq!(k, 3);
    }

    #[test]
    fn wrong_input_length_is_an_error() {
        let t: Datatype = IntegerType::new(4, ByteOrder::LittleEndian, Sign::None).into();
        assert!(run(&t, &t, 2, &[0; 7]).is_err());
    }
}
