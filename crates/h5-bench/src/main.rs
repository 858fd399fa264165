//! `h5-bench`: see the library documentation; usually started by `cargo xtask bench`.

use h5_bench::runner::{self, Config};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str =
    "usage: h5-bench [GROUP...] [--runs N] [--reps R] [--mib M] [--threads T] [--tsv] [--svg FILE]
       h5-bench peers [BENCH...] [--runs N] [--reps R] [--mib M] [--svg FILE] --peer LABEL=EXE...
       h5-bench worker GROUP MIB REPS NAME|all [DUMPFILE]

Runs each group (default: all; groups: convert, read, write) N times on each side,
alternating ours and the reference; each run times R calls of each benchmark. Prints the
medians over all timed calls and their ratios. Exits non-zero when the two sides' outputs
differ.

  convert  h5_types::convert against the reference library's H5Tconvert on buffers of M MiB
           (defaults: N 7, R 3 after a warm-up, M 64)
  read     reading files made by h5py, against h5py: open and list 10,000 objects, open and
           read one attribute, an M MiB contiguous f64 dataset, the same chunked with
           shuffle and deflate (and plugin filters), one field of a 5-field compound dataset
           of M MiB, a 100x100 hyperslab of an 8192x8192 f32 dataset in 64x64 deflate chunks
           (defaults: N 5, R 1, M 256)
  write    writing, against h5py: M MiB contiguous, the same chunked with shuffle and
           deflate, 100,000 small attributes, 10^6 compound records appended one chunk at a
           time (defaults: N 5, R 1, M 256)
  peers    the read group against h5py and the peer libraries' workers (the h5-bench-peers
           crate's binaries; `cargo xtask bench peers` builds and names them), each side in
           a fresh process per benchmark; prints a Markdown table (defaults: N 5, R 1, M 256)

--threads T runs our side with T worker threads (RAYON_NUM_THREADS; default: one per core).
--svg FILE writes a bar chart of the ratios (of the last group run, or of the peers table).";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("h5-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn number(flag: &str, v: Option<&String>) -> Result<usize, String> {
    v.and_then(|s| s.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("{flag} needs a positive number"))
}

/// Returns whether every output matched.
fn run(args: &[String]) -> Result<bool, String> {
    if args.first().map(String::as_str) == Some("worker") {
        let [_, group, mib, reps, only, rest @ ..] = args else {
            return Err(USAGE.into());
        };
        let mib = number("MIB", Some(mib))?;
        let reps = number("REPS", Some(reps))?;
        h5_bench::worker(
            group,
            mib,
            reps,
            only,
            rest.first().map(PathBuf::from).as_deref(),
        )?;
        return Ok(true);
    }
    let (mut runs, mut reps, mut mib, mut tsv) = (None, None, None, false);
    let (mut svg, mut peers, mut threads) = (None, Vec::new(), None);
    let our_exe = std::env::current_exe().map_err(|e| format!("locating h5-bench: {e}"))?;
    let mut names = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => runs = Some(number("--runs", it.next())?),
            "--reps" => reps = Some(number("--reps", it.next())?),
            "--mib" => mib = Some(number("--mib", it.next())?),
            "--threads" => threads = Some(number("--threads", it.next())?),
            "--tsv" => tsv = true,
            "--svg" => svg = Some(PathBuf::from(it.next().ok_or("--svg needs a file")?)),
            "--peer" => {
                let p = it.next().ok_or("--peer needs LABEL=EXE")?;
                let (label, exe) = p.split_once('=').ok_or("--peer needs LABEL=EXE")?;
                peers.push(h5_bench::peers::Peer {
                    label: label.to_owned(),
                    exe: PathBuf::from(exe),
                });
            }
            "-h" | "--help" | "help" => {
                println!("{USAGE}");
                return Ok(true);
            }
            s if s.starts_with('-') => return Err(format!("unknown option {s:?}\n{USAGE}")),
            s => names.push(s.to_owned()),
        }
    }
    if let Some(t) = threads {
        // Inherited by every worker; only our side sizes a thread pool from it (rayon's
        // global pool, which chunk decoding and parallel reads use).
        std::env::set_var("RAYON_NUM_THREADS", t.to_string());
        if !tsv {
            println!("our side: {t} worker thread(s) (RAYON_NUM_THREADS={t})\n");
        }
    }
    if names.first().map(String::as_str) == Some("peers") {
        let cfg = Config {
            runs: runs.unwrap_or(5),
            reps: reps.unwrap_or(1),
            mib: mib.unwrap_or(256),
            our_exe,
            tsv,
        };
        let table = h5_bench::peers::run(&cfg, &peers, &names[1..], svg.as_deref())?;
        print!("{table}");
        return Ok(!table.contains("(wrong)"));
    }
    let all = h5_bench::groups();
    for n in &names {
        if !all.iter().any(|g| g.name() == n) {
            return Err(format!("unknown benchmark group {n:?}\n{USAGE}"));
        }
    }
    let mut ok = true;
    for g in all
        .iter()
        .filter(|g| names.is_empty() || names.iter().any(|n| n == g.name()))
    {
        let d = g.defaults();
        let cfg = Config {
            runs: runs.unwrap_or(d.runs),
            reps: reps.unwrap_or(d.reps),
            mib: mib.unwrap_or(d.mib),
            our_exe: our_exe.clone(),
            tsv,
        };
        let outcomes = runner::run_group(g.as_ref(), &cfg)?;
        print!("{}", runner::report(g.as_ref(), &cfg, &outcomes));
        if let Some(path) = &svg {
            std::fs::write(
                path,
                h5_bench::peers::group_chart(g.as_ref(), &cfg, &outcomes),
            )
            .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        ok &= outcomes.iter().all(|o| o.mismatches.is_empty());
    }
    Ok(ok)
}
