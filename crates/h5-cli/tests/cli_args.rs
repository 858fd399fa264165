//! The subcommands whose arguments clap parses (all but the compatibility commands `dump`,
//! `ls`, `diff` and `stat`): `h5 COMMAND --help` and `h5 help COMMAND` print the same complete
//! help, listing every option with its description; every form of every option is accepted
//! (a form placed before `--help` parses, so the help comes out); a bad value and an unknown
//! option exit 2 with clap's error naming them.

use std::process::{Command, Output};

fn h5(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_h5"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run h5")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A subcommand: the options its help lists (with the description's first words), the forms
/// of them it accepts, and values it refuses with the option clap names.
struct Case {
    name: &'static str,
    options: &'static [(&'static str, &'static str)],
    accepted: &'static [&'static [&'static str]],
    refused: &'static [(&'static [&'static str], &'static str)],
}

const CASES: &[Case] = &[
    Case {
        name: "check",
        options: &[("-v, --verbose", "Also print where the superblock is")],
        accepted: &[&["-v"], &["--verbose"]],
        refused: &[(&["--verbose=1"], "--verbose")],
    },
    Case {
        name: "clear",
        options: &[
            ("-s, --status", "Reset the superblock's status flags"),
            ("-m, --increment[=<C>]", "Also set the end of file address"),
            ("-v, --verbose", "Say what was cleared"),
        ],
        accepted: &[
            &["-s"],
            &["--status"],
            &["-m"],
            &["--increment"],
            &["--increment=4096"],
            &["-m=0"],
            &["-v", "-s", "--increment"],
            &["--verbose"],
        ],
        refused: &[(&["--increment=lots"], "--increment")],
    },
    Case {
        name: "convert",
        options: &[],
        accepted: &[&[]],
        refused: &[
            (&["H5T_STD_I32LE", "H5T_STD_I64LE", "many"], "<N>"),
            (&["H5T_NO_SUCH_TYPE"], "<SRC>"),
        ],
    },
    Case {
        name: "dtype",
        options: &[
            ("--pack", "Remove padding from compounds"),
            ("--native", "Map the type to this machine's memory type"),
            ("--lossless", "Print the form that always parses back"),
            ("--size", "Print the size in bytes"),
        ],
        accepted: &[&["--pack", "--native", "--lossless", "--size"]],
        refused: &[(&["--size=2"], "--size")],
    },
    Case {
        name: "refs",
        options: &[
            ("-o, --output <OUT.json>", "Write the references there"),
            ("--url <URL>", "The file's URL written in every reference"),
            (
                "--inline-threshold <BYTES>",
                "Inline chunks smaller than this",
            ),
        ],
        accepted: &[
            &["-o", "x.json"],
            &["-ox.json"],
            &["--output", "x.json"],
            &["--output=x.json"],
            &["--url", "s3://b/k.h5"],
            &["--url=s3://b/k.h5"],
            &["--inline-threshold", "0"],
            &["--inline-threshold=1000"],
        ],
        refused: &[(&["--inline-threshold", "lots"], "--inline-threshold")],
    },
    Case {
        name: "repack",
        options: &[
            ("-L, --latest", "Write with the latest file format"),
            ("-l, --layout <LAYOUT>", "The layout of these datasets"),
            ("-f, --filter <FILTER>", "The filters of these datasets"),
            (
                "-S, --fs_strategy <STRATEGY>",
                "File space strategy of the output",
            ),
            (
                "-G, --fs_pagesize <PAGESIZE>",
                "File space page size of the output",
            ),
        ],
        accepted: &[
            &["--latest"],
            &["-L"],
            &["-l", "d1,g/d2:CHUNK=10x20"],
            &["-lCONTI"],
            &["--layout=COMPA"],
            &["--layout", "CHUNK=4"],
            &[
                "-f",
                "GZIP=6",
                "-f",
                "d:SHUF",
                "-f",
                "SZIP=8,NN",
                "-f",
                "NONE",
            ],
            &["-fSOFF=3,DS"],
            &["--filter=FLET"],
            &["--filter", "UD=32015,0,1,5"],
            &["-S", "PAGE"],
            &["-SAGGR"],
            &["--fs_strategy=FSM_AGGR"],
            &["--fs_strategy", "NONE"],
            &["-G", "8192"],
            &["--fs_pagesize=512"],
        ],
        refused: &[
            (&["-l", "CHUNK=0x3"], "--layout"),
            (&["-f", "GZIP=12"], "--filter"),
            (&["-S", "PAGED"], "--fs_strategy"),
            (&["-G", "100"], "--fs_pagesize"),
            (&["-G", "x"], "--fs_pagesize"),
        ],
    },
    #[cfg(feature = "serve")]
    Case {
        name: "serve",
        options: &[
            ("-p, --port <P>", "Port"),
            ("--bind <ADDR>", "Address to listen on"),
            ("--token <T>", "Every request must carry T"),
            ("--max-bytes <N>", "Largest selection read for one request"),
        ],
        accepted: &[
            &["-p", "9000"],
            &["--port=0"],
            &["--bind", "0.0.0.0", "--token", "s"],
            &["--bind=::1"],
            &["--token=t"],
            &["--max-bytes", "1024"],
            &["--max-bytes=1"],
        ],
        refused: &[
            (&["--port", "70000"], "--port"),
            (&["--bind", "localhost"], "--bind"),
            (&["--max-bytes", "-1"], "'-1'"),
        ],
    },
    Case {
        name: "watch",
        options: &[
            ("-p, --interval <S>", "Seconds between polls"),
            ("[alias: --polling]", "Seconds between polls"),
            ("--dim <N>", "Watch dimension N only"),
            ("-d, --sizes", "Print dimension changes only"),
            ("-w, --width <W>", "The display width"),
            ("-S, --simple", "Values separated by spaces"),
        ],
        accepted: &[
            &["--interval", "0.01"],
            &["--interval=2"],
            &["--polling", "0.5"],
            &["-p", "1"],
            &["--dim", "1"],
            &["--dim=0"],
            &["-d"],
            &["--sizes"],
            &["-w", "40"],
            &["--width=0"],
            &["-S"],
            &["--simple"],
        ],
        refused: &[
            (&["--interval", "0"], "--interval"),
            (&["--interval", "soon"], "--interval"),
            (&["--dim", "x"], "--dim"),
            (&["--width", "wide"], "--width"),
        ],
    },
];

#[test]
fn help_lists_every_option_and_help_command_prints_the_same() {
    for c in CASES {
        let out = h5(&[c.name, "--help"]);
        assert_eq!(out.status.code(), Some(0), "h5 {} --help", c.name);
        let help = text(&out.stdout);
        assert!(
            help.contains(&format!("Usage: h5 {}", c.name)),
            "h5 {} --help:\n{help}",
            c.name
        );
        for (option, says) in c.options {
            // The option, and in its entry (entries are apart by an empty line) its
            // description.
            let entry = help
                .split("\n\n")
                .find(|e| e.contains(option))
                .unwrap_or_else(|| panic!("h5 {} --help does not list {option}:\n{help}", c.name));
            assert!(
                entry.contains(says),
                "h5 {} --help: {option} is not described as {says:?}:\n{help}",
                c.name
            );
        }
        // The global `--stats` is listed too, and `-h, --help`.
        assert!(help.contains("--stats"), "h5 {}:\n{help}", c.name);
        assert!(help.contains("-h, --help"), "h5 {}:\n{help}", c.name);
        let same = h5(&["help", c.name]);
        assert_eq!(same.status.code(), Some(0), "h5 help {}", c.name);
        assert_eq!(text(&same.stdout), help, "h5 help {}", c.name);
    }
}

#[test]
fn every_form_of_every_option_parses() {
    for c in CASES {
        for form in c.accepted {
            let mut args = vec![c.name];
            args.extend_from_slice(form);
            args.push("--help");
            let out = h5(&args);
            assert_eq!(
                out.status.code(),
                Some(0),
                "h5 {}: {}",
                args.join(" "),
                text(&out.stderr)
            );
            assert!(
                text(&out.stdout).contains("Usage:"),
                "h5 {}",
                args.join(" ")
            );
        }
    }
}

#[test]
fn bad_values_and_unknown_options_exit_2_naming_them() {
    for c in CASES {
        let mut refused: Vec<(Vec<&str>, &str)> = c
            .refused
            .iter()
            .map(|(form, names)| (form.to_vec(), *names))
            .collect();
        let unknown = [["--no-such-option"], ["-\u{e9}"]];
        refused.extend(unknown.iter().map(|u| (u.to_vec(), u[0])));
        for (form, names) in refused {
            let mut args = vec![c.name];
            args.extend_from_slice(&form);
            let out = h5(&args);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "h5 {}: {err}", args.join(" "));
            assert!(
                err.starts_with("error: ") && err.contains(names),
                "h5 {}: {err}",
                args.join(" ")
            );
            if unknown.iter().any(|u| form == u) {
                assert!(
                    err.contains(&format!("unexpected argument '{}'", form[0]))
                        && err.contains(&format!("Usage: h5 {}", c.name)),
                    "h5 {}: {err}",
                    args.join(" ")
                );
            }
            assert!(out.stdout.is_empty(), "h5 {}", args.join(" "));
        }
        // A missing argument: clap's error too.
        let out = h5(&[c.name]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "h5 {}: {err}", c.name);
        assert!(
            err.contains("the following required arguments were not provided"),
            "h5 {}: {err}",
            c.name
        );
    }
}
