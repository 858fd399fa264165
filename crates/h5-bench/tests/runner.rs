//! The runner end to end: both sides of the conversion group on small buffers must agree
//! byte for byte, and a disagreement must be found and located.

use h5_bench::runner::{report, run_group, Config, Group, Side};
use std::path::{Path, PathBuf};
use std::process::Command;

fn config(mib: usize, runs: usize) -> Config {
    Config {
        runs,
        reps: 2,
        mib,
        our_exe: PathBuf::from(env!("CARGO_BIN_EXE_h5-bench")),
        tsv: false,
    }
}

#[test]
fn conversion_outputs_match_the_reference() {
    let Some(_) = h5_oracle::require(
        "bench_convert",
        h5_oracle::c_program_with("bench_convert", &["-O2"]),
    ) else {
        return;
    };
    let group = h5_bench::convert::ConvertGroup;
    let outcomes = run_group(&group, &config(1, 2)).unwrap();
    assert_eq!(outcomes.len(), h5_bench::convert::BENCHES.len());
    for o in &outcomes {
        assert!(o.mismatches.is_empty(), "{}: {:?}", o.name, o.mismatches);
        assert_eq!((o.ours.samples, o.reference.samples), (4, 4));
        assert_eq!(o.bytes, 1 << 20);
        assert!(o.ours.median > 0.0 && o.reference.median > 0.0);
    }
    let text = report(&group, &config(1, 2), &outcomes);
    assert!(text.contains("i64 to i16, clamping"), "{text}");
    assert!(!text.contains("MISMATCH"), "{text}");
}

#[test]
fn read_and_write_outputs_match_h5py() {
    let Some(_) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let groups: [Box<dyn Group>; 2] = [
        Box::new(h5_bench::read::ReadGroup::default()),
        Box::new(h5_bench::write::WriteGroup::default()),
    ];
    for group in &groups {
        let cfg = Config {
            runs: 1,
            reps: 1,
            ..config(2, 1)
        };
        let outcomes = run_group(group.as_ref(), &cfg).unwrap();
        assert_eq!(outcomes.len(), group.benchmarks().len(), "{}", group.name());
        for o in &outcomes {
            assert!(o.mismatches.is_empty(), "{}: {:?}", o.name, o.mismatches);
            assert_eq!((o.ours.samples, o.reference.samples), (1, 1));
        }
        let text = report(group.as_ref(), &cfg, &outcomes);
        assert!(!text.contains("MISMATCH"), "{text}");
        // Benchmarks counted in objects have no throughput.
        assert!(text.contains(" - "), "{text}");
    }
}

/// Two sides that print the same benchmark with different outputs.
struct Disagreeing;

impl Group for Disagreeing {
    fn name(&self) -> &'static str {
        "disagreeing"
    }
    fn benchmarks(&self) -> Vec<(&'static str, &'static str)> {
        vec![("b", "a benchmark")]
    }
    fn reference_label(&self) -> &'static str {
        "a script"
    }
    fn command(
        &self,
        side: Side,
        _our_exe: &Path,
        mib: usize,
        _reps: usize,
        _only: Option<&str>,
        dump: Option<&Path>,
    ) -> Result<Command, String> {
        let (hash, bytes) = match side {
            Side::Ours => ("00000000000000aa", "xyzw"),
            Side::Reference => ("00000000000000bb", "xyQw"),
        };
        let mut c = Command::new("sh");
        c.arg("-c")
            .arg(format!(
                "printf 'b\\t{}\\t0.5\\t{hash}\\n'; if [ -n \"$1\" ]; then printf {bytes} > \"$1\"; fi",
                mib << 20
            ))
            .arg("sh")
            .arg(dump.map(|d| d.as_os_str().to_owned()).unwrap_or_default());
        Ok(c)
    }
}

#[test]
fn a_mismatch_is_located_and_reported() {
    let outcomes = run_group(&Disagreeing, &config(1, 3)).unwrap();
    assert_eq!(outcomes[0].ratio(), 1.0);
    assert_eq!(
        outcomes[0].mismatches,
        vec!["outputs differ first at byte 2: ours [78, 79, 7a, 77], reference [78, 79, 51, 77] (bytes 0..4)"]
    );
    let text = report(&Disagreeing, &config(1, 3), &outcomes);
    assert!(text.contains("!!! MISMATCH in b"), "{text}");
}
