//! File locking as the reference library does it (`H5FD_lock` of the sec2 driver, called by
//! `H5F_open`): a non-blocking shared `flock` for a file opened for reading, an exclusive one
//! for a file opened for writing, given up by a writer that starts SWMR writing (readers then
//! open the file while it writes; the superblock's status flags keep plain readers and other
//! writers out). The environment variable `HDF5_USE_FILE_LOCKING` is read as the reference
//! library reads it (exact values): `FALSE` or `0` disables locking, `TRUE` or `1` locks and
//! fails when the file system does not support locks, `BEST_EFFORT` locks and ignores a
//! file system without locks (`flock` failing with `ENOSYS`); unset or any other value is the
//! reference library's default as built by its configure and CMake defaults
//! (`--enable-file-locking=best-effort`, `HDF5_IGNORE_DISABLED_FILE_LOCKS=ON`, in
//! Debian's 1.10.8 and h5py's 2.0 alike): `BEST_EFFORT`.
//!
//! Where this library's *use* of these locks differs from the reference library (the caller,
//! `h5::File`, decides which [`Access`] a handle takes): a writer of this library takes a
//! shared lock, not an exclusive one, because every flush of this writer leaves a complete
//! file and existing interoperability tests read it with h5py between two flushes. So the
//! reference library's writers are kept out of a file this library writes (as by the
//! reference), and this library's writers out of a file the reference library writes, but
//! (1) the reference library's readers (h5py, h5dump) open a file this library is writing
//! where the reference would refuse them ("unable to lock file"), (2) a writer of this
//! library opens a file another process is reading where the reference's writer would be
//! refused, and (3) two writers of this library in different processes are not kept apart.
//! SWMR writing is the same on both sides: no lock once it started. `h5 clear` locks
//! exclusively, as h5clear's writable open does. `crates/h5/tests/swmr_locking.rs` shows
//! each case against h5py.
//!
//! Locks are taken between processes. Within one process every handle of a file shares one
//! lock (the reference library shares one open file between the handles of a process too),
//! held until the last handle lets go of it.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, ErrorKind, Result};

/// How `HDF5_USE_FILE_LOCKING` asks files to be locked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Locking {
    /// Lock, and fail when the lock cannot be taken (`TRUE`, `1`).
    On,
    /// Lock, ignoring file systems that do not support locks (`BEST_EFFORT`; the default,
    /// as the reference library is built).
    BestEffort,
    /// Do not lock.
    Off,
}

impl Locking {
    /// The mode `HDF5_USE_FILE_LOCKING` asks for (`BestEffort`, the reference library's
    /// default, when unset or not one of its values).
    pub fn from_env() -> Locking {
        match std::env::var("HDF5_USE_FILE_LOCKING") {
            Ok(v) => Self::parse(&v),
            Err(_) => Locking::BestEffort,
        }
    }

    /// The mode a value of `HDF5_USE_FILE_LOCKING` names, compared exactly as the reference
    /// library compares it (`"true"` or `" FALSE"` are not its values: the default applies).
    pub fn parse(v: &str) -> Locking {
        match v {
            "FALSE" | "0" => Locking::Off,
            "TRUE" | "1" => Locking::On,
            _ => Locking::BestEffort,
        }
    }
}

/// What a handle needs of a file: reading (a shared lock) or writing (an exclusive one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Access {
    /// A shared lock.
    Read,
    /// An exclusive lock.
    Write,
}

#[derive(Debug)]
struct Held {
    #[cfg(unix)]
    lock: Option<nix::fcntl::Flock<std::fs::File>>,
    access: Access,
    handles: usize,
}

type Key = (u64, u64);

/// The files this process holds locks of, sorted by key: a constant (nothing to build or
/// seed at the first open) searched by bisection.
static TABLE: Mutex<Vec<(Key, Held)>> = Mutex::new(Vec::new());

/// One handle's share of a file's lock; the lock is released when the last share of the
/// process is dropped (or [`FileLock::release`]d).
#[derive(Debug)]
pub struct FileLock {
    key: Option<Key>,
    path: PathBuf,
}

#[cold]
fn in_use(path: &Path, access: Access, why: impl std::fmt::Display) -> Error {
    let what = match access {
        Access::Read => "for reading",
        Access::Write => "for writing",
    };
    Error::new(
        ErrorKind::InUse,
        format!(
            "unable to lock {} {what}: {why} (another process has it open; \
             HDF5_USE_FILE_LOCKING=FALSE disables locking)",
            path.display()
        ),
    )
}

impl FileLock {
    /// Lock the file at `path` for `access`, in the mode of `HDF5_USE_FILE_LOCKING`. Fails
    /// with [`ErrorKind::InUse`] when another process holds a conflicting lock.
    pub fn acquire(path: &Path, access: Access) -> Result<FileLock> {
        Self::acquire_with(path, access, Locking::from_env())
    }

    /// [`FileLock::acquire`] in the given mode.
    pub fn acquire_with(path: &Path, access: Access, mode: Locking) -> Result<FileLock> {
        if mode == Locking::Off {
            return Ok(Self::none(path));
        }
        #[cfg(unix)]
        {
            let opening =
                |e| Error::with_source(ErrorKind::Io, format!("opening {}", path.display()), e);
            let file = h5_format::storage::FileStorage::open_for_lock(path).map_err(opening)?;
            let meta = file.metadata().map_err(opening)?;
            Self::lock(path, access, mode, &meta, || Ok(file))
        }
        #[cfg(not(unix))]
        {
            let _ = access;
            Ok(Self::none(path))
        }
    }

    /// [`FileLock::acquire`] for the file at `path` that the caller has open already
    /// (`file`, whose metadata is `meta`): the lock is held on a duplicate of its handle (the
    /// same open file, so the path is not opened again), taken only when no other handle of
    /// this process holds the file's lock.
    pub fn acquire_open(
        file: &std::fs::File,
        meta: &std::fs::Metadata,
        path: &Path,
        access: Access,
    ) -> Result<FileLock> {
        let mode = Locking::from_env();
        if mode == Locking::Off {
            return Ok(Self::none(path));
        }
        #[cfg(unix)]
        {
            Self::lock(path, access, mode, meta, || {
                file.try_clone().map_err(|e| {
                    Error::with_source(ErrorKind::Io, format!("opening {}", path.display()), e)
                })
            })
        }
        #[cfg(not(unix))]
        {
            let _ = (file, meta, access);
            Ok(Self::none(path))
        }
    }

    fn none(path: &Path) -> FileLock {
        FileLock {
            key: None,
            path: path.to_path_buf(),
        }
    }

    /// Take (or share) the lock of the file whose metadata is `meta`; `handle` gives the
    /// open file to hold the lock on when this process holds none of it yet.
    #[cfg(unix)]
    fn lock(
        path: &Path,
        access: Access,
        mode: Locking,
        meta: &std::fs::Metadata,
        handle: impl FnOnce() -> Result<std::fs::File>,
    ) -> Result<FileLock> {
        use nix::errno::Errno;
        use nix::fcntl::{Flock, FlockArg};
        use std::os::unix::fs::MetadataExt;
        let key = (meta.dev(), meta.ino());
        let arg = |a: Access| match a {
            Access::Read => FlockArg::LockSharedNonblock,
            Access::Write => FlockArg::LockExclusiveNonblock,
        };
        // The reference library ignores `ENOSYS` alone (what `flock` says on a file
        // system mounted without lock support).
        let unsupported = |e: Errno| mode == Locking::BestEffort && e == Errno::ENOSYS;
        let mut t = TABLE.lock().map_err(|_| in_use(path, access, "poisoned"))?;
        let at = t.binary_search_by_key(&key, |(k, _)| *k);
        if let Ok(i) = at {
            let h = &mut t[i].1;
            // Another handle of this process holds it: a writer after readers takes the
            // exclusive lock over the shared one (kept until the last handle goes).
            if access > h.access {
                if let Some(l) = &h.lock {
                    match l.relock(arg(access)) {
                        Ok(()) => {}
                        Err(e) if unsupported(e) => {}
                        Err(e) => return Err(in_use(path, access, e.desc())),
                    }
                }
                h.access = access;
            }
            h.handles += 1;
            return Ok(FileLock {
                key: Some(key),
                path: path.to_path_buf(),
            });
        }
        let lock = match Flock::lock(handle()?, arg(access)) {
            Ok(l) => Some(l),
            Err((_, e)) if unsupported(e) => None,
            Err((_, e)) => return Err(in_use(path, access, e.desc())),
        };
        t.insert(
            at.unwrap_or_else(|i| i),
            (
                key,
                Held {
                    lock,
                    access,
                    handles: 1,
                },
            ),
        );
        Ok(FileLock {
            key: Some(key),
            path: path.to_path_buf(),
        })
    }

    /// Give up this handle's share of the lock now (a SWMR writer unlocks its file so that
    /// readers can open it). Idempotent.
    pub fn release(&mut self) {
        let Some(key) = self.key.take() else {
            return;
        };
        if let Ok(mut t) = TABLE.lock() {
            if let Ok(i) = t.binary_search_by_key(&key, |(k, _)| *k) {
                let h = &mut t[i].1;
                h.handles = h.handles.saturating_sub(1);
                if h.handles == 0 {
                    // Dropping the `Flock` unlocks the file.
                    t.remove(i);
                }
            }
        }
    }

    /// Whether this handle still holds a share of a lock (false when locking is off).
    pub fn is_held(&self) -> bool {
        self.key.is_some()
    }

    /// The path locked.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_as_the_reference_library_reads_them() {
        assert_eq!(Locking::parse("FALSE"), Locking::Off);
        assert_eq!(Locking::parse("0"), Locking::Off);
        assert_eq!(Locking::parse("BEST_EFFORT"), Locking::BestEffort);
        assert_eq!(Locking::parse("TRUE"), Locking::On);
        assert_eq!(Locking::parse("1"), Locking::On);
        // Not its values: the reference library's default (best effort).
        assert_eq!(Locking::parse("true"), Locking::BestEffort);
        assert_eq!(Locking::parse(" FALSE"), Locking::BestEffort);
        assert_eq!(Locking::parse(""), Locking::BestEffort);
    }

    #[test]
    fn handles_of_one_process_share_the_lock() {
        let dir = std::env::temp_dir().join(format!("h5-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.bin");
        std::fs::write(&p, b"x").unwrap();
        let r = FileLock::acquire_with(&p, Access::Read, Locking::On).unwrap();
        let mut w = FileLock::acquire_with(&p, Access::Write, Locking::On).unwrap();
        assert!(r.is_held() && w.is_held());
        w.release();
        assert!(!w.is_held());
        drop(r);
        let off = FileLock::acquire_with(&p, Access::Write, Locking::Off).unwrap();
        assert!(!off.is_held());
    }
}
