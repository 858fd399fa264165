//! A progress bar for long-running commands, drawn on standard error only when both standard
//! output and standard error are terminals (never when output is piped or redirected).

use std::io::IsTerminal;

/// A progress bar, or nothing when not on a terminal.
pub struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    /// A bar over `len` steps of `what` (e.g. "objects"), if on a terminal.
    pub fn new(len: u64, what: &str) -> Progress {
        if !(std::io::stdout().is_terminal() && std::io::stderr().is_terminal()) || len < 2 {
            return Progress(None);
        }
        let bar = indicatif::ProgressBar::new(len);
        if let Ok(style) = indicatif::ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {what} {{elapsed}}"
        )) {
            bar.set_style(style);
        }
        Progress(Some(bar))
    }

    /// Run `f` (which writes to the terminal) with the bar hidden meanwhile.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.0 {
            Some(b) => b.suspend(f),
            None => f(),
        }
    }

    /// One step done.
    pub fn step(&self) {
        if let Some(b) = &self.0 {
            b.inc(1);
        }
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress"
        } else {
            "Progress(off)"
        })
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}
