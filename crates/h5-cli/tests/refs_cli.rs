//! `h5 refs` on the command line, without the readers (those are `refs_interop.rs`): the
//! document on standard output or in `-o`, options checked, errors with the file's name and
//! exit status 2.

use std::process::{Command, Output};

fn h5(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_h5"))
        .args(args)
        .output()
        .unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn refs_writes_the_document_and_reports_bad_usage() {
    let dir = std::env::temp_dir().join(format!("h5-refs-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("f.h5");
    {
        let f = h5::File::create(&file).unwrap();
        f.new_dataset::<f64>()
            .shape(&[600])
            .chunk(&[100])
            .create("x")
            .unwrap()
            .write(&(0..600).map(f64::from).collect::<Vec<_>>())
            .unwrap();
    }
    let path = file.to_str().unwrap();
    let out = h5(&["refs", path]);
    assert!(out.status.success(), "{}", err(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["refs"]["x/0"][0], path);
    assert_eq!(doc["refs"]["x/5"][2], 800);

    let json = dir.join("out.json");
    let out = h5(&[
        "refs",
        "--url",
        "s3://b/f.h5",
        "--inline-threshold=1000",
        path,
        "-o",
        json.to_str().unwrap(),
        "/x",
    ]);
    assert!(out.status.success(), "{}", err(&out));
    assert!(out.stdout.is_empty());
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    // 800-byte chunks under a threshold of 1000: inline.
    assert!(doc["refs"]["x/0"].is_string(), "{doc}");

    for (args, says) in [
        (vec!["refs"], "Usage: h5 refs"),
        (
            vec!["refs", "--bogus", path],
            "unexpected argument '--bogus'",
        ),
        (
            vec!["refs", "--inline-threshold", "lots", path],
            "not a byte count",
        ),
        (
            vec!["refs", path, "-o"],
            "a value is required for '--output",
        ),
        (vec!["refs", path, "/nope"], "/nope: not found"),
        (vec!["refs", "/does/not/exist.h5"], "/does/not/exist.h5"),
    ] {
        let out = h5(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(err(&out).contains(says), "{args:?}: {}", err(&out));
    }
    let out = h5(&["refs", "--help"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--inline-threshold"));
    let _ = std::fs::remove_dir_all(&dir);
}
