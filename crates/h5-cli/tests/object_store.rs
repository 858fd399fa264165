//! The commands read URLs: files written by h5py, stored in a bucket of moto's S3 server on
//! 127.0.0.1. `h5 dump s3://...` prints what `h5dump` prints of the local file (the file
//! name in the first line aside), `h5 ls`, `h5 check` and `h5 repack` (as a source) read the
//! bucket as they read the local file, and `--stats` reports the requests the server logged.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use h5_oracle::moto::MotoServer;

const BUCKET: &str = "h5-cli-test";

fn h5(server: &MotoServer, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_h5"))
        .args(args)
        .env("AWS_ENDPOINT_URL", server.endpoint())
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_REGION", "us-east-1")
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn commands_read_urls() {
    let Some(server) = h5_oracle::require("moto server", MotoServer::start()) else {
        return;
    };
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let Some(h5dump) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) else {
        return;
    };
    let dir: PathBuf =
        std::env::temp_dir().join(format!("h5-cli-object-store-{}", std::process::id()));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../h5-object-store/tests/fixtures.py");
    h5_oracle::run(&py, &[script.to_str().unwrap(), dir.to_str().unwrap()], &[]).unwrap();
    server.create_bucket(BUCKET).unwrap();
    for name in ["latest.h5", "earliest.h5"] {
        server
            .put(BUCKET, name, &std::fs::read(dir.join(name)).unwrap())
            .unwrap();
    }
    for name in ["latest.h5", "earliest.h5"] {
        let local = dir.join(name);
        let local_s = local.to_str().unwrap();
        let url = format!("s3://{BUCKET}/{name}");
        // h5 dump URL == h5dump FILE, with the name in the first line as given.
        let want = h5_oracle::run(&h5dump, &[local_s], &[]).unwrap();
        let want = text(&want).replacen(local_s, &url, 1);
        let before = server.requests().len();
        let got = h5(&server, &["dump", "--stats", &url]);
        assert!(got.status.success(), "{}", text(&got.stderr));
        let got_text = text(&got.stdout);
        if let Some((i, (a, b))) = got_text
            .lines()
            .zip(want.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
        {
            panic!(
                "{url}: h5 dump differs from h5dump at line {}: {a:?} != {b:?}",
                i + 1
            );
        }
        assert!(
            got_text == want,
            "{url}: h5 dump differs from h5dump in length"
        );
        // --stats: one line per file read (an external link's target too), whose requests
        // add up to what the server logged.
        let logged = server.requests().len() - before;
        let stats = text(&got.stderr);
        let counted: usize = stats
            .lines()
            .filter_map(|l| {
                l.split(": ")
                    .nth(1)?
                    .split(' ')
                    .next()?
                    .parse::<usize>()
                    .ok()
            })
            .sum();
        assert!(stats.starts_with(&format!("{url}: ")), "{stats}");
        assert_eq!(counted, logged, "{stats} (the server logged {logged})");
        // h5 ls and h5 check read the bucket as the local file.
        let ls_local = Command::new(env!("CARGO_BIN_EXE_h5"))
            .args(["ls", local_s])
            .output()
            .unwrap();
        let ls_url = h5(&server, &["ls", &url]);
        assert_eq!(
            text(&ls_url.stdout),
            text(&ls_local.stdout).replace(local_s, &url),
            "{}",
            text(&ls_url.stderr)
        );
        let check = h5(&server, &["check", &url]);
        assert_eq!(check.status.code(), Some(0), "{}", text(&check.stdout));
        // h5 repack from the bucket: the copy holds what the local file holds.
        let out = dir.join(format!("repacked-{name}"));
        let r = h5(&server, &["repack", &url, out.to_str().unwrap()]);
        assert!(r.status.success(), "{}", text(&r.stderr));
        if let Ok(h5diff) = h5_oracle::tool("h5diff") {
            let d = Command::new(h5diff)
                .args([local_s, out.to_str().unwrap()])
                .output()
                .unwrap();
            assert!(d.status.success(), "{}", text(&d.stdout));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
