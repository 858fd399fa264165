//! The `h5` command.

mod check;
mod convert;
mod dtype;
#[allow(dead_code)] // the model's constructors are used by the file adapter and by tests
mod dump;
mod input;
mod ls;
mod repack;

const USAGE: &str = "usage: h5 COMMAND [ARGS]\n\ncommands:\n  dtype [--pack] [--native] [--lossless] [--size] TEXT|-\n                          print the canonical DDL text of a datatype, or its size\n  convert SRC DST N       convert N raw elements from stdin (types as DDL text) to stdout\n  check [-v] FILE         check every structure of a file; exit 0 if sound, 1 if not\n  dump [OPTIONS] FILE...  print a file like h5dump\n  ls FILE                 list the objects of a file like h5ls -r\n  repack [--latest] [-l LAYOUT] [-f FILTER] IN OUT\n                          copy a file anew with our writer (h5repack's -l/-f options)\n\nFILE may be a URL (s3://, gs://, az://, http(s)://, file://); --stats prints the\nrequests, bytes and cache hits of reading it to stderr";

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    input::take_stats_flag(&mut args);
    let status = match args.first().map(String::as_str) {
        Some("dtype") => dtype::run(&args[1..]),
        Some("convert") => convert::main(&args[1..]),
        Some("check") => check::run(&args[1..]),
        Some("dump") => dump::run(&args[1..]),
        Some("ls") => ls::run(&args[1..]),
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
    input::print_stats();
    std::process::exit(status);
}
