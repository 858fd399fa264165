//! Fuzz targets. Each module has `run(&mut Unstructured)`; the binaries under `fuzz_targets/`
//! call it under `cfg(fuzzing)`, and a seeded `smoke` test calls it under `cargo test`.
