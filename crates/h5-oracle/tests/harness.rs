//! The harness itself: building and running the smallest oracle.

#[test]
fn reference_library_version() {
    let Some(out) = h5_oracle::require("libhdf5 (C)", h5_oracle::run_c("version", &[], b"")) else {
        return;
    };
    let v = String::from_utf8(out).unwrap();
    let parts: Vec<u32> = v.trim().split('.').map(|p| p.parse().unwrap()).collect();
    assert_eq!(parts.len(), 3, "version {v:?}");
    assert!(parts[0] >= 1, "version {v:?}");
}
