use super::*;
use crate::dump::memory::MemoryFile;

/// thlink.h5's structure.
fn thlink() -> MemoryFile {
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
    f
}

fn ls(args: &[&str]) -> (String, String, i32) {
    let open = |name: &str| -> Result<Box<dyn DumpFile>, String> {
        if name == "thlink.h5" {
            Ok(Box::new(thlink()))
        } else {
            Err("no such file".into())
        }
    };
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = run_with(&args, &open, &mut out, &mut err);
    (
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
        status,
    )
}

#[test]
fn lists_like_h5ls_r() {
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
    assert_eq!(
        ls(&["-r", "thlink.h5"]),
        (want.to_string(), String::new(), 0)
    );
}

#[test]
fn lists_a_group_and_objects_after_the_file_name() {
    let (out, _, status) = ls(&["thlink.h5/g1"]);
    assert_eq!(
        out,
        "dset2                    Dataset {5}\ng1.1                     Group\n"
    );
    assert_eq!(status, 0);
    let (out, _, status) = ls(&["-g", "thlink.h5/g1"]);
    assert_eq!(out, "g1                       Group\n");
    assert_eq!(status, 0);
    // A missing object: its name and **NOT FOUND**, exit 1.
    let (out, _, status) = ls(&["thlink.h5/nosuch"]);
    assert_eq!(out, "nosuch     **NOT FOUND** ");
    assert_eq!(status, 1);
}

#[test]
fn bad_command_lines_are_errors() {
    let (out, err, status) = ls(&["--bogus", "thlink.h5"]);
    assert_eq!(
        (out.as_str(), err.as_str(), status),
        (USAGE, "Unknown argument: --bogus\n", 1)
    );
    let (out, _, status) = ls(&["-z", "thlink.h5"]);
    assert_eq!((out.as_str(), status), (USAGE, 1));
    let (_, err, status) = ls(&["-r", "-g", "thlink.h5"]);
    assert!(err.starts_with("Error: 'recursive' option not compatible"));
    assert_eq!(status, 1);
    let (out, _, status) = ls(&[]);
    assert_eq!((out.as_str(), status), (USAGE, 1));
    let (out, err, status) = ls(&["missing.h5"]);
    assert_eq!(
        (out.as_str(), err.as_str(), status),
        ("", "missing.h5: unable to open file\n", 1)
    );
    assert_eq!(ls(&["-h"]).2, 0);
}

#[test]
fn verbose_shows_location_and_storage() {
    let (out, _, _) = ls(&["-v", "thlink.h5/dset1"]);
    assert!(out.starts_with(
        "Opened \"thlink.h5\" with sec2 driver.\ndset1                    Dataset {5/5}\n"
    ));
    assert!(out.contains("    Storage:   20 logical bytes"), "{out}");
    assert!(
        out.contains("    Type:      32-bit big-endian integer\n"),
        "{out}"
    );
}
