//! `cargo xtask ci | gen-fixtures | bench`.

fn main() {
    let task = std::env::args().nth(1).unwrap_or_default();
    eprintln!("xtask: unknown task {task:?}");
    std::process::exit(2);
}
