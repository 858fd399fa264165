//! Tidy check: the storage modules (`h5_format::storage`) are the only library code that opens
//! files. Everything else reads and writes through a `Storage`, and opens the files a file
//! names through a `Resolver`, so a file read from an object store follows its links there.

use std::path::{Path, PathBuf};

/// What opens a file behind the storage boundary's back.
const FORBIDDEN: &[&str] = &["fs::File::open", "fs::OpenOptions", "fs::read("];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Test code (a `tests.rs` file, or what follows `#[cfg(test)]` + `mod tests`) may read
/// fixtures directly.
fn library_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|w| w[0].trim() == "#[cfg(test)]" && w[1].trim_start().starts_with("mod tests"))
        .unwrap_or(lines.len());
    lines.into_iter().take(end).enumerate()
}

#[test]
fn only_the_storage_modules_open_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let storage = root.join("h5-format/src/storage");
    let mut files = Vec::new();
    for krate in [
        "h5-types",
        "h5-format",
        "h5-io",
        "h5",
        "h5-cli",
        "h5-object-store",
    ] {
        rust_files(&root.join(krate).join("src"), &mut files);
    }
    assert!(
        files.len() > 50,
        "sources not found under {}",
        root.display()
    );
    let mut offenders = Vec::new();
    for f in &files {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if f.starts_with(&storage) || name.ends_with("tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in library_lines(&text) {
            if line.trim_start().starts_with("//") {
                continue;
            }
            if FORBIDDEN.iter().any(|p| line.contains(p)) {
                offenders.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "files opened outside h5_format::storage (use a Storage or the options' Resolver):\n{}",
        offenders.join("\n")
    );
}
