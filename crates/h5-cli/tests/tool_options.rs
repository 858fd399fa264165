//! The options of the compatibility subcommands against the installed reference tools
//! (h5dump, h5ls, h5diff and h5stat 1.10.8): each option issue #15 lists, on files of the
//! reference corpora and the h5py fixtures, run by the reference tool and by `h5 COMMAND`
//! from the files' folder; standard output must be the same bytes, the first line of standard
//! error the same text and the exit status the same. h5dump's rows are its option edge cases:
//! options after the file name, `--`, clustered `*` options, long names given in part (h5dump
//! 1.10.8 takes whole names only), missing arguments, unknown options.
//!
//! And for every subcommand of `h5`: `--help` lists every option its parser takes, and an
//! unknown option is an error (a non-zero status and a message naming it), never ignored.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a run printed and how it ended.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    stdout: Vec<u8>,
    /// The first line of standard error.
    stderr: String,
    status: Option<i32>,
}

fn outcome(cmd: &mut Command) -> Outcome {
    // h5ls prints times in the local zone (h5 ls in UTC) and takes its width from COLUMNS.
    let out = cmd
        .env("TZ", "UTC")
        .env_remove("COLUMNS")
        .output()
        .expect("run a tool");
    Outcome {
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr)
            .lines()
            .next()
            .unwrap_or("")
            .to_owned(),
        status: out.status.code(),
    }
}

fn h5() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_h5"))
}

/// The reference tool `tool` (its messages name it as `argv[0]`, so it runs as plain `tool`),
/// or `None` (skipped, or a failure under `H5_REQUIRE_ORACLES=1`).
fn reference(tool: &str) -> Option<PathBuf> {
    h5_oracle::require(tool, h5_oracle::tool(tool))
}

/// A folder of test files, or `None` when it is absent (skipped, or a failure under
/// `H5_REQUIRE_ORACLES=1`).
fn folder(dir: PathBuf, probe: &str) -> Option<PathBuf> {
    if dir.join(probe).exists() {
        return Some(dir);
    }
    assert!(
        !h5_oracle::oracles_required(),
        "{probe} missing from {}",
        dir.display()
    );
    eprintln!("skipped: {probe} missing from {}", dir.display());
    None
}

fn h5py_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../h5-io/tests/fixtures/h5py")
}

/// The `.h5` files of `dir`, sorted.
fn h5_files(dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".h5"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Run each argument list (words split at spaces) in `dir` with the reference `tool` and with
/// `h5 command`; the rows that do not agree, each with what differed.
fn disagreements(tool: &Path, command: &str, dir: &Path, rows: &[String]) -> Vec<String> {
    let name = tool.file_name().map(|n| n.to_string_lossy().into_owned());
    let mut failures = Vec::new();
    for row in rows {
        let args: Vec<&str> = row.split_whitespace().collect();
        let want = outcome(
            Command::new(tool)
                .arg0(name.as_deref().unwrap_or(command))
                .args(&args)
                .current_dir(dir),
        );
        let got = outcome(Command::new(h5()).arg(command).args(&args).current_dir(dir));
        if want != got {
            let mut what = Vec::new();
            if want.stdout != got.stdout {
                what.push(format!(
                    "stdout ({} bytes, ours {})",
                    want.stdout.len(),
                    got.stdout.len()
                ));
            }
            if want.stderr != got.stderr {
                what.push(format!("stderr {:?}, ours {:?}", want.stderr, got.stderr));
            }
            if want.status != got.status {
                what.push(format!("status {:?}, ours {:?}", want.status, got.status));
            }
            failures.push(format!("{command} {row}: {}", what.join("; ")));
        }
    }
    failures
}

fn rows(text: &str) -> Vec<String> {
    text.lines().map(str::to_owned).collect()
}

/// Check `rows` agree, but for `known` (rows known to differ, printed, not failed); returns
/// how many rows ran.
fn check(tool: &str, command: &str, dir: &Path, rows: &[String], known: &[&str]) -> usize {
    let Some(prog) = reference(tool) else {
        return 0;
    };
    let failures = disagreements(&prog, command, dir, rows);
    let (known_now, new): (Vec<&String>, Vec<&String>) = failures.iter().partition(|f| {
        known
            .iter()
            .any(|k| f.starts_with(&format!("{command} {k}:")))
    });
    for f in &known_now {
        eprintln!("known difference: {f}");
    }
    eprintln!(
        "{tool}: {} of {} rows agree in {}",
        rows.len() - failures.len(),
        rows.len(),
        dir.display()
    );
    assert!(
        new.is_empty(),
        "{} rows differ from {tool}:\n{}",
        new.len(),
        new.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    rows.len()
}

/// h5ls's options on the h5ls corpus.
const H5LS_ROWS: &str = "tall.h5
-r tall.h5
-v tall.h5
-vv tall.h5
-rv tall.h5
-d tall.h5
-rd tall.h5
-a tall.h5
-ra tall.h5
-g tall.h5
-g tall.h5/g1
-rg tall.h5
-l tcompound.h5
-rl -d tcompound.h5
-S tall.h5
-rS tall.h5
-rSd tall.h5
-w80 -rd tall.h5
-w 40 -rd tall.h5
-w0 -rd tall.h5
-w -rd tall.h5
-w abc tall.h5
-w
-rdw40 tall.h5
-x -rd tall.h5
-rdx tcompound.h5
-rdx tarray1.h5
-rvx tattr2.h5
-E textlinksrc.h5
-rE textlinksrc.h5
--vfd=sec2 tall.h5
--vfd=core -r tall.h5
-s -rd tall.h5
--follow-symlinks -r textlinksrc.h5
--follow-symlinks --no-dangling-links -r textlinksrc.h5
--no-dangling-links -r textlinksrc.h5
-f tall.h5
-f tall.h5/g1
-r tall.h5/g1
-r tall.h5/g1/g1.1
tall.h5/g1 tall.h5/g2
-r tall.h5/nosuch
nosuchfile.h5
-h
--help
-V
--version
-Z tall.h5
-rZ tall.h5
--bogus tall.h5
--recursive tall.h5
--recur tall.h5
--verbose tall.h5
--address -r tall.h5
--data -r tall.h5
--full tall.h5
--group tall.h5
--label tcompound.h5
--simple -r tall.h5
--string -rd tall.h5
--hexdump -rd tall.h5
--width=40 -rd tall.h5
--width 40 -rd tall.h5
--width -rd tall.h5
--external -r textlinksrc.h5
-e tall.h5
--enable-error-stack tall.h5
--errors tall.h5

-r
tall.h5 -r
-- tall.h5
-r -- tall.h5
-rv tdset.h5
-rvd tattr2.h5
-rva tattrreg.h5
-rv tgroup.h5
-rvd tdset_idx.h5
-rvd tdatareg.h5";

#[test]
fn h5ls_options_agree_with_h5ls() {
    let Some(dir) = folder(h5_oracle::corpus("h5ls"), "tall.h5") else {
        return;
    };
    check("h5ls", "ls", &dir, &rows(H5LS_ROWS), &[]);
}

#[test]
fn h5ls_options_agree_with_h5ls_on_h5py_fixtures() {
    let Some(dir) = folder(h5py_fixtures(), "datatypes.h5") else {
        return;
    };
    let mut all = Vec::new();
    for f in h5_files(&dir) {
        for opts in [
            "-r",
            "-rv",
            "-rd",
            "-ra",
            "-rS -d",
            "-rx",
            "-rl -d -s",
            "-rf -g",
        ] {
            all.push(format!("{opts} {f}"));
        }
    }
    check("h5ls", "ls", &dir, &all, H5LS_FIXTURES_KNOWN);
}

/// Rows of the h5py fixtures where `h5 ls` is known to differ (not options: the data printer):
/// h5ls 1.10.8 has no LZF filter and prints "Unable to print data." where we decode the
/// chunks.
const H5LS_FIXTURES_KNOWN: &[&str] = &[
    "-rd filter_lzf.h5",
    "-rS -d filter_lzf.h5",
    "-rl -d -s filter_lzf.h5",
];

/// h5stat's options on the h5stat corpus.
const H5STAT_ROWS: &str = "h5stat_filters.h5
-f h5stat_filters.h5
-F h5stat_filters.h5
-g h5stat_filters.h5
-G h5stat_filters.h5
-d h5stat_filters.h5
-D h5stat_filters.h5
-T h5stat_filters.h5
-A h5stat_filters.h5
-s h5stat_filters.h5
-S h5stat_filters.h5
-l 3 h5stat_threshold.h5
-l3 -g h5stat_threshold.h5
-a 2 -A h5stat_threshold.h5
-m 5 -d h5stat_threshold.h5
-m -d h5stat_threshold.h5
-l 0 h5stat_threshold.h5
-l h5stat_threshold.h5
-l
-m
-fF h5stat_newgrat.h5
-gG h5stat_newgrat.h5
-dDT h5stat_idx.h5
-AsS h5stat_tsohm.h5
-E h5stat_tsohm.h5
-E3 h5stat_idx.h5
--enable-error-stack h5stat_tsohm.h5
-h
--help
--he
-V
--version
-Z h5stat_idx.h5
--bogus h5stat_idx.h5
--file h5stat_idx.h5
--fi h5stat_idx.h5
--filemetadata h5stat_idx.h5
--filem h5stat_idx.h5
--groupmetadata h5stat_idx.h5
--dsetmetadata h5stat_idx.h5
--dtypemetadata h5stat_idx.h5
--attribute h5stat_idx.h5
--freespace h5stat_idx.h5
--summary h5stat_idx.h5
--sum h5stat_idx.h5
--summary=1 h5stat_idx.h5
--links=3 h5stat_threshold.h5
--links 3 h5stat_threshold.h5
--links -5 h5stat_threshold.h5
--links -f h5stat_idx.h5
--links
--dims=3 h5stat_threshold.h5
--dims -d h5stat_idx.h5
--numattrs=3 h5stat_threshold.h5
--numattrs -A h5stat_idx.h5
-w 3 h5stat_idx.h5
-H 3 h5stat_idx.h5
--s3-cred=x h5stat_idx.h5
--hdfs-attrs=x h5stat_idx.h5
h5stat_idx.h5 -f
-f -- h5stat_idx.h5
-- h5stat_idx.h5
nosuch.h5

-fl 3 h5stat_idx.h5
-lf h5stat_idx.h5
-O / h5stat_idx.h5
--object=/ h5stat_idx.h5
-O /nosuch h5stat_idx.h5
-O / -S h5stat_idx.h5
-O/dset h5stat_idx.h5
-O /dset -O / h5stat_idx.h5
-O";

#[test]
fn h5stat_options_agree_with_h5stat() {
    let Some(dir) = folder(h5_oracle::corpus("h5stat"), "h5stat_idx.h5") else {
        return;
    };
    check("h5stat", "stat", &dir, &rows(H5STAT_ROWS), &[]);
}

#[test]
fn h5stat_options_agree_with_h5stat_on_h5py_fixtures() {
    let Some(dir) = folder(h5py_fixtures(), "datatypes.h5") else {
        return;
    };
    let mut all = Vec::new();
    for f in h5_files(&dir) {
        for opts in ["", "-S", "-fFgG", "-dDT", "-As", "-l 2 -m 2 -a 2"] {
            all.push(format!("{opts} {f}"));
        }
    }
    check("h5stat", "stat", &dir, &all, &[]);
}

/// h5diff's options on the h5diff corpus.
const H5DIFF_ROWS: &str = "h5diff_basic1.h5 h5diff_basic2.h5
-r h5diff_basic1.h5 h5diff_basic2.h5
-v h5diff_basic1.h5 h5diff_basic2.h5
-v1 h5diff_basic1.h5 h5diff_basic2.h5
-v2 h5diff_basic1.h5 h5diff_basic2.h5
--verbose=2 h5diff_basic1.h5 h5diff_basic2.h5
-q h5diff_basic1.h5 h5diff_basic2.h5
-c h5diff_basic1.h5 h5diff_basic2.h5
-v h5diff_basic1.h5 h5diff_basic2.h5 /g1/dset1 /g1/dset2
-d 5 h5diff_basic1.h5 h5diff_basic2.h5 /g1/dset3 /g1/dset4
-d5 h5diff_basic1.h5 h5diff_basic2.h5 /g1/dset3 /g1/dset4
--delta=5 h5diff_basic1.h5 h5diff_basic2.h5 /g1/dset3 /g1/dset4
-d x h5diff_basic1.h5 h5diff_basic2.h5
-p 0.05 h5diff_basic1.h5 h5diff_basic2.h5 /g1/dset3 /g1/dset4
--relative=0.05 h5diff_basic1.h5 h5diff_basic2.h5 /g1/dset3 /g1/dset4
-p x h5diff_basic1.h5 h5diff_basic2.h5
--use-system-epsilon h5diff_eps1.h5 h5diff_eps2.h5
--use-system-epsilon -v h5diff_eps1.h5 h5diff_eps2.h5
-d 1 --use-system-epsilon h5diff_eps1.h5 h5diff_eps2.h5
-n 2 h5diff_basic1.h5 h5diff_basic2.h5 /g1/dset3 /g1/dset4
--count=2 h5diff_basic1.h5 h5diff_basic2.h5 /g1/dset3 /g1/dset4
-n 0 h5diff_basic1.h5 h5diff_basic2.h5
-n x h5diff_basic1.h5 h5diff_basic2.h5
--exclude-path /group1/dset3 h5diff_exclude1-1.h5 h5diff_exclude1-2.h5
-v --exclude-path /group1 h5diff_exclude1-1.h5 h5diff_exclude1-2.h5
--exclude-path=/group1 h5diff_exclude1-1.h5 h5diff_exclude1-2.h5
--follow-symlinks h5diff_danglelinks1.h5 h5diff_danglelinks2.h5
--follow-symlinks -v h5diff_danglelinks1.h5 h5diff_danglelinks2.h5
--follow-symlinks --no-dangling-links h5diff_danglelinks1.h5 h5diff_danglelinks2.h5
--no-dangling-links h5diff_danglelinks1.h5 h5diff_danglelinks2.h5
--follow-symlinks -v h5diff_softlinks.h5 h5diff_softlinks.h5 /softlink_dset1_1 /target_dset2
-h
--help
-V
--version
-Z h5diff_basic1.h5 h5diff_basic2.h5
--bogus h5diff_basic1.h5 h5diff_basic2.h5
--verb h5diff_basic1.h5 h5diff_basic2.h5
h5diff_basic1.h5

-d
-q -v h5diff_basic1.h5 h5diff_basic2.h5
-r -q h5diff_basic1.h5 h5diff_basic2.h5
h5diff_basic1.h5 h5diff_basic2.h5 -v
h5diff_basic1.h5 nosuch.h5";

#[test]
fn h5diff_options_agree_with_h5diff() {
    let Some(dir) = folder(h5_oracle::corpus("h5diff"), "h5diff_basic1.h5") else {
        return;
    };
    check("h5diff", "diff", &dir, &rows(H5DIFF_ROWS), &[]);
}

#[test]
fn h5diff_options_agree_with_h5diff_on_h5py_fixtures() {
    let Some(dir) = folder(h5py_fixtures(), "datatypes.h5") else {
        return;
    };
    let files = h5_files(&dir);
    let mut all = Vec::new();
    for (f, g) in files.iter().zip(files.iter().skip(1)) {
        for opts in ["-r", "-c", "-q"] {
            all.push(format!("{opts} {f} {f}"));
            all.push(format!("{opts} {f} {g}"));
        }
    }
    check("h5diff", "diff", &dir, &all, &[]);
}

/// h5dump's option edge cases (the corpora hold the options' outputs).
const H5DUMP_ROWS: &str = "-H tall.h5
tall.h5 -H
-H -- tall.h5
--header tall.h5 -x
-- tall.h5
--
-H
-
-d
-q
-w
-:
-Hn tall.h5
-nH tall.h5
-n tall.h5
-n 1 tall.h5
-n1 tall.h5
--contents tall.h5
--contents=1 tall.h5
-d /g1/g1.1/dset1.1.1 tall.h5
-d/g1/g1.1/dset1.1.1 tall.h5
--dataset=/g1/g1.1/dset1.1.1 tall.h5
--dataset /g1/g1.1/dset1.1.1 tall.h5
--dataset=/g1 tall.h5
-d /g1/g1.1/dset1.1.1 -s 1,1 -c 2,2 tall.h5
-d /g1/g1.1/dset1.1.1 --start=1,1 --count=2,2 --stride=1,2 --block=1,1 tall.h5
-d /g1/g1.1/dset1.1.1 -d /g2/dset2.1 -H tall.h5
-d /g1/g1.1/dset1.1.1 -s 1 -d /g2/dset2.1 -c 2 tall.h5
-d /g1/g1.1/dset1.1.1 -c 2 tall.h5
-d /g1/g1.1/dset1.1.1 -s 1 -S 1 -k 1 -c 2 tall.h5
-d /g1/g1.1/dset1.1.1 -s 1,1,1 -c 2,2,2 tall.h5
-s 1 tall.h5
-d /g2/dset2.1 -M 0,1 tall.h5
-M 0,1 tall.h5
-A tall.h5
-A 0 tall.h5
--onlyattr tall.h5
--onlyattr=0 tall.h5
-a /attr1 tall.h5
--attribute=/attr1 tall.h5
-g /g2 tall.h5
--group=/g2 tall.h5
-pH tall.h5
-BH tall.h5
-eH tall.h5
-iH tall.h5
-w80 tall.h5
--width=80 tall.h5
--width 40 tall.h5
--wid=80 tall.h5
--width=0 -d /g2/dset2.1 tall.h5
-q name -z descending tall.h5
--sort_by=creation_order tall.h5
--sort_by=bogus tall.h5
--sort_order=bogus tall.h5
-m %.3f -d /g2/dset2.1 tall.h5
--format=%.3f -d /g2/dset2.1 tall.h5
-V
-Vh
--version
--version=1
-h
-Z tall.h5
-HZ tall.h5
--bogus tall.h5
--bogus=3 tall.h5
-H --bogus=3 tall.h5
--header=1 tall.h5
--hea tall.h5
--data=/g1 tall.h5
--datas=/g1 tall.h5
--conten tall.h5
-x tall.h5
--xml tall.h5
-u tall.h5
-X : -x tall.h5
-X : tall.h5
-b -d /g2/dset2.1 tall.h5
-E -H tall.h5
--enable-error-stack -H tall.h5
--enable-error-stack=0 -H tall.h5
-f sec2 -H tall.h5
--filedriver=bogus -H tall.h5
-H nosuch.h5
-H tall.h5 nosuch.h5";

#[test]
fn h5dump_option_edge_cases_agree_with_h5dump() {
    let Some(dir) = folder(h5_oracle::corpus("h5dump"), "tall.h5") else {
        return;
    };
    check("h5dump", "dump", &dir, &rows(H5DUMP_ROWS), &[]);
}

/// `-i` (`OBJECTID { N }`, the serial number of the identifier h5dump opened the object
/// with) on groups, datasets and attributes, hard links, comments, named and anonymous
/// committed datatypes, object and region references, external links, selected objects (`-g`,
/// `-d`, `-a`, `-N`), creation order and several files in one run.
const H5DUMP_OID_ROWS: &str = "-i tall.h5
-iH tall.h5
-i -H -A tall.h5
-i -A 0 tall.h5
-i -H -p tall.h5
-i tgroup.h5
-i tattr2.h5
-i -H tattr.h5
-i thlink.h5
-i -H tgrp_comments.h5
-i -H tcompound.h5
-i -H tnamed_dtype_attr.h5
-i tobjref.h5
-i tdatareg.h5
-i tattrreg.h5
-i -H tloop.h5
-i -H textlinksrc.h5
-i -H textlink.h5
-i -H tudlink.h5
-i -p -H tdset.h5
-i -H tcompound.h5 tall.h5 tgroup.h5
-i -g /g1 tall.h5
-i -H -g /g1/g1.2 -g /g2 tall.h5
-i -d /g2/dset2.1 -d /g1/g1.1/dset1.1.1 tall.h5
-i -H -d /g1/dset2 -d /dset1 thlink.h5
-i -a /g1/g1.1/dset1.1.1/attr2 -a /attr1 tall.h5
-i -x tall.h5
-i -H -N /g2 tall.h5
-i -N /g1/g1.1/dset1.1.1 -N attr1 tall.h5
-i -N /g3 thlink.h5
-i -H -N /ext_link1 textlinksrc.h5
-i -H -g /g1/g1.1 -d /g2/dset2.2 -a /g1/g1.1/dset1.1.1/attr1 tall.h5
-i -H --sort_by=creation_order tordergr.h5
-i -H -q creation_order -z descending torderattr.h5";

#[test]
fn h5dump_object_ids_agree_with_h5dump() {
    let Some(dir) = folder(h5_oracle::corpus("h5dump"), "tall.h5") else {
        return;
    };
    check("h5dump", "dump", &dir, &rows(H5DUMP_OID_ROWS), &[]);
}

/// The subcommands `h5 --help` lists.
fn subcommands() -> Vec<String> {
    let out = Command::new(h5()).arg("--help").output().expect("run h5");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut names = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line == "Commands:" {
            inside = true;
        } else if inside && line.starts_with("  ") {
            if let Some(name) = line.split_whitespace().next() {
                names.push(name.to_owned());
            }
        } else if inside {
            break;
        }
    }
    assert!(
        names.len() >= 10,
        "commands missing from h5 --help:\n{text}"
    );
    names
}

/// The options each subcommand's parser takes (read from each parser), every one of which its
/// `--help` must list (`--help` itself aside). h5diff's `--no-compact-subset` and h5stat's
/// `--object` are left out: `h5 diff --help` and `h5 stat --help` print the reference tools'
/// own usage, byte for byte (a corpus row checks it), which does not show them; `h5 help
/// COMMAND` lists them ([`HELP_ONLY`]).
const OPTIONS: &[(&str, &[&str])] = &[
    (
        "dump",
        &[
            "--attribute",
            "--binary",
            "--count",
            "--dataset",
            "--escape",
            "--filedriver",
            "--group",
            "--object-ids",
            "--block",
            "--soft-link",
            "--format",
            "--contents",
            "--output",
            "--properties",
            "--sort_by",
            "--string",
            "--start",
            "--datatype",
            "--use-dtd",
            "--vds-view-first-missing",
            "--width",
            "--xml",
            "--noindex",
            "--sort_order",
            "--onlyattr",
            "--superblock",
            "--boot-block",
            "--no-compact-subset",
            "--xml-dtd",
            "--enable-error-stack",
            "--form",
            "--vds-gap-size",
            "--header",
            "--packed-bits",
            "--any_path",
            "--ddl",
            "--region",
            "--stride",
            "--version",
            "--xml-ns",
            "--s3-cred",
            "--hdfs-attrs",
            "--vfd-value",
            "--vfd-name",
            "--vfd-info",
            "--compat",
        ],
    ),
    (
        "ls",
        &[
            "--address",
            "--data",
            "--enable-error-stack",
            "--follow-symlinks",
            "--no-dangling-links",
            "--external",
            "--full",
            "--group",
            "--label",
            "--recursive",
            "--simple",
            "--string",
            "--verbose",
            "--version",
            "--hexdump",
            "--width",
            "--vfd",
            "--s3-cred",
            "--hdfs-attrs",
        ],
    ),
    (
        "diff",
        &[
            "--compare",
            "--delta",
            "--use-system-epsilon",
            "--follow-symlinks",
            "--count",
            "--relative",
            "--quiet",
            "--report",
            "--verbose",
            "--no-dangling-links",
            "--exclude-attribute",
            "--exclude-path",
            "--nan",
            "--enable-error-stack",
            "--version",
        ],
    ),
    (
        "stat",
        &[
            "--filemetadata",
            "--groupmetadata",
            "--links",
            "--dsetmetadata",
            "--dims",
            "--dtypemetadata",
            "--version",
            "--attribute",
            "--enable-error-stack",
            "--numattrs",
            "--freespace",
            "--summary",
            "--s3-cred",
            "--hdfs-attrs",
        ],
    ),
    (
        "repack",
        &[
            "--latest",
            "-L",
            "-S",
            "--fs_strategy",
            "-G",
            "--fs_pagesize",
            "-l",
            "--layout",
            "-f",
            "--filter",
        ],
    ),
    ("check", &["-v", "--verbose"]),
    (
        "watch",
        &[
            "--interval",
            "--polling",
            "-p",
            "--dim",
            "--width",
            "-w",
            "--sizes",
            "-d",
            "--simple",
            "-S",
        ],
    ),
    (
        "clear",
        &["-s", "--status", "-m", "--increment", "-v", "--verbose"],
    ),
    ("refs", &["-o", "--output", "--url", "--inline-threshold"]),
    ("dtype", &["--pack", "--native", "--lossless", "--size"]),
    (
        "serve",
        &["--port", "-p", "--bind", "--token", "--max-bytes"],
    ),
    ("convert", &[]),
];

/// Whether `option` appears in `help` as a word of its own.
fn lists(help: &str, option: &str) -> bool {
    help.match_indices(option).any(|(i, _)| {
        let before = help[..i].chars().next_back();
        let after = help[i + option.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
    })
}

#[test]
fn every_help_lists_every_option() {
    let mut missing = Vec::new();
    for name in subcommands() {
        let out = Command::new(h5())
            .args([name.as_str(), "--help"])
            .output()
            .expect("run h5");
        assert_eq!(
            out.status.code(),
            Some(0),
            "h5 {name} --help: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let help = String::from_utf8_lossy(&out.stdout);
        let Some((_, options)) = OPTIONS.iter().find(|(n, _)| *n == name) else {
            panic!("no option list for h5 {name} in this test");
        };
        for option in *options {
            if !lists(&help, option) {
                missing.push(format!("h5 {name} --help does not list {option}"));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// The options `h5 help COMMAND` lists beside what `h5 COMMAND --help` prints: those the
/// reference usage `--help` reproduces leaves out, long and short. (`h5 dump --help` adds its
/// own section to h5dump's usage: [`DUMP_SHORT`].)
const HELP_ONLY: &[(&str, &[&str])] = &[
    ("diff", &["--no-compact-subset", "-C", "-S", "-E", "-A"]),
    ("stat", &["--object", "-O", "-E", "-w", "-H"]),
];

/// The short options of `h5 dump` that h5dump's usage shows only by their long names.
const DUMP_SHORT: &[&str] = &["-v", "-G", "-E", "-C", "-M", "-F"];

#[test]
fn dump_help_lists_every_short_option() {
    let out = Command::new(h5())
        .args(["dump", "--help"])
        .output()
        .expect("run h5");
    let help = String::from_utf8_lossy(&out.stdout);
    let missing: Vec<&&str> = DUMP_SHORT.iter().filter(|o| !lists(&help, o)).collect();
    assert!(
        missing.is_empty(),
        "h5 dump --help does not list {missing:?}"
    );
}

#[test]
fn help_command_adds_what_help_leaves_out() {
    let mut missing = Vec::new();
    for name in subcommands() {
        let run = |args: &[&str]| {
            let out = Command::new(h5()).args(args).output().expect("run h5");
            assert_eq!(out.status.code(), Some(0), "h5 {}", args.join(" "));
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let help = run(&[name.as_str(), "--help"]);
        let full = run(&["help", name.as_str()]);
        assert!(
            full.starts_with(&help),
            "h5 help {name} does not begin with h5 {name} --help"
        );
        let extra = HELP_ONLY.iter().find(|(n, _)| *n == name);
        if extra.is_none() {
            assert_eq!(full, help, "h5 help {name} adds to h5 {name} --help");
        }
        let listed: Vec<&str> = OPTIONS
            .iter()
            .chain(extra)
            .filter(|(n, _)| *n == name)
            .flat_map(|(_, o)| o.iter().copied())
            .collect();
        for option in listed {
            if !lists(&full, option) {
                missing.push(format!("h5 help {name} does not list {option}"));
            }
        }
        if let Some((_, options)) = extra {
            for option in *options {
                if lists(&help, option) && option.starts_with("--") {
                    missing.push(format!(
                        "h5 {name} --help lists {option}: is HELP_ONLY out of date?"
                    ));
                }
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn an_unknown_option_is_an_error_for_every_subcommand() {
    let dir = h5py_fixtures();
    let file = dir.join("datatypes.h5");
    let file = file.to_string_lossy();
    let mut ignored = Vec::new();
    for name in subcommands() {
        for bogus in ["--no-such-option", "-\u{e9}"] {
            // The unknown option first, then arguments that would otherwise be valid.
            let args: Vec<&str> = match name.as_str() {
                "diff" => vec![bogus, &file, &file],
                "repack" => vec![bogus, &file, "/nonexistent/out.h5"],
                "dtype" => vec![bogus, "H5T_STD_I32LE"],
                "convert" => vec![bogus, "H5T_STD_I32LE", "H5T_STD_I64LE", "0"],
                "watch" => vec![bogus, "datatypes.h5/nosuch"],
                _ => vec![bogus, &file],
            };
            let out = Command::new(h5())
                .arg(&name)
                .args(&args)
                .current_dir(&dir)
                .stdin(std::process::Stdio::null())
                .output()
                .expect("run h5");
            let stderr = String::from_utf8_lossy(&out.stderr);
            // The compatibility subcommands say what their reference tool says (the tests
            // above compare them); the others name the option.
            let compat = matches!(name.as_str(), "dump" | "ls" | "diff" | "stat");
            let named = stderr.contains(bogus.trim_start_matches('-'));
            if out.status.success() || !(compat || named) {
                ignored.push(format!(
                    "h5 {name} {}: status {:?}, stderr {:?}",
                    args.join(" "),
                    out.status.code(),
                    stderr.lines().next().unwrap_or("")
                ));
            }
        }
    }
    assert!(ignored.is_empty(), "{}", ignored.join("\n"));
}
