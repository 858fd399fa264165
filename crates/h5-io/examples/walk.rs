//! Walk a file: print every object, its kind, shape and datatype, and every attribute, reading
//! each dataset whole (errors are printed, not fatal).
//!
//! `cargo run -p h5-io --example walk -- FILE`

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: walk FILE");
        std::process::exit(2);
    };
    let f = match h5_io::File::open(&path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let objs = match f.walk() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    for (p, _, kind) in objs {
        match f.node(&p) {
            Ok(h5_io::Node::Dataset(d)) => {
                let r = d.read_raw().map(|(b, _)| b.len());
                println!(
                    "{p}: dataset {:?} {} layout {:?} -> {:?}",
                    d.shape(),
                    d.datatype(),
                    d.layout().class.clone().to_string_short(),
                    r
                );
                for a in d.attrs().unwrap_or_default() {
                    println!("  @{} {:?} {}", a.name(), a.shape(), a.datatype());
                }
            }
            Ok(h5_io::Node::Group(g)) => {
                println!("{p}: group");
                for a in g.attrs().unwrap_or_default() {
                    println!("  @{} {:?} {}", a.name(), a.shape(), a.datatype());
                }
            }
            Ok(h5_io::Node::Datatype(t)) => println!("{p}: datatype {}", t.datatype()),
            Err(e) => println!("{p}: {kind:?}: {e}"),
        }
    }
}

trait Short {
    fn to_string_short(self) -> String;
}

impl Short for h5_format::message::layout::LayoutClass {
    fn to_string_short(self) -> String {
        use h5_format::message::layout::LayoutClass::*;
        match self {
            Compact { .. } => "compact".into(),
            Contiguous { .. } => "contiguous".into(),
            Chunked { index, .. } => format!("chunked {index:?}"),
            Virtual { .. } => "virtual".into(),
        }
    }
}
