//! The `h5` command.
//!
//! The subcommand is chosen with clap (`h5 --help` lists them, `h5 help COMMAND` or
//! `h5 COMMAND --help` shows one). `dump`, `ls`, `diff` and `stat` follow the reference
//! tools' own command-line rules byte for byte (getopt forms such as `-w80`, `-v2`,
//! `--delta=5`, clustered flags and their exact error texts, `getopt.rs`), which a general
//! parser does not reproduce: clap hands them the words after the command name verbatim. Every
//! other subcommand is a clap definition (a `clap::Parser` struct in its module), registered
//! here as it is, so its `--help`, its usage errors and `h5 --help` come from that one
//! definition. Every subcommand rejects an unknown option.
//!
//! Adding a subcommand: a module with a `clap::Parser` struct implementing [`Run`], one
//! [`COMMANDS`] entry made with [`parsed`].

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

/// A subcommand parsed by clap: its arguments, and what it does with them.
trait Run: clap::Parser {
    /// Run the subcommand; returns the exit status.
    fn run(self) -> i32;
}

/// A subcommand: its name and how it reads its arguments.
struct Subcommand {
    name: &'static str,
    parse: Parse,
}

/// How a subcommand reads its arguments.
enum Parse {
    /// The reference tool's getopt rules: the words after the command name, verbatim, to
    /// `run` (which prints the tool's own `--help`).
    Compat {
        usage: &'static str,
        about: &'static str,
        run: fn(&[String]) -> i32,
        /// What `h5 help COMMAND` prints after `h5 COMMAND --help`: the options the command
        /// takes that its `--help` does not show (diff and stat print the reference tools'
        /// usage byte for byte there, which leaves some out).
        more_help: &'static str,
    },
    /// A clap definition (`command`), and `run` on what it matched.
    Clap {
        command: fn() -> clap::Command,
        run: fn(&clap::ArgMatches) -> i32,
    },
}

/// The [`COMMANDS`] entry of a subcommand parsed by clap.
const fn parsed<T: Run>(name: &'static str) -> Subcommand {
    Subcommand {
        name,
        parse: Parse::Clap {
            command: <T as clap::CommandFactory>::command,
            run: run_parsed::<T>,
        },
    }
}

/// Run `T` on the matches of its own definition.
fn run_parsed<T: Run>(matches: &clap::ArgMatches) -> i32 {
    match <T as clap::FromArgMatches>::from_arg_matches(matches) {
        Ok(args) => args.run(),
        Err(e) => {
            let _ = e.print();
            2
        }
    }
}

/// Every subcommand, in the order `h5 --help` lists them.
const COMMANDS: &[Subcommand] = &[
    Subcommand {
        name: "dump",
        parse: Parse::Compat {
            usage: "h5 dump [OPTIONS] FILE...",
            about: "Print files as h5dump 1.10.8 does (its options; --compat=2.0 for HDF5 2.x)",
            run: dump::run,
            more_help: "",
        },
    },
    Subcommand {
        name: "ls",
        parse: Parse::Compat {
            usage: "h5 ls [OPTIONS] FILE[/OBJECT]...",
            about: "List objects as h5ls 1.10.8 does (-r -v -d -a -g -l -S -s -w -x -f -E ...)",
            run: ls::run,
            more_help: "",
        },
    },
    Subcommand {
        name: "diff",
        parse: Parse::Compat {
            usage: "h5 diff [OPTIONS] FILE1 FILE2 [OBJ1 [OBJ2]]",
            about:
                "Compare files or objects as h5diff 1.10.8 does (exit 0 same, 1 different, 2 error)",
            run: diff::run,
            more_help: diff::USAGE_OURS,
        },
    },
    Subcommand {
        name: "stat",
        parse: Parse::Compat {
            usage: "h5 stat [OPTIONS] FILE",
            about:
                "Print file statistics as h5stat 1.10.8 does (-f -F -g -G -d -D -T -A -s -S ...)",
            run: stat::run,
            more_help: stat::USAGE_OURS,
        },
    },
    parsed::<repack::Options>("repack"),
    parsed::<check::Args>("check"),
    parsed::<watch::Options>("watch"),
    parsed::<clear::Args>("clear"),
    parsed::<refs::Args>("refs"),
    parsed::<dtype::Args>("dtype"),
    #[cfg(feature = "serve")]
    parsed::<serve::Args>("serve"),
    parsed::<convert::Args>("convert"),
];

/// The clap description of the command line: every subcommand, the compatibility ones
/// taking their arguments verbatim for their own parsers.
fn cli() -> clap::Command {
    let mut cmd = clap::Command::new("h5")
        .about("HDF5 files without libhdf5: dump, list, compare, measure, repack and check them")
        .version(env!("CARGO_PKG_VERSION"))
        .subcommand_required(true)
        .arg_required_else_help(true)
        .disable_help_subcommand(true)
        // Taken out of the words before clap sees them (`input::take_stats_flag`, so the
        // compatibility commands never see it either); declared for the help texts.
        .arg(
            clap::Arg::new("stats")
                .long("stats")
                .global(true)
                .action(clap::ArgAction::SetTrue)
                .display_order(1000)
                .help("Print the requests, bytes and cache hits of reading the input to stderr"),
        )
        .after_help(
            "`h5 help COMMAND` lists every option of a command, `h5 COMMAND --help` too except for \
             diff and stat, where it prints the reference tool's usage byte for byte (as `-h` \
             does for dump, ls, diff and stat).\n\
             FILE may be a URL (s3://, gs://, az://, http(s)://, file://) for dump, ls, check, \
             repack and refs.",
        );
    for c in COMMANDS {
        cmd = cmd.subcommand(match &c.parse {
            Parse::Compat { usage, about, .. } => clap::Command::new(c.name)
                .about(*about)
                .override_usage(*usage)
                .disable_help_flag(true)
                .arg(
                    clap::Arg::new("args")
                        .num_args(0..)
                        .trailing_var_arg(true)
                        .allow_hyphen_values(true)
                        .value_parser(clap::value_parser!(String)),
                ),
            Parse::Clap { command, .. } => command(),
        });
    }
    cmd
}

/// A usage error found once the arguments parsed (values that contradict each other),
/// reported as clap reports its own, with the subcommand's usage; returns the status, 2.
#[cfg_attr(not(feature = "serve"), allow(dead_code))]
fn usage_error(
    command: &str,
    kind: clap::error::ErrorKind,
    message: impl std::fmt::Display,
) -> i32 {
    let mut cli = cli();
    cli.build();
    let e = match cli.find_subcommand_mut(command) {
        Some(sub) => sub.error(kind, message),
        None => cli.error(kind, message),
    };
    let _ = e.print();
    2
}

fn main() {
    let mut raw: Vec<String> = std::env::args().skip(1).collect();
    // `--stats` (anywhere): the requests, bytes and cache hits of reading the input, to
    // standard error at the end.
    input::take_stats_flag(&mut raw);
    if raw == ["help"] {
        let _ = cli().print_long_help();
        std::process::exit(0);
    }
    // `h5 help COMMAND` is `h5 COMMAND --help` and, for the compatibility commands, the
    // options that leaves out: the command's complete option list.
    if let [help, name] = raw.as_slice() {
        if help == "help" {
            match COMMANDS.iter().find(|c| c.name == name).map(|c| &c.parse) {
                Some(Parse::Compat { run, more_help, .. }) => {
                    let status = run(&["--help".to_owned()]);
                    print!("{more_help}");
                    let _ = std::io::Write::flush(&mut std::io::stdout());
                    std::process::exit(status);
                }
                Some(Parse::Clap { .. }) => raw = vec![name.clone(), "--help".to_owned()],
                None => {}
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
    let status = match COMMANDS.iter().find(|c| c.name == name).map(|c| &c.parse) {
        Some(Parse::Compat { run, .. }) => {
            // The words after the command name as given: clap would drop a `--` among them,
            // which the reference tools' scanners read themselves.
            let args: Vec<String> = match raw.iter().position(|w| w == name) {
                Some(at) => raw[at + 1..].to_vec(),
                None => sub
                    .get_many::<String>("args")
                    .map(|v| v.cloned().collect())
                    .unwrap_or_default(),
            };
            run(&args)
        }
        Some(Parse::Clap { run, .. }) => run(sub),
        None => 2,
    };
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

    /// Each clap subcommand is registered as its module defines it, under its name; every
    /// argument has a description and every name of it is in `--help` (no hidden alias); an
    /// unknown option is clap's error naming it.
    #[test]
    fn parsed_commands_list_every_option() {
        let mut all = cli();
        all.build();
        for c in COMMANDS {
            let Parse::Clap { command, .. } = &c.parse else {
                continue;
            };
            assert_eq!(command().get_name(), c.name);
            let sub = all.find_subcommand_mut(c.name).unwrap();
            let help = sub.render_long_help().to_string();
            assert!(help.contains(&format!("Usage: h5 {}", c.name)), "{help}");
            for arg in command().get_arguments() {
                let id = arg.get_id();
                assert!(!arg.is_hide_set(), "{}: {id} hidden", c.name);
                let about = arg.get_help().map(ToString::to_string).unwrap_or_default();
                assert!(!about.is_empty(), "{}: {id} has no description", c.name);
                assert!(
                    help.contains(&about),
                    "{}: {id}: {about:?} not shown",
                    c.name
                );
                let mut names: Vec<String> = Vec::new();
                names.extend(
                    arg.get_short_and_visible_aliases()
                        .into_iter()
                        .flatten()
                        .map(|s| format!("-{s}")),
                );
                names.extend(
                    arg.get_long_and_visible_aliases()
                        .into_iter()
                        .flatten()
                        .map(|l| format!("--{l}")),
                );
                if arg.is_positional() {
                    for v in arg.get_value_names().into_iter().flatten() {
                        let required = arg.is_required_set();
                        names.push(if required {
                            format!("<{v}>")
                        } else {
                            format!("[{v}]")
                        });
                    }
                }
                assert!(!names.is_empty(), "{}: {id} has no name", c.name);
                for n in &names {
                    assert!(
                        help.contains(n.as_str()),
                        "{}: {n} not in --help:\n{help}",
                        c.name
                    );
                }
                let visible = arg.get_visible_aliases().map_or(0, |v| v.len())
                    + arg.get_visible_short_aliases().map_or(0, |v| v.len());
                let all_aliases = arg.get_all_aliases().map_or(0, |v| v.len())
                    + arg.get_all_short_aliases().map_or(0, |v| v.len());
                assert_eq!(visible, all_aliases, "{}: {id} has a hidden alias", c.name);
            }
            let e = cli()
                .try_get_matches_from(["h5", c.name, "--no-such-option"])
                .unwrap_err();
            assert_eq!(
                e.kind(),
                clap::error::ErrorKind::UnknownArgument,
                "{}",
                c.name
            );
            assert!(
                e.to_string().contains("'--no-such-option'"),
                "{}: {e}",
                c.name
            );
        }
    }
}
