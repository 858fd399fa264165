//! The `h5` command.
//!
//! The subcommand is chosen with clap (`h5 --help` lists them, `h5 help COMMAND` or
//! `h5 COMMAND --help` shows one). Each subcommand parses its own arguments: `dump`, `ls`,
//! `diff` and `stat` follow the reference tools' own command-line rules byte for byte (getopt
//! forms such as `-w80`, `-v2`, `--delta=5`, clustered flags and their exact error texts), which
//! a general parser does not reproduce; every subcommand rejects an unknown option.
//!
//! Adding a subcommand: a module with `run(&[String]) -> i32`, one [`COMMANDS`] entry.

mod check;
mod clear;
mod convert;
mod diff;
mod dtype;
#[allow(dead_code)] // the model's constructors are used by the file adapter and by tests
mod dump;
mod getopt;
mod input;
mod ls;
mod progress;
mod refs;
mod repack;
#[cfg(feature = "serve")]
mod serve;
mod stat;
mod watch;

/// A subcommand: its name, usage line, one-line description and entry point.
struct Subcommand {
    name: &'static str,
    usage: &'static str,
    about: &'static str,
    run: fn(&[String]) -> i32,
    /// What `h5 help COMMAND` prints after `h5 COMMAND --help`: the options the command
    /// takes that its `--help` does not show (diff and stat print the reference tools' usage
    /// byte for byte there, which leaves some out).
    more_help: &'static str,
}

/// Every subcommand, in the order `h5 --help` lists them.
const COMMANDS: &[Subcommand] = &[
    Subcommand {
        name: "dump",
        usage: "h5 dump [OPTIONS] FILE...",
        about: "print files as h5dump 1.10.8 does (its options; --compat=2.0 for HDF5 2.x)",
        run: dump::run,
        more_help: "",
    },
    Subcommand {
        name: "ls",
        usage: "h5 ls [OPTIONS] FILE[/OBJECT]...",
        about: "list objects as h5ls 1.10.8 does (-r -v -d -a -g -l -S -s -w -x -f -E ...)",
        run: ls::run,
        more_help: "",
    },
    Subcommand {
        name: "diff",
        usage: "h5 diff [OPTIONS] FILE1 FILE2 [OBJ1 [OBJ2]]",
        about: "compare files or objects as h5diff 1.10.8 does (exit 0 same, 1 different, 2 error)",
        run: diff::run,
        more_help: diff::USAGE_OURS,
    },
    Subcommand {
        name: "stat",
        usage: "h5 stat [OPTIONS] FILE",
        about: "print file statistics as h5stat 1.10.8 does (-f -F -g -G -d -D -T -A -s -S ...)",
        run: stat::run,
        more_help: stat::USAGE_OURS,
    },
    Subcommand {
        name: "repack",
        usage:
            "h5 repack [--latest] [-S STRATEGY] [-G PAGESIZE] [-l LAYOUT]... [-f FILTER]... IN OUT",
        about: "copy a file anew with our writer (h5repack's -l/-f options)",
        run: repack::main,
        more_help: "",
    },
    Subcommand {
        name: "check",
        usage: "h5 check [-v] FILE",
        about: "check every structure of a file; exit 0 if sound, 1 if not",
        run: check::run,
        more_help: "",
    },
    Subcommand {
        name: "watch",
        usage: "h5 watch [--interval S] [--dim N] [--sizes] [--width W] [--simple] FILE/DATASET",
        about: "print what a SWMR writer appends to a dataset, as h5watch does",
        run: watch::run,
        more_help: "",
    },
    Subcommand {
        name: "clear",
        usage: "h5 clear [-s] [--increment[=C]] [-v] FILE...",
        about: "reset the status flags of files a writer left marked open (h5clear -s)",
        run: clear::run,
        more_help: "",
    },
    Subcommand {
        name: "refs",
        usage: "h5 refs [-o OUT.json] [--url URL] [--inline-threshold BYTES] FILE [OBJECT...]",
        about: "write kerchunk references (JSON) to the file's chunks, for fsspec, zarr and xarray",
        run: refs::run,
        more_help: "",
    },
    Subcommand {
        name: "dtype",
        usage: "h5 dtype [--pack] [--native] [--lossless] [--size] TEXT|-",
        about: "print the canonical DDL text of a datatype, or its size",
        run: dtype::run,
        more_help: "",
    },
    #[cfg(feature = "serve")]
    Subcommand {
        name: "serve",
        usage: "h5 serve [--port P] [--bind ADDR] [--token T] [--max-bytes N] PATH|URL...",
        about: "serve files to the browser: h5web and the h5grove API (127.0.0.1:8888)",
        run: serve::run,
        more_help: "",
    },
    Subcommand {
        name: "convert",
        usage: "h5 convert SRC DST N",
        about: "convert N raw elements from stdin (types as DDL text) to stdout",
        run: convert::main,
        more_help: "",
    },
];

/// The clap description of the command line: the subcommands, each taking its arguments
/// verbatim for its own parser.
fn cli() -> clap::Command {
    let mut cmd = clap::Command::new("h5")
        .about("HDF5 files without libhdf5: dump, list, compare, measure, repack and check them")
        .version(env!("CARGO_PKG_VERSION"))
        .subcommand_required(true)
        .arg_required_else_help(true)
        .disable_help_subcommand(true)
        .after_help(
            "`h5 help COMMAND` lists every option of a command, `h5 COMMAND --help` too except for \
             diff and stat, where it prints the reference tool's usage byte for byte (as `-h` \
             does for dump, ls, diff and stat).\n\
             FILE may be a URL (s3://, gs://, az://, http(s)://, file://) for dump, ls, check, \
             repack and refs; --stats prints the requests, bytes and cache hits of reading it to stderr.",
        );
    for c in COMMANDS {
        cmd = cmd.subcommand(
            clap::Command::new(c.name)
                .about(c.about)
                .override_usage(c.usage)
                .disable_help_flag(true)
                .arg(
                    clap::Arg::new("args")
                        .num_args(0..)
                        .trailing_var_arg(true)
                        .allow_hyphen_values(true)
                        .value_parser(clap::value_parser!(String)),
                ),
        );
    }
    cmd
}

fn main() {
    // `h5 help COMMAND` is `h5 COMMAND --help` and the options that leaves out: the
    // command's complete option list.
    let mut raw: Vec<String> = std::env::args().skip(1).collect();
    // `--stats` (anywhere): the requests, bytes and cache hits of reading the input, to
    // standard error at the end.
    input::take_stats_flag(&mut raw);
    if raw == ["help"] {
        let _ = cli().print_long_help();
        std::process::exit(0);
    }
    if let [help, name] = raw.as_slice() {
        if help == "help" {
            if let Some(c) = COMMANDS.iter().find(|c| c.name == name) {
                let status = (c.run)(&["--help".to_string()]);
                print!("{}", c.more_help);
                let _ = std::io::Write::flush(&mut std::io::stdout());
                std::process::exit(status);
            }
        }
    }
    let matches =
        match cli().try_get_matches_from(std::iter::once("h5".to_owned()).chain(raw.clone())) {
            Ok(m) => m,
            Err(e) => {
                // Help and version go to standard output with status 0, errors to standard error
                // with status 2.
                let _ = e.print();
                std::process::exit(if e.use_stderr() { 2 } else { 0 });
            }
        };
    let Some((name, sub)) = matches.subcommand() else {
        std::process::exit(2);
    };
    // The words after the command name as given: clap would drop a `--` among them, which
    // the reference tools' scanners read themselves.
    let args: Vec<String> = match raw.iter().position(|w| w == name) {
        Some(at) => raw[at + 1..].to_vec(),
        None => sub
            .get_many::<String>("args")
            .map(|v| v.cloned().collect())
            .unwrap_or_default(),
    };
    let status = COMMANDS
        .iter()
        .find(|c| c.name == name)
        .map_or(2, |c| (c.run)(&args));
    input::print_stats();
    std::process::exit(status);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_is_listed_and_dispatched() {
        cli().debug_assert();
        let help = cli().render_long_help().to_string();
        for c in COMMANDS {
            assert!(help.contains(c.name), "{} missing from --help", c.name);
        }
        let m = cli()
            .try_get_matches_from(["h5", "ls", "-r", "--bogus", "f.h5"])
            .unwrap();
        let (name, sub) = m.subcommand().unwrap();
        let args: Vec<&String> = sub.get_many::<String>("args").unwrap().collect();
        assert_eq!((name, args.len()), ("ls", 3));
        assert!(cli().try_get_matches_from(["h5", "nosuch"]).is_err());
    }
}
