//! The `h5` command.

mod convert;
mod dtype;
mod repack;

const USAGE: &str = "usage: h5 COMMAND [ARGS]\n\ncommands:\n  dtype [--pack] [--native] [--lossless] [--size] TEXT|-\n                          print the canonical DDL text of a datatype, or its size\n  convert SRC DST N       convert N raw elements from stdin (types as DDL text) to stdout\n  repack [--latest] [-l LAYOUT] [-f FILTER] IN OUT\n                          copy a file anew with our writer (h5repack's -l/-f options)";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let status = match args.first().map(String::as_str) {
        Some("dtype") => dtype::run(&args[1..]),
        Some("convert") => convert::main(&args[1..]),
        Some("repack") => repack::main(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            0
        }
        Some(other) => {
            eprintln!("h5: unknown command {other:?}\n{USAGE}");
            2
        }
        None => {
            eprintln!("{USAGE}");
            2
        }
    };
    std::process::exit(status);
}
