//! The `h5` command.

mod check;
mod dtype;

const USAGE: &str = "usage: h5 COMMAND [ARGS]\n\ncommands:\n  dtype [--pack] [--native] [--lossless] [--size] TEXT|-\n                          print the canonical DDL text of a datatype, or its size\n  check [-v] FILE         check every structure of a file; exit 0 if sound, 1 if not";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let status = match args.first().map(String::as_str) {
        Some("dtype") => dtype::run(&args[1..]),
        Some("check") => check::run(&args[1..]),
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
