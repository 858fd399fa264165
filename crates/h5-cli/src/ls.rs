//! `h5 ls FILE`: list every object of a file recursively, the way `h5ls -r` does.

use std::collections::HashMap;
use std::io::Write;

use crate::dump::model::{DumpFile, IndexOrder, LinkTarget, ObjId, ObjKind, Space};

/// The `h5ls -r` listing of a file.
pub fn list(file: &dyn DumpFile) -> Result<String, String> {
    let mut out = String::new();
    let mut seen: HashMap<ObjId, String> = HashMap::new();
    let root = file.root();
    seen.insert(root, "/".into());
    line(&mut out, "/", "Group");
    walk(file, root, "", &mut seen, &mut out)?;
    Ok(out)
}

/// A name as h5ls prints it (`print_string` with escaped spaces): quotes, backslashes, spaces
/// and control characters escaped, other bytes that are not printable ASCII in octal. Returns
/// the text.
fn escape(name: &str) -> String {
    let mut s = String::new();
    for &b in name.as_bytes() {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            8 => s.push_str("\\b"),
            12 => s.push_str("\\f"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            b' ' => s.push_str("\\ "),
            0x21..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\{:03o}", b)),
        }
    }
    s
}

fn line(out: &mut String, name: &str, what: &str) {
    let name = escape(name);
    let n = name.len();
    out.push_str(&name);
    out.push_str(&" ".repeat(24usize.saturating_sub(n)));
    out.push(' ');
    out.push_str(what);
    out.push('\n');
}

fn space_text(s: &Space) -> String {
    match s {
        Space::Null => "{NULL}".into(),
        Space::Scalar => "{SCALAR}".into(),
        Space::Simple { dims, maxdims } => {
            let parts: Vec<String> = dims
                .iter()
                .zip(maxdims.iter().chain(std::iter::repeat(&0)))
                .map(|(&d, &m)| {
                    if m == u64::MAX {
                        format!("{}/Inf", d)
                    } else if m != d && m != 0 {
                        format!("{}/{}", d, m)
                    } else {
                        d.to_string()
                    }
                })
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

fn walk(
    file: &dyn DumpFile,
    group: ObjId,
    path: &str,
    seen: &mut HashMap<ObjId, String>,
    out: &mut String,
) -> Result<(), String> {
    for l in file.links(group, IndexOrder::Name)? {
        let full = format!("{}/{}", path, l.name);
        match l.target {
            LinkTarget::Hard(id) => {
                let kind = file.object_kind(id)?;
                let kind_name = match kind {
                    ObjKind::Group => "Group",
                    ObjKind::Dataset => "Dataset",
                    ObjKind::NamedDatatype => "Type",
                };
                if let Some(first) = seen.get(&id) {
                    line(
                        out,
                        &full,
                        &format!("{}, same as {}", kind_name, escape(first)),
                    );
                    continue;
                }
                seen.insert(id, full.clone());
                // An object that cannot be opened (`H5Oopen` fails).
                if file.object_info(id).is_err() {
                    line(out, &full, &format!("{} *ERROR*", kind_name));
                    continue;
                }
                match kind {
                    ObjKind::Group => {
                        line(out, &full, "Group");
                        walk(file, id, &full, seen, out)?;
                    }
                    ObjKind::Dataset => {
                        let d = file.dataset(id)?;
                        line(out, &full, &format!("Dataset {}", space_text(&d.space)));
                    }
                    ObjKind::NamedDatatype => line(out, &full, "Type"),
                }
            }
            LinkTarget::Soft(t) => line(out, &full, &format!("Soft Link {{{}}}", t)),
            LinkTarget::External { file: f, path: p } => {
                let sep = if p.starts_with('/') { "/" } else { "//" };
                line(out, &full, &format!("External Link {{{}{}{}}}", f, sep, p))
            }
            LinkTarget::UserDefined(_) => line(out, &full, "UD Link {cannot follow UD links}"),
        }
    }
    Ok(())
}

/// `h5 ls FILE`.
pub fn run(args: &[String]) -> i32 {
    let files: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    if files.is_empty() {
        eprintln!("usage: h5 ls FILE");
        return 1;
    }
    let mut status = 0;
    for f in files {
        match crate::dump::open_file(f).and_then(|file| list(file.as_ref())) {
            Ok(text) => {
                let _ = std::io::stdout().write_all(text.as_bytes());
            }
            Err(_) => {
                eprintln!("{}: unable to open file", f);
                status = 1;
            }
        }
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dump::memory::MemoryFile;

    #[test]
    fn lists_like_h5ls_r() {
        // thlink.h5's structure.
        let mut f = MemoryFile::new();
        let root = f.root;
        let t: h5::types::Datatype = "H5T_STD_I32BE".parse().unwrap();
        let d1 = f.add_dataset(root, "dset1", t, Space::simple(&[5]), vec![0; 20]);
        let g1 = f.add_group(root, "g1");
        f.link(g1, "dset2", LinkTarget::Hard(d1));
        let g11 = f.add_group(g1, "g1.1");
        f.link(g11, "dset3", LinkTarget::Hard(d1));
        f.link(root, "g2", LinkTarget::Hard(g11));
        f.link(root, "g3", LinkTarget::Hard(root));
        let want = "\
/                        Group
/dset1                   Dataset {5}
/g1                      Group
/g1/dset2                Dataset, same as /dset1
/g1/g1.1                 Group
/g1/g1.1/dset3           Dataset, same as /dset1
/g2                      Group, same as /g1/g1.1
/g3                      Group, same as /
";
        assert_eq!(list(&f).unwrap(), want);
    }
}
