//! Running benchmark groups side by side with the reference and reporting ratios.
//!
//! A [`Group`] names its benchmarks and gives two commands, ours and the reference's, that
//! take the same parameters and print one line per benchmark in the same format
//! ([`Measurement::line`]). The runner starts them alternately (ours then the reference's,
//! then the other way round, so neither always runs on a machine warmed by the other), once
//! per run, keeps the medians, and checks that both sides produced the same output bytes in
//! every run.

use crate::Result;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Which implementation a command runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// This project.
    Ours,
    /// The reference implementation.
    Reference,
}

impl Side {
    fn label(self) -> &'static str {
        match self {
            Side::Ours => "ours",
            Side::Reference => "reference",
        }
    }
}

/// One timed run of one benchmark, as a worker prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// The benchmark's name.
    pub name: String,
    /// The bytes processed (the basis of the throughput).
    pub bytes: u64,
    /// The time taken.
    pub seconds: f64,
    /// A hash of the output bytes, to check both sides agree.
    pub hash: u64,
    /// The process's peak resident memory during the call in KiB, where the side measures
    /// it ([`crate::data::PeakRss`]).
    pub peak_kib: Option<u64>,
}

impl Measurement {
    /// The line format: `NAME<TAB>BYTES<TAB>SECONDS<TAB>HASH[<TAB>PEAK_KIB]` (hash in 16 hex
    /// digits).
    pub fn line(&self) -> String {
        let mut l = format!(
            "{}\t{}\t{:.9}\t{:016x}",
            self.name, self.bytes, self.seconds, self.hash
        );
        if let Some(k) = self.peak_kib {
            l.push_str(&format!("\t{k}"));
        }
        l
    }

    /// Parse a line of [`Measurement::line`]'s format.
    pub fn parse(line: &str) -> Result<Measurement> {
        let f: Vec<&str> = line.split('\t').collect();
        let bad = || format!("malformed benchmark line {line:?}");
        let (name, bytes, seconds, hash, peak) = match f[..] {
            [n, b, s, h] => (n, b, s, h, None),
            [n, b, s, h, p] => (n, b, s, h, Some(p)),
            _ => return Err(bad()),
        };
        Ok(Measurement {
            name: name.to_owned(),
            bytes: bytes.parse().map_err(|_| bad())?,
            seconds: seconds.parse().map_err(|_| bad())?,
            hash: u64::from_str_radix(hash, 16).map_err(|_| bad())?,
            peak_kib: peak.map(|p| p.parse().map_err(|_| bad())).transpose()?,
        })
    }
}

/// A group of benchmarks run against one reference.
pub trait Group {
    /// The group's name on the command line.
    fn name(&self) -> &'static str;
    /// Each benchmark's name and a short description, in order.
    fn benchmarks(&self) -> Vec<(&'static str, &'static str)>;
    /// What the reference is, for the table's title.
    fn reference_label(&self) -> &'static str;
    /// The bytes one call of benchmark `name` processes at `mib` MiB (the basis of its
    /// throughput; 0 for benchmarks counted in objects, which get no throughput). Both
    /// sides must report it.
    fn bytes(&self, name: &str, mib: usize) -> u64 {
        let _ = name;
        (mib as u64) << 20
    }
    /// The defaults of `--runs`, `--reps` and `--mib` for this group.
    fn defaults(&self) -> Defaults {
        Defaults {
            runs: 7,
            reps: 3,
            mib: 64,
        }
    }
    /// Make what both sides need before the first run (input files, say).
    fn setup(&self, cfg: &Config) -> Result {
        let _ = cfg;
        Ok(())
    }
    /// Further checks of benchmark `name` after the runs, given the reference side's output
    /// digest: one message per problem.
    fn check(&self, cfg: &Config, name: &str, reference: u64) -> Result<Vec<String>> {
        let _ = (cfg, name, reference);
        Ok(Vec::new())
    }
    /// The command that runs one side on buffers of `mib` MiB, timing `reps` calls of each
    /// benchmark after a warm-up: all benchmarks, or only the one named; with `dump`, it also
    /// writes that benchmark's output bytes to the file. `our_exe` is the `h5-bench`
    /// executable (whose `worker` subcommand runs our side).
    fn command(
        &self,
        side: Side,
        our_exe: &Path,
        mib: usize,
        reps: usize,
        only: Option<&str>,
        dump: Option<&Path>,
    ) -> Result<Command>;
}

/// A group's default parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Defaults {
    /// Runs (processes) of each side.
    pub runs: usize,
    /// Timed calls per benchmark in each run.
    pub reps: usize,
    /// Buffer or dataset size in MiB.
    pub mib: usize,
}

/// The runner's parameters.
#[derive(Clone, Debug)]
pub struct Config {
    /// Runs (processes) of each side.
    pub runs: usize,
    /// Timed calls per benchmark in each run.
    pub reps: usize,
    /// Buffer size in MiB.
    pub mib: usize,
    /// The `h5-bench` executable.
    pub our_exe: PathBuf,
    /// Print tab-separated values instead of the table.
    pub tsv: bool,
}

/// The summary of one benchmark on one side.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// Median time in seconds.
    pub median: f64,
    /// Fastest run.
    pub min: f64,
    /// Slowest run.
    pub max: f64,
    /// Number of timed calls.
    pub samples: usize,
}

impl Stats {
    /// The statistics of a non-empty list of times (the median of an even count is the mean
    /// of the middle two).
    pub fn of(times: &[f64]) -> Option<Stats> {
        if times.is_empty() {
            return None;
        }
        let mut t = times.to_vec();
        t.sort_by(f64::total_cmp);
        let k = t.len();
        let median = if k % 2 == 1 {
            t[k / 2]
        } else {
            (t[k / 2 - 1] + t[k / 2]) / 2.0
        };
        Some(Stats {
            median,
            min: t[0],
            max: t[k - 1],
            samples: k,
        })
    }
}

/// The outcome of one benchmark.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The benchmark's name.
    pub name: &'static str,
    /// Its description.
    pub what: &'static str,
    /// Bytes per run.
    pub bytes: u64,
    /// Our times.
    pub ours: Stats,
    /// The reference's times.
    pub reference: Stats,
    /// Disagreements between the outputs, one message each (empty when they agree).
    pub mismatches: Vec<String>,
    /// The highest peak resident memory of a call in KiB, ours and the reference's, where
    /// the sides report it.
    pub peak_kib: [Option<u64>; 2],
}

impl Outcome {
    /// Reference time over our time: above 1 means we are faster.
    pub fn ratio(&self) -> f64 {
        self.reference.median / self.ours.median
    }
}

/// Run one side once and parse its measurements.
fn run_side(group: &dyn Group, cfg: &Config, side: Side) -> Result<Vec<Measurement>> {
    let mut cmd = group.command(side, &cfg.our_exe, cfg.mib, cfg.reps, None, None)?;
    let out = cmd
        .output()
        .map_err(|e| format!("{}: running {cmd:?}: {e}", group.name()))?;
    if !out.status.success() {
        return Err(format!(
            "{}: {} side failed ({}): {}",
            group.name(),
            side.label(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(Measurement::parse)
        .collect()
}

/// Run a group: `cfg.runs` alternating runs of both sides, then the statistics and the
/// output checks of each benchmark.
pub fn run_group(group: &dyn Group, cfg: &Config) -> Result<Vec<Outcome>> {
    let benches = group.benchmarks();
    group.setup(cfg)?;
    // times[b][side], hashes[b][side]
    let mut times = vec![[Vec::new(), Vec::new()]; benches.len()];
    let mut hashes = vec![[Vec::new(), Vec::new()]; benches.len()];
    let mut peaks = vec![[None, None]; benches.len()];
    let progress = std::io::stderr().is_terminal();
    for run in 0..cfg.runs {
        let order = if run % 2 == 0 {
            [Side::Ours, Side::Reference]
        } else {
            [Side::Reference, Side::Ours]
        };
        for side in order {
            if progress {
                eprint!(
                    "\r{}: run {}/{} ({})    ",
                    group.name(),
                    run + 1,
                    cfg.runs,
                    side.label()
                );
            }
            let si = usize::from(side == Side::Reference);
            for m in run_side(group, cfg, side)? {
                let b = benches
                    .iter()
                    .position(|(n, _)| *n == m.name)
                    .ok_or_else(|| {
                        format!("{}: unexpected benchmark {:?}", group.name(), m.name)
                    })?;
                let expect = group.bytes(&m.name, cfg.mib);
                if m.bytes != expect {
                    return Err(format!(
                        "{}: {} side reported {} bytes for {}, expected {expect}",
                        group.name(),
                        side.label(),
                        m.bytes,
                        m.name
                    ));
                }
                times[b][si].push(m.seconds);
                hashes[b][si].push(m.hash);
                peaks[b][si] = peaks[b][si].max(m.peak_kib);
            }
        }
    }
    if progress {
        eprint!("\r{:60}\r", "");
    }
    let mut outcomes = Vec::new();
    for (b, (name, what)) in benches.iter().enumerate() {
        let stats = |si: usize, side: Side| {
            Stats::of(&times[b][si]).ok_or_else(|| {
                format!(
                    "{}: the {} side reported nothing for {name}",
                    group.name(),
                    side.label()
                )
            })
        };
        let (ours, reference) = (stats(0, Side::Ours)?, stats(1, Side::Reference)?);
        let mut mismatches = Vec::new();
        let [h_ours, h_ref] = &hashes[b];
        if h_ours.iter().chain(h_ref).any(|h| *h != h_ref[0]) {
            mismatches.push(locate_mismatch(group, cfg, name)?);
        }
        mismatches.extend(group.check(cfg, name, h_ref[0])?);
        outcomes.push(Outcome {
            name,
            what,
            bytes: group.bytes(name, cfg.mib),
            ours,
            reference,
            mismatches,
            peak_kib: peaks[b],
        });
    }
    Ok(outcomes)
}

/// Run both sides of one benchmark again with their outputs written to files, and describe
/// where they first differ.
fn locate_mismatch(group: &dyn Group, cfg: &Config, name: &str) -> Result<String> {
    let dir = std::env::temp_dir().join(format!("h5-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut outputs = Vec::new();
    for side in [Side::Ours, Side::Reference] {
        let path = dir.join(format!("{name}.{}", side.label()));
        let mut cmd = group.command(side, &cfg.our_exe, cfg.mib, 1, Some(name), Some(&path))?;
        let out = cmd.output().map_err(|e| format!("running {cmd:?}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "{cmd:?} failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        outputs.push(std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let (a, b) = (&outputs[0], &outputs[1]);
    let msg = match a.iter().zip(b.iter()).position(|(x, y)| x != y) {
        Some(i) => {
            let lo = i.saturating_sub(8);
            let hi = (i + 8).min(a.len()).min(b.len());
            format!(
                "outputs differ first at byte {i}: ours {:02x?}, reference {:02x?} (bytes {lo}..{hi})",
                &a[lo..hi],
                &b[lo..hi]
            )
        }
        None if a.len() != b.len() => format!(
            "outputs differ in length: ours {} bytes, reference {}",
            a.len(),
            b.len()
        ),
        None => "outputs differed in some run but agree on a rerun (nondeterminism)".to_owned(),
    };
    Ok(msg)
}

fn gbps(bytes: u64, s: f64) -> f64 {
    bytes as f64 / s / 1e9
}

/// The report: a table, or tab-separated values.
pub fn report(group: &dyn Group, cfg: &Config, outcomes: &[Outcome]) -> String {
    let mut s = String::new();
    if cfg.tsv {
        s.push_str("group\tbenchmark\tbytes\tside\tmedian_s\tmin_s\tmax_s\tsamples\n");
        for o in outcomes {
            for (side, st) in [("ours", &o.ours), ("reference", &o.reference)] {
                s.push_str(&format!(
                    "{}\t{}\t{}\t{side}\t{:.9}\t{:.9}\t{:.9}\t{}\n",
                    group.name(),
                    o.name,
                    o.bytes,
                    st.median,
                    st.min,
                    st.max,
                    st.samples
                ));
            }
        }
        return s;
    }
    s.push_str(&format!(
        "{}: {} MiB, against {}; medians of {} interleaved runs x {} timed calls\n",
        group.name(),
        cfg.mib,
        group.reference_label(),
        cfg.runs,
        cfg.reps
    ));
    s.push_str("ratio = reference time / our time (above 1: we are faster)\n\n");
    let rate = |o: &Outcome, t: f64| {
        if o.bytes == 0 {
            "-".to_owned()
        } else {
            format!("{:.2}", gbps(o.bytes, t))
        }
    };
    let mib = |k: Option<u64>| k.map_or("-".to_owned(), |k| format!("{:.0}", k as f64 / 1024.0));
    let rows: Vec<[String; 9]> = outcomes
        .iter()
        .map(|o| {
            [
                o.what.to_owned(),
                format!("{:.1}", o.ours.median * 1e3),
                format!("{:.1}", o.reference.median * 1e3),
                rate(o, o.ours.median),
                rate(o, o.reference.median),
                format!("{:.2}", o.ratio()),
                format!(
                    "{:.1}-{:.1} / {:.1}-{:.1}",
                    o.ours.min * 1e3,
                    o.ours.max * 1e3,
                    o.reference.min * 1e3,
                    o.reference.max * 1e3
                ),
                o.ours.samples.min(o.reference.samples).to_string(),
                format!("{} / {}", mib(o.peak_kib[0]), mib(o.peak_kib[1])),
            ]
        })
        .collect();
    let head = [
        "benchmark",
        "ours ms",
        "reference ms",
        "ours GB/s",
        "reference GB/s",
        "ratio",
        "ms min-max (ours / reference)",
        "calls",
        "peak RSS MiB (ours / reference)",
    ];
    let mut w: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for r in &rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.len());
        }
    }
    let line = |cells: &[&str]| -> String {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i == 0 {
                l.push_str(&format!("{c:<width$}", width = w[0]));
            } else {
                l.push_str(&format!("  {c:>width$}", width = w[i]));
            }
        }
        l.trim_end().to_owned() + "\n"
    };
    s.push_str(&line(&head));
    let rule: Vec<String> = w.iter().map(|n| "-".repeat(*n)).collect();
    s.push_str(&line(&rule.iter().map(String::as_str).collect::<Vec<_>>()));
    for r in &rows {
        s.push_str(&line(&r.iter().map(String::as_str).collect::<Vec<_>>()));
    }
    s.push_str("(ms: median time of one call; GB/s: 10^9 bytes per second; peak RSS: the process's high-water mark of resident memory during a call, its baseline included)\n");
    for o in outcomes {
        for m in &o.mismatches {
            s.push_str(&format!(
                "\n!!! MISMATCH in {}: ours and the reference produced different bytes: {m}\n",
                o.name
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        let s = Stats::of(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.samples), (2.0, 1.0, 3.0, 3));
        let s = Stats::of(&[4.0, 1.0, 2.0, 3.0]).unwrap();
        assert_eq!(s.median, 2.5);
        assert!(Stats::of(&[]).is_none());
    }

    #[test]
    fn measurement_lines_round_trip() {
        let m = Measurement {
            name: "x_to_y".into(),
            bytes: 1 << 26,
            seconds: 0.012_345_678,
            hash: 0xdead_beef_0123_4567,
            peak_kib: None,
        };
        assert_eq!(Measurement::parse(&m.line()).unwrap(), m);
        let m = Measurement {
            peak_kib: Some(12_345),
            ..m
        };
        assert_eq!(Measurement::parse(&m.line()).unwrap(), m);
        assert!(Measurement::parse("x\t1\t2").is_err());
        assert!(Measurement::parse("x\t1\tzz\t00").is_err());
    }
}
