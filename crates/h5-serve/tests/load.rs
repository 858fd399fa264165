//! A loopback load test (8 clients x 500 mixed requests, every answer identical to the one
//! given alone, memory bounded), and the safety rules: paths out of the served folder,
//! the selection limit, the token.

mod common;

use common::*;

fn python() -> Option<std::path::PathBuf> {
    h5_oracle::require("h5py", h5grove_python().or_else(|_| h5_oracle::h5py()))
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

#[test]
fn eight_clients_in_parallel() {
    let Some(py) = python() else { return };
    let dir = scratch("load");
    make_files(&py, &dir);
    let addr = start(&dir, true, h5_serve::Config::default());
    let q = "?file=types.h5&path=";
    let targets: Vec<String> = [
        "/meta{q}/entry/data/image".to_string(),
        "/meta{q}/".into(),
        "/attr{q}/".into(),
        "/data{q}/entry/data/image&format=bin&dtype=safe".into(),
        "/data{q}/entry/data/big_f64&format=npy".into(),
        "/data{q}/entry/data/chunked&selection=2:9,3".into(),
        "/data{q}/entry/data/compound".into(),
        "/data{q}/entry/data/vlen_str".into(),
        "/stats{q}/entry/data/big_ints".into(),
        "/paths{q}/".into(),
        "/meta{q}/nope".into(),
    ]
    .iter()
    .map(|t| t.replace("{q}", q))
    .collect();
    let expected: Vec<(u16, Vec<u8>)> = targets
        .iter()
        .map(|t| {
            let r = get(addr, t).unwrap();
            (r.status, r.body)
        })
        .collect();
    assert!(expected.iter().filter(|e| e.0 == 200).count() == targets.len() - 1);
    let before = rss_kib();
    let start = std::time::Instant::now();
    let threads: Vec<_> = (0..8)
        .map(|c| {
            let (targets, expected) = (targets.clone(), expected.clone());
            std::thread::spawn(move || {
                for i in 0..500 {
                    let k = (i * 7 + c * 3) % targets.len();
                    let r = get(addr, &targets[k]).unwrap();
                    assert_eq!(
                        (r.status, &r.body),
                        (expected[k].0, &expected[k].1),
                        "{}",
                        targets[k]
                    );
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let after = rss_kib();
    eprintln!(
        "4000 requests in {:.2?}, RSS {} -> {} KiB",
        start.elapsed(),
        before,
        after
    );
    assert!(
        after < before + 256 * 1024,
        "RSS grew from {before} to {after} KiB"
    );
}

#[test]
fn only_what_is_served() {
    let Some(py) = python() else { return };
    let base = scratch("safety");
    let dir = base.join("served");
    std::fs::create_dir_all(&dir).unwrap();
    make_files(&py, &dir);
    std::fs::copy(dir.join("simple.h5"), base.join("outside.h5")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(base.join("outside.h5"), dir.join("escape.h5")).unwrap();
    let config = h5_serve::Config {
        max_bytes: 500,
        token: None,
    };
    let addr = start(&dir, true, config);
    let status = |t: &str| get(addr, t).unwrap().status;
    assert_eq!(status("/meta?file=simple.h5&path=/"), 200);
    assert_eq!(status("/meta?file=..%2Foutside.h5&path=/"), 403);
    assert_eq!(
        status(&format!(
            "/meta?file={}&path=/",
            enc(base.join("outside.h5").to_str().unwrap())
        )),
        403
    );
    #[cfg(unix)]
    assert_eq!(status("/meta?file=escape.h5&path=/"), 403);
    assert_eq!(status("/meta?file=nothere.h5&path=/"), 404);
    // 10 float64 pass (as bytes and as text); a 500-byte limit refuses 120 of them.
    assert_eq!(status("/data?file=simple.h5&path=/x&format=bin"), 200);
    assert_eq!(status("/data?file=simple.h5&path=/x"), 200);
    let r = get(
        addr,
        "/data?file=types.h5&path=/entry/data/image&format=npy",
    )
    .unwrap();
    assert_eq!(r.status, 413);
    assert!(String::from_utf8_lossy(&r.body).contains("limit of 500 bytes"));
    assert_eq!(
        status("/data?file=types.h5&path=/entry/data/image&selection=0&format=bin"),
        200
    );
}

#[test]
fn token_is_required_when_set() {
    let Some(py) = python() else { return };
    let dir = scratch("token");
    make_files(&py, &dir);
    let config = h5_serve::Config {
        token: Some("s3cret".into()),
        ..h5_serve::Config::default()
    };
    let addr = start(&dir, false, config);
    assert_eq!(get(addr, "/api/meta?file=simple.h5").unwrap().status, 401);
    assert_eq!(
        get(addr, "/api/meta?file=simple.h5&token=wrong")
            .unwrap()
            .status,
        401
    );
    let r = get(addr, "/?file=simple.h5&token=s3cret").unwrap();
    assert_eq!(r.status, 200);
    let cookie = r
        .header("set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let ok = get_with(addr, "/api/meta?file=simple.h5", &[("Cookie", &cookie)]).unwrap();
    assert_eq!(ok.status, 200);
    let bearer = get_with(addr, "/api/", &[("Authorization", "Bearer s3cret")]).unwrap();
    assert_eq!(
        (bearer.status, bearer.body.as_slice()),
        (200, b"ok".as_slice())
    );
}
