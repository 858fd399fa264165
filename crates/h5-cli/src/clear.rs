//! `h5 clear [-s] [-v] FILE...`: reset the superblock's status flags of files a writer left
//! marked open for writing or SWMR writing (it stopped without closing them), as the
//! reference library's `h5clear -s` does, so that readers and writers open them again.
//! With `--increment[=C]` (`-m`), also set the stored end of file address to the larger of it
//! and the file's size plus C bytes (default 1 MiB), as `h5clear --increment` does: a
//! reference-library writer that stopped in SWMR mode may have written past it.
//! Silent on success (with `-v`, one line per file saying what was cleared); exit status 0,
//! or 1 when a file could not be cleared.

const USAGE: &str = "usage: h5 clear [-s] [--increment[=C]] [-v] FILE...\n  \
    -s, --status          reset the superblock's status flags (the default)\n  \
    -m, --increment[=C]   also set the end of file address to max(EOA, file size) + C \
    (default 1 MiB)\n  \
    -v, --verbose         say what was cleared";

/// Run `h5 clear` with the arguments after the command name; returns the exit status.
pub fn run(args: &[String]) -> i32 {
    let mut verbose = false;
    let mut increment = None;
    let mut files = Vec::new();
    for a in args {
        if let Some(c) = a.strip_prefix("--increment=") {
            match c.parse::<u64>() {
                Ok(c) => increment = Some(c),
                Err(_) => {
                    eprintln!("h5 clear: invalid increment {c:?} (bytes)\n{USAGE}");
                    return 2;
                }
            }
            continue;
        }
        match a.as_str() {
            "-s" | "--status" => {}
            "-m" | "--increment" => increment = Some(h5::io::write::DEFAULT_EOA_INCREMENT),
            "-v" | "--verbose" => verbose = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                return 0;
            }
            s if s.starts_with('-') && s.len() > 1 => {
                eprintln!("h5 clear: unknown option {s:?}\n{USAGE}");
                return 2;
            }
            s => files.push(s),
        }
    }
    if files.is_empty() {
        eprintln!("{USAGE}");
        return 2;
    }
    let mut status = 0;
    for f in files {
        let r = match increment {
            None => h5::File::clear_status_flags(f),
            Some(c) => h5::io::write::clear_status_flags_with(f, Some(c))
                .map_err(|e| h5::Error::from(e).at(f.to_owned())),
        };
        match r {
            Ok(Some(flags)) if verbose => {
                println!("{f}: status flags {flags:#x} cleared");
            }
            Ok(None) if verbose => println!("{f}: no status flags set"),
            Ok(_) => {}
            Err(e) => {
                eprintln!("h5 clear: {e}");
                status = 1;
            }
        }
    }
    status
}
