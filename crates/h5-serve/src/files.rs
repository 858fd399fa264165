//! What is served: files and folders given by the user, the `file` query parameter checked
//! against them (no absolute paths, no `..`, no symlink out: 403), and one open
//! [`h5::File`] per file shared by every request.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, RwLock};

use h5::low_level::format::storage::{FsResolver, Resolver, Storage};

use crate::error::{ApiError, Result};

/// One thing served.
#[derive(Clone, Debug)]
pub enum Root {
    /// A local file, served under its file name.
    File {
        /// The name the `file` parameter uses.
        name: String,
        /// Its canonical path.
        path: PathBuf,
    },
    /// A local folder: every file below it, under its path relative to the folder.
    Folder(PathBuf),
    /// A URL (object store or HTTP), served under its last path segment.
    Url {
        /// The name the `file` parameter uses.
        name: String,
        /// The URL.
        url: String,
    },
}

impl Root {
    /// A root from a command-line argument: a URL (`scheme://`), a file or a folder.
    pub fn from_arg(arg: &str) -> std::io::Result<Root> {
        if arg.contains("://") && !arg.starts_with("file://") {
            let name = arg
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or(arg)
                .to_string();
            return Ok(Root::Url {
                name,
                url: arg.to_string(),
            });
        }
        let local = arg.strip_prefix("file://").unwrap_or(arg);
        let path = std::fs::canonicalize(local)?;
        if path.is_dir() {
            Ok(Root::Folder(path))
        } else {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            Ok(Root::File { name, path })
        }
    }
}

/// Where a `file` parameter leads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Target {
    Local(PathBuf),
    Url(String),
}

/// Opens the files external links name, only inside the served roots.
#[derive(Debug)]
struct Sandbox {
    allowed: Vec<PathBuf>,
}

impl Sandbox {
    fn allows(&self, p: &Path) -> bool {
        std::fs::canonicalize(p).is_ok_and(|c| self.allowed.iter().any(|a| c.starts_with(a)))
    }
}

impl Resolver for Sandbox {
    fn open(&self, location: &Path) -> std::io::Result<Arc<dyn Storage>> {
        if !self.allows(location) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!("{} is outside the served files", location.display()),
            ));
        }
        FsResolver.open(location)
    }

    fn exists(&self, location: &Path) -> bool {
        self.allows(location) && FsResolver.exists(location)
    }
}

/// The served roots and the files opened so far.
#[derive(Debug)]
pub struct Files {
    roots: Vec<Root>,
    sandbox: Arc<Sandbox>,
    open: RwLock<HashMap<Target, h5::File>>,
}

/// An opened file and the name h5grove's messages give it (`basename(filename)`).
pub struct Opened {
    /// The file.
    pub file: h5::File,
    /// Its base name.
    pub basename: String,
}

impl Files {
    /// Serve `roots`.
    pub fn new(roots: Vec<Root>) -> Files {
        let allowed = roots
            .iter()
            .filter_map(|r| match r {
                Root::File { path, .. } => Some(path.clone()),
                Root::Folder(p) => Some(p.clone()),
                Root::Url { .. } => None,
            })
            .collect();
        Files {
            roots,
            sandbox: Arc::new(Sandbox { allowed }),
            open: RwLock::new(HashMap::new()),
        }
    }

    /// The names of the HDF5 files served (a folder's, found by their signature, sorted).
    pub fn list(&self) -> Vec<String> {
        let mut out = Vec::new();
        for r in &self.roots {
            match r {
                Root::File { name, .. } | Root::Url { name, .. } => out.push(name.clone()),
                Root::Folder(dir) => walk(dir, dir, 0, &mut out),
            }
        }
        out.sort();
        out.dedup();
        out
    }

    fn target(&self, file: &str) -> Result<Target> {
        let rel = Path::new(file);
        let bad = file.is_empty()
            || rel.is_absolute()
            || file.starts_with('/')
            || file.starts_with('\\')
            || rel
                .components()
                .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
        if bad {
            return Err(ApiError::forbidden(format!(
                "{file} is not a path relative to the served files"
            )));
        }
        for r in &self.roots {
            match r {
                Root::File { name, path } if name == file => {
                    return Ok(Target::Local(path.clone()))
                }
                Root::Url { name, url } if name == file => return Ok(Target::Url(url.clone())),
                Root::Folder(dir) => {
                    let p = dir.join(rel);
                    if !p.exists() {
                        continue;
                    }
                    let c = std::fs::canonicalize(&p)
                        .map_err(|_| ApiError::not_found("File not found!"))?;
                    if !c.starts_with(dir) {
                        return Err(ApiError::forbidden(format!(
                            "{file} leads outside the served folder"
                        )));
                    }
                    return Ok(Target::Local(c));
                }
                _ => {}
            }
        }
        Err(ApiError::not_found("File not found!"))
    }

    /// The file a `file` parameter names, opened once and shared.
    pub fn open(&self, file: &str) -> Result<Opened> {
        let target = self.target(file)?;
        let basename = Path::new(file)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| file.to_string());
        if let Some(f) = self.open.read().ok().and_then(|m| m.get(&target).cloned()) {
            return Ok(Opened { file: f, basename });
        }
        let f = match &target {
            Target::Local(p) => {
                let options = h5::OpenOptions::new()
                    .external_links(true)
                    .resolver(self.sandbox.clone());
                h5::File::open_with(p, options).map_err(open_error)?
            }
            Target::Url(u) => open_url(u)?,
        };
        if let Ok(mut m) = self.open.write() {
            m.insert(target, f.clone());
        }
        Ok(Opened { file: f, basename })
    }
}

#[cfg(feature = "object-store")]
fn open_url(url: &str) -> Result<h5::File> {
    h5::File::open_url_with(url, h5::OpenOptions::new()).map_err(open_error)
}

#[cfg(not(feature = "object-store"))]
fn open_url(url: &str) -> Result<h5::File> {
    Err(ApiError::internal(format!(
        "{url}: URLs need h5-serve's object-store feature"
    )))
}

/// h5grove's `open_file_with_error_fallback`: missing files 404, unreadable ones 403.
fn open_error(e: h5::Error) -> ApiError {
    let text = e.to_string();
    let io = std::error::Error::source(&e)
        .and_then(|s| s.downcast_ref::<std::io::Error>())
        .map(std::io::Error::kind);
    if io == Some(std::io::ErrorKind::NotFound) || text.contains("No such file") {
        ApiError::not_found("File not found!")
    } else if io == Some(std::io::ErrorKind::PermissionDenied) || text.contains("ermission denied")
    {
        ApiError::forbidden("Cannot read file: Permission denied!")
    } else {
        ApiError::internal(text)
    }
}

/// Files below `dir` that start with the HDF5 signature (at 0 or a power of two from 512),
/// as paths relative to `base`; symlinks are not followed.
fn walk(base: &Path, dir: &Path, depth: usize, out: &mut Vec<String>) {
    if depth > 16 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let Ok(t) = e.file_type() else { continue };
        let p = e.path();
        if t.is_dir() {
            walk(base, &p, depth + 1, out);
        } else if t.is_file() && is_hdf5(&p) {
            if let Ok(rel) = p.strip_prefix(base) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
}

fn is_hdf5(p: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    const SIG: &[u8; 8] = b"\x89HDF\r\n\x1a\n";
    let Ok(mut f) = std::fs::File::open(p) else {
        return false;
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut at = 0u64;
    while at + 8 <= len && at <= 1 << 30 {
        let mut b = [0u8; 8];
        if f.seek(SeekFrom::Start(at)).is_err() || f.read_exact(&mut b).is_err() {
            return false;
        }
        if &b == SIG {
            return true;
        }
        at = if at == 0 { 512 } else { at * 2 };
    }
    false
}
