//! `h5 dtype` run as a program.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn h5(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_h5"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run h5");
    let mut input = child.stdin.take().expect("stdin");
    if let Some(s) = stdin {
        input.write_all(s.as_bytes()).expect("write stdin");
    }
    drop(input);
    child.wait_with_output().expect("wait")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

#[test]
fn prints_canonical_text() {
    let o = h5(&["dtype", "H5T_NATIVE_INT"], None);
    assert!(o.status.success());
    assert_eq!(stdout(&o), "H5T_STD_I32LE\n");

    let o = h5(
        &[
            "dtype",
            r#"H5T_COMPOUND { H5T_NATIVE_CHAR "c" : 1; H5T_NATIVE_DOUBLE "d" : 8; }"#,
        ],
        None,
    );
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        "H5T_COMPOUND {\n      H5T_STD_I8LE \"c\" : 1;\n      H5T_IEEE_F64LE \"d\" : 8;\n   }\n"
    );
}

#[test]
fn prints_size() {
    let o = h5(
        &["dtype", "--size", "H5T_ARRAY { [3][4] H5T_IEEE_F32BE }"],
        None,
    );
    assert!(o.status.success());
    assert_eq!(stdout(&o), "48\n");
    let o = h5(&["dtype", "--size", "H5T_VLEN { H5T_STD_U8LE }"], None);
    assert_eq!(stdout(&o), "16\n");
}

#[test]
fn reads_standard_input() {
    let o = h5(
        &["dtype", "-"],
        Some("H5T_ENUM {\n H5T_STD_U8LE;\n \"a\" 1;\n}\n"),
    );
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        stdout(&o),
        "H5T_ENUM {\n      H5T_STD_U8LE;\n      \"a\"                1;\n   }\n"
    );
}

#[test]
fn parse_error_exits_2_with_position() {
    let o = h5(&["dtype", "H5T_VLEN { H5T_STD_I33LE }"], None);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("at byte 11"), "{err}");
    assert!(err.contains("H5T_STD_I33LE"), "{err}");
    assert!(err.contains("\n             ^\n"), "{err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn usage_errors() {
    assert_eq!(h5(&["dtype"], None).status.code(), Some(2));
    assert_eq!(
        h5(&["dtype", "--bogus", "H5T_NATIVE_INT"], None)
            .status
            .code(),
        Some(2)
    );
    assert_eq!(h5(&["nope"], None).status.code(), Some(2));
    assert_eq!(h5(&["dtype", "--help"], None).status.code(), Some(0));
}

#[test]
fn packs_and_maps_to_native() {
    let text = r#"H5T_COMPOUND { H5T_STD_I8BE "c" : 1; H5T_IEEE_F64BE "d" : 8; }"#;
    let o = h5(&["dtype", "--pack", text], None);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        stdout(&o),
        "H5T_COMPOUND {\n      H5T_STD_I8BE \"c\" : 0;\n      H5T_IEEE_F64BE \"d\" : 1;\n   }\n"
    );
    let o = h5(&["dtype", "--pack", "--size", text], None);
    assert_eq!(stdout(&o), "9\n");
    let o = h5(&["dtype", "--native", text], None);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        stdout(&o),
        "H5T_COMPOUND {\n      H5T_STD_I8LE \"c\" : 0;\n      H5T_IEEE_F64LE \"d\" : 8;\n   }\n"
    );
    let o = h5(&["dtype", "--native", "--size", text], None);
    assert_eq!(stdout(&o), "16\n");
    // Trailing padding survives only in the lossless form.
    let padded = r#"H5T_COMPOUND { H5T_IEEE_F64BE "d" : 0; H5T_STD_I8BE "c" : 8; }"#;
    let o = h5(&["dtype", "--native", "--lossless", padded], None);
    assert!(stdout(&o).contains("SIZE 16;"), "{}", stdout(&o));
}
