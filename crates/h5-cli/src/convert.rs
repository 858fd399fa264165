//! `h5 convert SRC DST N`: convert `N` elements read as raw bytes of type `SRC` from stdin and
//! write raw bytes of type `DST` to stdout, printing `exceptions K` on stderr. Used for
//! differential testing against the reference library's `H5Tconvert` with a conversion
//! callback that counts exceptions and leaves the default action (so the results are those
//! of the reference library with such a callback installed).

use std::io::{Read, Write};

use h5::types::convert::{Action, ConversionOptions, Converter};
use h5::types::{Datatype, Error, ErrorKind, Result};

/// Convert N raw elements from stdin (types as DDL text) to stdout
///
/// Reads N elements of type SRC as raw bytes from standard input, writes them converted to DST
/// to standard output and prints `exceptions K` on standard error (the conversion callback
/// counts exceptions and leaves the default action, as with the reference library's
/// `H5Tconvert`).
#[derive(clap::Parser)]
#[command(name = "convert", verbatim_doc_comment)]
pub struct Args {
    /// The source type, as DDL text (`H5T_STD_I32LE`, `H5T_COMPOUND { .. }`, ...)
    #[arg(value_name = "SRC")]
    src: Datatype,
    /// The destination type, as DDL text
    #[arg(value_name = "DST")]
    dst: Datatype,
    /// The number of elements
    #[arg(value_name = "N")]
    n: usize,
}

impl crate::Run for Args {
    fn run(self) -> i32 {
        let Self { src, dst, n } = self;
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
