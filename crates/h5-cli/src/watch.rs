//! `h5 watch [OPTIONS] FILE/DATASET`: follow a dataset a SWMR writer is appending to and print
//! what it gains, as the reference library's h5watch does: the file is opened for SWMR
//! reading, the dataset refreshed every interval; when its dimensions change, each is
//! printed (`dimension 0: 5->8 (increases)`), then under `    Data:` the new elements,
//! slab by slab (the part added along each dimension), each line starting with the index of
//! its first element (`        (5) 5, 6, 7`) and wrapped at the display width. Stops, with
//! status 0, when the writer closes the file (its superblock no longer marks it open for SWMR
//! writing) or on Ctrl-C; status 1 on an error, 2 on a usage error.
//!
//! The options are [`Options`] (`h5 watch --help`): the interval, one dimension only
//! (`--dim`), dimension changes only (`--sizes`, h5watch's `--dim`), the width, `--simple`.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use h5::types::Datatype;
use h5::{Dataset, File, OpenOptions};

/// Print what a SWMR writer appends to a dataset, as h5watch does
///
/// Opens the file for SWMR reading and refreshes the dataset every interval; when its
/// dimensions change, prints each (`dimension 0: 5->8 (increases)`), then the new elements.
/// Stops, with status 0, when the writer closes the file or on Ctrl-C; status 1 on an error,
/// 2 on a usage error.
#[derive(clap::Parser)]
#[command(name = "watch", verbatim_doc_comment)]
pub struct Options {
    /// Seconds between polls (fractions allowed)
    #[arg(
        short = 'p',
        long = "interval",
        visible_alias = "polling",
        value_name = "S",
        default_value = "1",
        value_parser = seconds
    )]
    interval: Duration,
    /// Watch dimension N only (a change of the others alone is not reported)
    #[arg(long, value_name = "N")]
    dim: Option<usize>,
    /// Print dimension changes only, not the elements (h5watch's --dim)
    #[arg(short = 'd', long = "sizes")]
    sizes_only: bool,
    /// The display width (0: no wrapping)
    #[arg(short, long, value_name = "W", default_value_t = 80)]
    width: usize,
    /// Values separated by spaces, one line per slab, no indexes
    #[arg(short = 'S', long)]
    simple: bool,
    /// The dataset: its file's path, then its path in the file
    #[arg(value_name = "FILE/DATASET")]
    target: String,
}

/// An `--interval` value: seconds, more than 0.
fn seconds(s: &str) -> Result<Duration, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v < 1e6 => Ok(Duration::from_secs_f64(v)),
        _ => Err("not a number of seconds more than 0".to_owned()),
    }
}

impl crate::Run for Options {
    fn run(self) -> i32 {
        let Some((file, dset)) = split_target(&self.target) else {
            eprintln!(
                "h5 watch: no file in {:?} (FILE/DATASET, FILE an existing file)",
                self.target
            );
            return 2;
        };
        let stop = Arc::new(AtomicBool::new(false));
        {
            let stop = stop.clone();
            // A second handler cannot be set (only in tests that call run twice): Ctrl-C then
            // ends the process as by default.
            let _ = ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst));
        }
        match watch(file, &dset, &self, &stop) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("h5 watch: {e}");
                1
            }
        }
    }
}

/// Split `FILE/DATASET` where the longest leading part naming an existing file ends (a
/// file name may hold slashes, as directories).
fn split_target(t: &str) -> Option<(&str, String)> {
    let mut cut = t.len();
    loop {
        let file = &t[..cut];
        if Path::new(file).is_file() {
            let rest = &t[cut..];
            let dset = if rest.is_empty() { "/" } else { rest };
            return Some((file, dset.to_owned()));
        }
        cut = t[..cut].rfind('/')?;
    }
}

fn watch(file: &str, dset: &str, o: &Options, stop: &AtomicBool) -> h5::Result<()> {
    let f = File::open_with(file, OpenOptions::new().swmr(true))?;
    let d = f.dataset(dset)?;
    let rank = d.ndim();
    if let Some(n) = o.dim {
        if n >= rank {
            return Err(h5::Error::new(
                h5::ErrorKind::InvalidInput,
                format!("{dset}: --dim {n}, but the dataset has {rank} dimensions"),
            ));
        }
    }
    println!("Monitoring dataset {dset}...");
    let mut prev = d.shape();
    loop {
        let writing = f.is_marked_swmr_writing()?;
        d.refresh()?;
        let cur = d.shape();
        let changed = match o.dim {
            Some(n) => cur[n] != prev[n],
            None => cur != prev,
        };
        if changed {
            report(&d, &prev, &cur, o)?;
            prev = cur;
        }
        // The writer closed the file before this poll's refresh: all was seen.
        if !writing {
            return Ok(());
        }
        let until = Instant::now() + o.interval;
        while Instant::now() < until {
            if stop.load(Ordering::SeqCst) {
                return Ok(());
            }
            std::thread::sleep((until - Instant::now()).min(Duration::from_millis(50)));
        }
    }
}

fn report(d: &Dataset, prev: &[u64], cur: &[u64], o: &Options) -> h5::Result<()> {
    use std::io::Write;
    let mut out = String::new();
    for (u, (p, c)) in prev.iter().zip(cur).enumerate() {
        let how = match c.cmp(p) {
            std::cmp::Ordering::Greater => "increases",
            std::cmp::Ordering::Less => "decreases",
            std::cmp::Ordering::Equal => "unchanged",
        };
        out.push_str(&format!("dimension {u}: {p}->{c} ({how})\n"));
    }
    let grew = match o.dim {
        Some(n) => cur[n] > prev[n],
        None => cur.iter().zip(prev).any(|(c, p)| c > p),
    };
    if !o.sizes_only && grew {
        out.push_str("    Data:\n");
        for (start, count) in slabs(prev, cur, o.dim) {
            out.push_str(&print_slab(d, &start, &count, o)?);
            out.push('\n');
        }
    }
    let mut so = std::io::stdout().lock();
    let _ = so.write_all(out.as_bytes());
    let _ = so.flush();
    Ok(())
}

/// The slabs that hold the elements added from extent `prev` to `cur` (h5watch's
/// `slicendump`): for each dimension `i` that grew, the part `prev[i]..cur[i]` along it, the
/// old extent along the dimensions before it and the whole new one after it. With `only`,
/// the slab of that dimension alone (the whole new extent along the others).
fn slabs(prev: &[u64], cur: &[u64], only: Option<usize>) -> Vec<(Vec<u64>, Vec<u64>)> {
    let rank = cur.len();
    if let Some(n) = only {
        let mut start = vec![0; rank];
        let mut count = cur.to_vec();
        start[n] = prev[n];
        count[n] = cur[n] - prev[n];
        return vec![(start, count)];
    }
    let mut out = Vec::new();
    slab_rec(prev, cur, 0, &mut vec![0; rank], &mut out);
    out
}

fn slab_rec(
    prev: &[u64],
    cur: &[u64],
    ind: usize,
    start: &mut Vec<u64>,
    out: &mut Vec<(Vec<u64>, Vec<u64>)>,
) {
    let rank = cur.len();
    if ind + 1 < rank {
        for i in 0..prev[ind].min(cur[ind]) {
            start[ind] = i;
            slab_rec(prev, cur, ind + 1, start, out);
        }
    }
    if cur[ind] <= prev[ind] {
        return;
    }
    let mut s = start.clone();
    let mut count = vec![1u64; rank];
    s[ind] = prev[ind];
    count[ind] = cur[ind] - prev[ind];
    for i in ind + 1..rank {
        s[i] = 0;
        count[i] = cur[i];
    }
    out.push((s, count));
}

/// The elements of one slab, formatted as h5watch prints them.
fn print_slab(d: &Dataset, start: &[u64], count: &[u64], o: &Options) -> h5::Result<String> {
    let values = values(d, start, count)?;
    let index = |k: usize| -> String {
        // The index of the k-th element of the slab, in row-major order.
        let mut idx = vec![0u64; count.len()];
        let mut k = k as u64;
        for i in (0..count.len()).rev() {
            idx[i] = start[i] + k % count[i].max(1);
            k /= count[i].max(1);
        }
        let parts: Vec<String> = idx.iter().map(u64::to_string).collect();
        format!("({})", parts.join(","))
    };
    if o.simple {
        return Ok(format!("        {}", values.join(" ")));
    }
    let mut text = String::new();
    let mut line = String::new();
    for (k, v) in values.iter().enumerate() {
        let last = k + 1 == values.len();
        let item = if last { v.clone() } else { format!("{v},") };
        if line.is_empty() {
            line = format!("        {} {item}", index(k));
        } else if o.width > 0 && line.len() + 1 + item.len() > o.width {
            text.push_str(&line);
            text.push('\n');
            line = format!("        {} {item}", index(k));
        } else {
            line.push(' ');
            line.push_str(&item);
        }
    }
    text.push_str(&line);
    Ok(text)
}

/// The slab's elements as text: integers and floats (`%1.6g` / `%1.15g`, as h5watch prints
/// them), strings quoted; other types are refused.
fn values(d: &Dataset, start: &[u64], count: &[u64]) -> h5::Result<Vec<String>> {
    use crate::dump::value::printf_float;
    let dt = d.datatype();
    Ok(match &dt {
        Datatype::Integer(t) if t.sign() == h5::types::Sign::None => d
            .read_hyperslab::<u64>(start, None, count, None)?
            .iter()
            .map(u64::to_string)
            .collect(),
        Datatype::Integer(_) => d
            .read_hyperslab::<i64>(start, None, count, None)?
            .iter()
            .map(i64::to_string)
            .collect(),
        Datatype::Float(_) if dt.size() <= 4 => d
            .read_hyperslab::<f32>(start, None, count, None)?
            .iter()
            .map(|v| printf_float("%1.6g", f64::from(*v)))
            .collect(),
        Datatype::Float(_) => d
            .read_hyperslab::<f64>(start, None, count, None)?
            .iter()
            .map(|v| printf_float("%1.15g", *v))
            .collect(),
        Datatype::String(_) => d
            .read_hyperslab::<String>(start, None, count, None)?
            .iter()
            .map(|s| format!("{s:?}"))
            .collect(),
        other => {
            return Err(h5::Error::new(
                h5::ErrorKind::Unsupported,
                format!(
                    "{}: watching values of type {other} is not supported (--sizes prints \
                     the dimension changes)",
                    d.path()
                ),
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slabs_follow_h5watch() {
        // The example of h5watch's slicendump: {5, 4} -> {7, 8}.
        let s = slabs(&[5, 4], &[7, 8], None);
        let mut want: Vec<(Vec<u64>, Vec<u64>)> =
            (0..5).map(|i| (vec![i, 4], vec![1, 4])).collect();
        want.push((vec![5, 0], vec![2, 8]));
        assert_eq!(s, want);
        assert_eq!(slabs(&[3], &[5], None), [(vec![3], vec![2])]);
        assert_eq!(slabs(&[5, 4], &[7, 8], Some(0)), [(vec![5, 0], vec![2, 8])]);
        assert!(slabs(&[5], &[5], None).is_empty());
    }

    #[test]
    fn targets_split_at_the_file() {
        let dir = std::env::temp_dir().join(format!("h5-watch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("a.h5");
        std::fs::write(&f, b"").unwrap();
        let t = format!("{}/g/x", f.display());
        assert_eq!(
            split_target(&t),
            Some((f.to_str().unwrap(), "/g/x".to_owned()))
        );
        assert_eq!(split_target("/nonexistent/x"), None);
    }
}
