//! `h5 clear [-s] [-v] FILE...`: reset the superblock's status flags of files a writer left
//! marked open for writing or SWMR writing (it stopped without closing them), as the
//! reference library's `h5clear -s` does, so that readers and writers open them again.
//! With `--increment[=C]` (`-m`), also set the stored end of file address to the larger of it
//! and the file's size plus C bytes (default 1 MiB), as `h5clear --increment` does: a
//! reference-library writer that stopped in SWMR mode may have written past it.
//! Silent on success (with `-v`, one line per file saying what was cleared); exit status 0,
//! or 1 when a file could not be cleared.

/// Reset the status flags of files a writer left marked open (h5clear -s)
///
/// A writer that stopped without closing a file leaves it marked open for writing or SWMR
/// writing; readers and writers refuse it until the marks are reset. Silent on success; exit
/// status 0, or 1 when a file could not be cleared.
#[derive(clap::Parser)]
#[command(name = "clear", verbatim_doc_comment)]
pub struct Args {
    /// Reset the superblock's status flags (the default)
    #[arg(short, long)]
    status: bool,
    /// Also set the end of file address to max(EOA, file size) + C bytes (default 1 MiB)
    ///
    /// A reference-library writer that stopped in SWMR mode may have written past it.
    #[arg(short = 'm', long, value_name = "C", require_equals = true)]
    increment: Option<Option<u64>>,
    /// Say what was cleared, one line per file
    #[arg(short, long)]
    verbose: bool,
    /// The files
    #[arg(value_name = "FILE", required = true)]
    files: Vec<String>,
}

impl crate::Run for Args {
    fn run(self) -> i32 {
        let increment = self
            .increment
            .map(|c| c.unwrap_or(h5::io::write::DEFAULT_EOA_INCREMENT));
        clear(&self.files, increment, self.verbose)
    }
}

/// Clear each of `files`; returns the exit status.
fn clear(files: &[String], increment: Option<u64>, verbose: bool) -> i32 {
    let mut status = 0;
    for f in files {
        let f = f.as_str();
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
