//! A file in an object store (moto's S3 server on 127.0.0.1) served by URL answers as the
//! same file served from disk.

mod common;

use common::*;
use h5_oracle::moto::MotoServer;

#[test]
fn s3_url_answers_as_the_local_file() {
    let Some(py) = h5_oracle::require("h5py", h5grove_python().or_else(|_| h5_oracle::h5py()))
    else {
        return;
    };
    let Some(moto) = h5_oracle::require("moto server", MotoServer::start()) else {
        return;
    };
    let dir = scratch("remote");
    make_files(&py, &dir);
    moto.create_bucket("serve").unwrap();
    moto.put(
        "serve",
        "types.h5",
        &std::fs::read(dir.join("types.h5")).unwrap(),
    )
    .unwrap();
    for (k, v) in [
        ("AWS_ENDPOINT_URL", moto.endpoint().as_str()),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_REGION", "us-east-1"),
    ] {
        std::env::set_var(k, v);
    }
    let local = start(&dir, true, h5_serve::Config::default());
    let server = h5_serve::Server::new(
        vec![h5_serve::Root::from_arg("s3://serve/types.h5").unwrap()],
        h5_serve::Config::default(),
    );
    assert_eq!(server.files(), ["types.h5"]);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async move {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(l.local_addr().unwrap()).unwrap();
            axum::serve(l, server.api()).await.unwrap();
        });
    });
    let remote = rx.recv().unwrap();
    for t in [
        "/meta?file=types.h5&path=/entry/data",
        "/data?file=types.h5&path=/entry/data/chunked&format=npy",
        "/data?file=types.h5&path=/entry/data/compound",
        "/attr?file=types.h5&path=/",
        "/paths?file=types.h5&path=/",
        "/meta?file=types.h5&path=/nope",
    ] {
        let (a, b) = (get(local, t).unwrap(), get(remote, t).unwrap());
        assert_eq!((a.status, a.body), (b.status, b.body), "{t}");
    }
}
