//! `h5 dtype`: print the canonical DDL text of a datatype, or its size.
//!
//! ```text
//! h5 dtype [--pack] [--native] [--lossless] [--size] TEXT
//! h5 dtype [OPTIONS] -        (read the text from standard input)
//! ```
//!
//! The options are [`Args`] (`h5 dtype --help`): `--pack` as `H5Tpack`, `--native` as
//! `H5Tget_native_type(.., H5T_DIR_DEFAULT)` (applied after `--pack` when both are given),
//! `--size`, and `--lossless`, the form that always parses back to the same type (a compound
//! whose trailing padding the reference's text drops gets a `SIZE n;` line).

use std::io::Read;

use h5::types::Datatype;

/// Print the canonical DDL text of a datatype, or its size
///
/// TEXT is anything the DDL reader accepts (`H5T_NATIVE_INT`, `H5T_COMPOUND { .. }`, the
/// reference library's `H5LTdtype_to_text` output); `-` reads it from standard input. A text
/// that does not parse prints the error, the line it is on and a caret under the offending
/// byte, and exits with status 2.
#[derive(clap::Parser)]
#[command(name = "dtype", verbatim_doc_comment)]
pub struct Args {
    /// Remove padding from compounds, as H5Tpack does
    #[arg(long)]
    pack: bool,
    /// Map the type to this machine's memory type, as H5Tget_native_type does (after --pack)
    #[arg(long)]
    native: bool,
    /// Print the form that always parses back to the same type (a `SIZE n;` line where needed)
    #[arg(long)]
    lossless: bool,
    /// Print the size in bytes instead of the text
    #[arg(long)]
    size: bool,
    /// The datatype as DDL text, or `-` for standard input
    #[arg(value_name = "TEXT|-")]
    text: String,
}

impl crate::Run for Args {
    fn run(self) -> i32 {
        let Self {
            pack,
            native,
            lossless,
            size,
            mut text,
        } = self;
        if text == "-" {
            text.clear();
            if let Err(e) = std::io::stdin().read_to_string(&mut text) {
                eprintln!("h5 dtype: reading standard input: {e}");
                return 1;
            }
        }
        match text.parse::<Datatype>() {
            Ok(mut t) => {
                if pack {
                    t = t.packed();
                }
                if native {
                    t = match t.native_type() {
                        Ok(n) => n,
                        Err(e) => {
                            eprintln!("h5 dtype: --native: {e}");
                            return 1;
                        }
                    };
                }
                if size {
                    println!("{}", t.size());
                } else if lossless {
                    println!("{t:#}");
                } else {
                    println!("{t}");
                }
                0
            }
            Err(e) => {
                eprintln!("h5 dtype: {e}");
                if let Some(pos) = e.position() {
                    eprint!("{}", caret(&text, pos));
                }
                2
            }
        }
    }
}

/// The line of `text` holding byte `pos`, and a caret under it.
fn caret(text: &str, pos: usize) -> String {
    let mut pos = pos.min(text.len());
    while !text.is_char_boundary(pos) {
        pos -= 1;
    }
    let start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
    let line_no = text[..start].matches('\n').count() + 1;
    let column = text[start..pos].chars().count();
    format!(
        "  line {line_no}, column {}:\n  {}\n  {}^\n",
        column + 1,
        &text[start..end],
        " ".repeat(column)
    )
}

#[cfg(test)]
mod tests {
    use super::caret;

    #[test]
    fn caret_points_at_the_byte() {
        assert_eq!(
            caret("ab\ncdé f", 7),
            "  line 2, column 4:\n  cdé f\n     ^\n"
        );
        assert_eq!(caret("x", 1), "  line 1, column 2:\n  x\n   ^\n");
    }
}
