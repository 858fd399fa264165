//! `h5-bench peers` (`cargo xtask bench peers`): the read group against h5py and the
//! other pure-Rust HDF5 libraries, each a release binary of the `h5-bench-peers` crate
//! (outside the default workspace build) that runs [`crate::read::run_worker`] with its
//! library's reads on the same files.
//!
//! Every side runs each benchmark in a fresh process (right after an untimed one of its
//! own), in an order rotated every run, and its digest must equal h5py's: a peer whose
//! output differs is reported as wrong and not ranked; one that cannot do a benchmark (no
//! such API) says so and is shown as `n/a`.

use crate::read::{ReadGroup, BENCHES, BUFFER_ROWS};
use crate::runner::{Config, Group, Measurement, Side, Stats};
use crate::svg::{bar_chart, Bar};
use crate::Result;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A peer library's worker binary.
#[derive(Clone, Debug)]
pub struct Peer {
    /// The crate's name and version, as the table shows it.
    pub label: String,
    /// Its executable.
    pub exe: PathBuf,
}

/// How long one process may take before it is stopped and its benchmark marked failed.
const TIMEOUT: Duration = Duration::from_secs(300);

/// What one side made of one benchmark over all runs.
#[derive(Clone, Debug, Default)]
struct Cell {
    times: Vec<f64>,
    hashes: Vec<u64>,
    peak_kib: Option<u64>,
    /// Why there is no time (unsupported, failed), when there is none.
    note: Option<String>,
}

/// Run `cmd` to completion within [`TIMEOUT`]: its stdout, or why it failed.
fn run_limited(mut cmd: Command) -> std::result::Result<String, String> {
    let dir = std::env::temp_dir();
    let err_path = dir.join(format!("h5-bench-peer-{}.err", std::process::id()));
    let err_file = std::fs::File::create(&err_path).map_err(|e| e.to_string())?;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(err_file)
        .spawn()
        .map_err(|e| format!("starting {cmd:?}: {e}"))?;
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
        s
    });
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(st);
        }
        if t0.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let out = reader.join().unwrap_or_default();
    let err = std::fs::read_to_string(&err_path).unwrap_or_default();
    let _ = std::fs::remove_file(&err_path);
    match status {
        None => Err(format!("timed out after {} s", TIMEOUT.as_secs())),
        Some(st) if st.success() => Ok(out),
        Some(st) => {
            let first = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            Err(format!(
                "failed ({st}): {}",
                first.chars().take(120).collect::<String>()
            ))
        }
    }
}

/// The peers table (and with `svg`, the chart of h5 against the fastest other).
pub fn run(cfg: &Config, peers: &[Peer], only: &[String], svg: Option<&Path>) -> Result<String> {
    let group = ReadGroup::default();
    group.setup(cfg)?;
    let dir = group.dir().ok_or("read: no input files")?.to_owned();
    let benches: Vec<(&str, &str)> = BENCHES
        .iter()
        .copied()
        .filter(|(n, _)| !BUFFER_ROWS.contains(n))
        .filter(|(n, _)| only.is_empty() || only.iter().any(|o| o == n))
        .collect();
    // Sides: 0 ours, 1 h5py, then the peers.
    let mut labels = vec!["h5".to_owned(), "h5py".to_owned()];
    labels.extend(peers.iter().map(|p| p.label.clone()));
    let mut cells = vec![vec![Cell::default(); labels.len()]; benches.len()];
    for run in 0..cfg.runs {
        for (b, (name, _)) in benches.iter().enumerate() {
            for k in 0..labels.len() {
                let side = (k + run + b) % labels.len();
                let command = || -> Result<Command> {
                    Ok(match side {
                        0 | 1 => {
                            let s = if side == 0 {
                                Side::Ours
                            } else {
                                Side::Reference
                            };
                            group.command(s, &cfg.our_exe, cfg.mib, cfg.reps, Some(name), None)?
                        }
                        p => {
                            let mut c = Command::new(&peers[p - 2].exe);
                            c.arg(cfg.mib.to_string())
                                .arg(cfg.reps.to_string())
                                .arg(name)
                                .env("H5_BENCH_DIR", &dir);
                            c
                        }
                    })
                };
                let cell = &mut cells[b][side];
                if cell.note.is_some() {
                    continue;
                }
                eprint!(
                    "\rpeers: run {}/{} {name} {}            ",
                    run + 1,
                    cfg.runs,
                    labels[side]
                );
                // An untimed run first, so that every timed process follows one of its own
                // side and benchmark. On a virtual machine that returns freed guest memory
                // to its host (free page reporting), fresh pages cost a host fault each or
                // nothing, depending on what the process before freed and how recently:
                // 256 MiB of results took 20 ms or 150 to 650 ms on either side, and the
                // order of the sides decided which. (Its failure is the timed run's too.)
                let _ = run_limited(command()?);
                match run_limited(command()?) {
                    Err(e) => cell.note = Some(e),
                    Ok(out) => {
                        if out.lines().any(|l| l.starts_with("# unsupported")) {
                            cell.note = Some("n/a".into());
                        }
                        for l in out.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
                            let m = Measurement::parse(l)?;
                            cell.times.push(m.seconds);
                            cell.hashes.push(m.hash);
                            cell.peak_kib = cell.peak_kib.max(m.peak_kib);
                        }
                    }
                }
            }
        }
    }
    eprint!("\r{:70}\r", "");
    table(cfg, &benches, &labels, &cells, svg)
}

fn table(
    cfg: &Config,
    benches: &[(&str, &str)],
    labels: &[String],
    cells: &[Vec<Cell>],
    svg: Option<&Path>,
) -> Result<String> {
    let mut head: Vec<String> = vec!["benchmark".into()];
    head.extend(labels.iter().map(|l| format!("{l} ms")));
    head.extend(
        [
            "fastest other",
            "ratio",
            "vs h5py",
            "peak RSS MiB h5 / h5py",
        ]
        .map(String::from),
    );
    let mut rows = Vec::new();
    let mut bars = Vec::new();
    let mut notes = Vec::new();
    for (b, (_, what)) in benches.iter().enumerate() {
        let reference = cells[b][1].hashes.first().copied();
        let median = |c: &Cell| Stats::of(&c.times).map(|s| s.median);
        let wrong =
            |c: &Cell| reference.is_none() || c.hashes.iter().any(|h| Some(*h) != reference);
        let mut row = vec![(*what).to_owned()];
        let mut fastest: Option<(usize, f64)> = None;
        let mut unsupported = Vec::new();
        for (side, c) in cells[b].iter().enumerate() {
            let cell = match (median(c), &c.note) {
                (Some(t), _) if wrong(c) => {
                    notes.push(format!(
                        "{what}: {} produced different values",
                        labels[side]
                    ));
                    format!("{:.1} (wrong)", t * 1e3)
                }
                (Some(t), _) => {
                    if side > 0 && fastest.is_none_or(|(_, f)| t < f) {
                        fastest = Some((side, t));
                    }
                    format!("{:.1}", t * 1e3)
                }
                (None, Some(n)) if n == "n/a" => "n/a".into(),
                // A library that says it lacks the filter (or the feature) is not a failure
                // of the benchmark.
                (None, Some(n))
                    if ["nsupported", "not implemented", "requires"]
                        .iter()
                        .any(|w| n.contains(w)) =>
                {
                    unsupported.push(labels[side].clone());
                    "unsupported".into()
                }
                (None, Some(n)) => {
                    notes.push(format!("{what}: {} {n}", labels[side]));
                    "failed".into()
                }
                (None, None) => "-".into(),
            };
            row.push(cell);
        }
        if !unsupported.is_empty() {
            notes.push(format!(
                "{what}: unsupported (the filter is not built in) by {}",
                unsupported.join(", ")
            ));
        }
        let ours = median(&cells[b][0]).filter(|_| !wrong(&cells[b][0]));
        let ratio = ours.zip(fastest).map(|(o, (_, f))| f / o);
        let vs_h5py = ours.zip(median(&cells[b][1])).map(|(o, r)| r / o);
        let fmt = |r: Option<f64>| r.map_or("-".to_owned(), |r| format!("{r:.2}"));
        row.push(fastest.map_or("-".into(), |(s, _)| labels[s].clone()));
        row.push(fmt(ratio));
        row.push(fmt(vs_h5py));
        let mib =
            |k: Option<u64>| k.map_or("-".to_owned(), |k| format!("{:.0}", k as f64 / 1024.0));
        row.push(format!(
            "{} / {}",
            mib(cells[b][0].peak_kib),
            mib(cells[b][1].peak_kib)
        ));
        rows.push(row);
        bars.push(Bar {
            label: (*what).to_owned(),
            ratio,
            against: fastest.map_or(String::new(), |(s, _)| labels[s].clone()),
        });
    }
    let mut s = format!(
        "read, against h5py and the pure-Rust HDF5 crates: {} MiB; medians of {} runs x {} \
         calls, each side in a fresh process per benchmark (after an untimed one of its own), \
         order rotated every run\n\
         ratio = fastest other's time / ours (above 1: we are faster); vs h5py likewise\n\n",
        cfg.mib, cfg.runs, cfg.reps
    );
    s.push_str(&markdown(&head, &rows));
    for n in &notes {
        s.push_str(&format!("note: {n}\n"));
    }
    if let Some(path) = svg {
        let chart = bar_chart(
            &format!("h5 against the fastest other HDF5 reader ({} MiB)", cfg.mib),
            &bars,
        );
        std::fs::write(path, chart).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(s)
}

/// A Markdown table (what the README shows).
fn markdown(head: &[String], rows: &[Vec<String>]) -> String {
    let mut s = format!("| {} |\n", head.join(" | "));
    s.push_str(&format!("|{}\n", "---|".repeat(head.len())));
    for r in rows {
        s.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    s
}

/// The chart of one group's outcomes (`h5-bench GROUP --svg FILE`).
pub fn group_chart(group: &dyn Group, cfg: &Config, outcomes: &[crate::runner::Outcome]) -> String {
    let bars: Vec<Bar> = outcomes
        .iter()
        .map(|o| Bar {
            label: o.what.to_owned(),
            ratio: Some(o.ratio()),
            against: group.reference_label().to_owned(),
        })
        .collect();
    bar_chart(
        &format!(
            "{}: h5 against {} ({} MiB)",
            group.name(),
            group.reference_label(),
            cfg.mib
        ),
        &bars,
    )
}
