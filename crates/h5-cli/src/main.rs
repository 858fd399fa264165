//! The `h5` command.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    eprintln!("h5: no command yet for {args:?}");
    std::process::exit(2);
}
