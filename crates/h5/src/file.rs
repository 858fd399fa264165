//! [`File`]: one handle for every mode (read only, read and write, create, append).
//!
//! A writable file holds the writer's in-memory model of its metadata; reads go through a
//! reader over the file on disk. Before a read that follows a change, the writer flushes (the
//! same crash-safe flush as [`File::flush`]) and the reader is opened again, so what was
//! written is readable at once through the same handles.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use h5_io::lock::{Access, FileLock};
use h5_io::write::{FileFormat, FileWriter, ObjId};

use crate::attribute::{AttrBuilder, Attribute};
use crate::dataset::{Dataset, DatasetBuilder, DatasetBuilderUntyped};
use crate::error::{Error, ErrorKind, Result};
use crate::group::{CommittedType, Group, Link, LinkStorage, Node};
use crate::object::{Obj, ObjectKind};
use h5_io::selection::Selection;
use h5_io::write::{CreationOrder, GroupOptions};
use h5_types::h5type::{ObjectRef, RegionRef};
use h5_types::{Datatype, H5Type};

pub use h5_io::file::OpenOptions;

/// How a file was opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Read only ([`File::open`]).
    Read,
    /// Read and write ([`File::open_rw`], [`File::create`], [`File::create_new`],
    /// [`File::append`]).
    ReadWrite,
}

#[derive(Debug)]
struct ReadState {
    /// Bumped each time the reader is opened again.
    generation: u64,
    reader: Option<h5_io::File>,
    /// A change was made since the reader was opened.
    dirty: bool,
}

#[derive(Debug)]
pub(crate) struct Shared {
    path: Option<PathBuf>,
    /// The root group's header address.
    root: u64,
    options: OpenOptions,
    /// `None` for a read-only file; the inner `None` once closed.
    writer: Option<Mutex<Option<FileWriter>>>,
    state: RwLock<ReadState>,
    /// This handle's share of the file's lock (see `h5_io::lock`): shared (see
    /// [`WRITER_LOCK`] for a writer), given up when SWMR writing starts or the file is
    /// closed.
    lock: Mutex<Option<FileLock>>,
}

/// How many times a SWMR reader reads again a structure that failed to decode (a checksum
/// that does not match: the writer was rewriting it) before it reports the error; the
/// pauses between tries are 200 µs at first, doubled each time, up to 20 ms.
pub const SWMR_READ_ATTEMPTS: u32 = 100;
const SWMR_RETRY_PAUSE: std::time::Duration = std::time::Duration::from_micros(200);
const SWMR_RETRY_PAUSE_MAX: std::time::Duration = std::time::Duration::from_millis(20);

/// Whether a read that failed with `e` may succeed once read again: a structure that did not
/// decode (a checksum mismatch, a torn block), bytes past the end the file had when opened,
/// data that did not decompress. Not: a missing object, an unsupported feature, a type
/// that does not convert.
pub(crate) fn retryable(e: &Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::Format | ErrorKind::Filter | ErrorKind::LimitExceeded
    )
}

/// Run `f` until it succeeds, a SWMR reader's bounded retry: an error `retryable` says may
/// pass is tried again (after `again`, which reopens what is read) up to
/// [`SWMR_READ_ATTEMPTS`] times in all.
pub(crate) fn with_retry<R>(
    mut f: impl FnMut() -> Result<R>,
    mut again: impl FnMut() -> Result<()>,
) -> Result<R> {
    let mut pause = SWMR_RETRY_PAUSE;
    let mut tries = 1;
    loop {
        match f() {
            Ok(r) => return Ok(r),
            Err(e) if tries < SWMR_READ_ATTEMPTS && retryable(&e) => {
                tries += 1;
                std::thread::sleep(pause);
                pause = (pause * 2).min(SWMR_RETRY_PAUSE_MAX);
                // A reopen that fails is retried by the next round.
                let _ = again();
            }
            Err(e) => return Err(e),
        }
    }
}

/// The lock a writer of this library takes: a shared one. The reference library's writers
/// (which lock exclusively) are kept out while it writes, as they would be by an exclusive
/// lock, but its readers may open the file: every flush of this writer leaves the file on
/// disk complete (h5dump and h5py read what `flush` published while the writer goes on).
/// Two writers of this library in different processes are not kept apart by it.
const WRITER_LOCK: Access = Access::Read;

/// Lock `path` for `access` when it names a file of the file system (as opposed to a
/// family's pattern or a multi file's base name, which the reader resolves itself).
fn lock_file(path: &Path, access: Access) -> Result<Option<FileLock>> {
    if !path.is_file() {
        return Ok(None);
    }
    Ok(Some(FileLock::acquire(path, access).map_err(Error::from)?))
}

/// An HDF5 file. Cheap to clone (the clones share the file); `Send + Sync`.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("h5-file-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// # let path = dir.join("doc.h5");
/// let f = h5::File::create(&path)?;
/// let x = f.new_dataset::<i32>().shape(&[3]).create("x")?;
/// x.write(&[1, 2, 3])?;
/// assert_eq!(x.read::<i32>()?, [1, 2, 3]); // readable at once, before any flush
/// f.close()?;
///
/// let rw = h5::File::open_rw(&path)?;
/// rw.new_attr::<f64>().create("scale")?.write(&[0.5])?;
/// rw.close()?;
///
/// let f = h5::File::open(&path)?;
/// assert_eq!(f.dataset("x")?.read::<i32>()?, [1, 2, 3]);
/// assert_eq!(f.attr("scale")?.read_scalar::<f64>()?, 0.5);
/// assert_eq!(f.new_attr::<i8>().create("no").unwrap_err().kind(), h5::ErrorKind::ReadOnly);
/// # Ok::<(), h5::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct File {
    pub(crate) shared: Arc<Shared>,
}

fn at_path(path: &Path) -> impl Fn(Error) -> Error + '_ {
    move |e| e.at(path.display().to_string())
}

/// A directory is an i/o error, as the operating system says for `open(2)` with write
/// access (a read-only open of a directory succeeds and fails at the first read).
fn not_a_directory(path: &Path) -> Result<()> {
    if path.is_dir() {
        let e = std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a directory");
        return Err(Error::from(e).at(path.display().to_string()));
    }
    Ok(())
}

impl File {
    /// Open the file at `path` for reading, with default options.
    pub fn open(path: impl AsRef<Path>) -> Result<File> {
        Self::open_with(path, OpenOptions::default())
    }

    /// Open the file at `path` for reading, with `options` (external links, checksums,
    /// virtual dataset options). The family and multi/split drivers are recognised.
    ///
    /// With [`OpenOptions::swmr`], a file a single writer is writing in SWMR mode (this
    /// library's [`File::start_swmr`], the reference library's `H5F_ACC_SWMR_WRITE`, h5py's
    /// `swmr_mode`) opens, and [`File::refresh`] / [`Dataset::refresh`] read what the writer
    /// flushed since; a read that fails to decode (a structure being rewritten) is read
    /// again a bounded number of times ([`SWMR_READ_ATTEMPTS`]). Without it, a file whose
    /// superblock marks it open for writing is refused ([`ErrorKind::InUse`], as the
    /// reference library refuses it). The file is locked for reading as the reference
    /// library locks it (see `h5_io::lock`).
    pub fn open_with(path: impl AsRef<Path>, options: OpenOptions) -> Result<File> {
        let path = path.as_ref();
        if options.resolver.is_none() {
            if let Some(f) = Self::open_regular(path, &options)? {
                return Ok(f);
            }
        }
        not_a_directory(path)?;
        let lock = match &options.resolver {
            None => lock_file(path, Access::Read)?,
            Some(_) => None,
        };
        let open = || h5_io::File::open_with(path, options.clone()).map_err(Error::from);
        let reader = if options.swmr {
            with_retry(open, || Ok(()))?
        } else {
            open()?
        };
        let f = Self::read_only(reader, Some(path.to_path_buf()), options);
        *f.shared.lock.lock().map_err(poisoned)? = lock;
        Ok(f)
    }

    /// [`File::open_with`] of a regular file of the file system, opened once: the lock is
    /// held on the same open file, and the length and the lock's identity come from one
    /// look at its metadata. `None` when `path` does not open as a regular file (a missing
    /// file, a family's pattern, a multi file's base name, a device): the general path then
    /// says why or finds the file.
    fn open_regular(path: &Path, options: &OpenOptions) -> Result<Option<File>> {
        let Ok(file) = h5_format::storage::FileStorage::open_file(path) else {
            return Ok(None);
        };
        let Ok(meta) = file.metadata() else {
            return Ok(None);
        };
        if meta.is_dir() {
            return not_a_directory(path).map(|()| None);
        }
        if !meta.is_file() {
            return Ok(None);
        }
        let lock = FileLock::acquire_open(&file, &meta, path, Access::Read)?;
        let storage = h5_format::storage::FileStorage::from_file_with_len(file, meta.len());
        let mut first: Option<Arc<dyn h5_format::storage::Storage>> = Some(Arc::new(storage));
        // A SWMR reader's retries open the file again (it may have grown).
        let mut open = || {
            match first.take() {
                Some(s) => h5_io::File::open_storage_at(s, path, options.clone()),
                None => h5_io::File::open_with(path, options.clone()),
            }
            .map_err(Error::from)
        };
        let reader = if options.swmr {
            with_retry(open, || Ok(()))?
        } else {
            open()?
        };
        let f = Self::read_only(reader, Some(path.to_path_buf()), options.clone());
        *f.shared.lock.lock().map_err(poisoned)? = Some(lock);
        Ok(Some(f))
    }

    /// Whether the file was opened for SWMR reading ([`OpenOptions::swmr`]).
    pub fn is_swmr_reader(&self) -> bool {
        self.shared.writer.is_none() && self.shared.options.swmr
    }

    /// Read the file again as it is on disk now (a SWMR reader's `H5Frefresh`): every handle
    /// decodes its object again at its next use, so extents, chunk indexes and headers the
    /// writer changed are seen (nothing decoded before is kept). A reopen that fails to
    /// decode is tried again a bounded number of times. For a file opened for writing,
    /// nothing to do (its handles read what was written at once).
    pub fn refresh(&self) -> Result<()> {
        if self.shared.writer.is_some() {
            return Ok(());
        }
        let Some(path) = self.shared.path.as_deref() else {
            return Ok(());
        };
        let options = self.shared.options.clone();
        let open = || h5_io::File::open_with(path, options.clone()).map_err(Error::from);
        let reader = if options.swmr {
            with_retry(open, || Ok(()))?
        } else {
            open()?
        };
        let mut st = self.shared.state.write().map_err(poisoned)?;
        if st.reader.is_none() {
            return Err(closed());
        }
        st.reader = Some(reader);
        st.generation += 1;
        Ok(())
    }

    /// Whether the file's superblock marks it open for SWMR writing, as the file on disk
    /// says now (a SWMR reader uses it to know that the writer closed the file).
    pub fn is_marked_swmr_writing(&self) -> Result<bool> {
        let r = self.reader()?;
        Ok(h5_io::file::marked_swmr_writing(r.superblock()))
    }

    /// Start SWMR writing (`H5Fstart_swmr_write`) on a file of [`FileFormat::Latest`]
    /// (superblock version 3), after creating its objects and attributes: everything is
    /// flushed, the superblock is marked open for SWMR writing and the file lock is given up,
    /// so that readers in other processes open the file with [`OpenOptions::swmr`] (or h5py's
    /// `swmr=True`) while it is written. Then [`Dataset::append`], [`Dataset::resize`] with
    /// writes, and [`File::flush`] to publish what was written; creating objects, links or
    /// attributes and deleting anything fail with [`ErrorKind::InvalidInput`] naming the rule.
    /// [`File::close`] clears the marks. (See `h5_io::write::FileWriter::start_swmr` for the
    /// order in which a flush writes.)
    pub fn start_swmr(&self) -> Result<()> {
        self.write(|w| w.start_swmr())?;
        if let Some(mut l) = self.shared.lock.lock().map_err(poisoned)?.take() {
            l.release();
        }
        Ok(())
    }

    /// Reset the superblock's status flags of the file at `path` (the reference library's
    /// `h5clear -s`): a file a writer left marked open for writing opens again. The flags
    /// that were set, or `None` when none were (nothing is written then).
    pub fn clear_status_flags(path: impl AsRef<Path>) -> Result<Option<u32>> {
        let path = path.as_ref();
        h5_io::write::clear_status_flags(path)
            .map_err(Error::from)
            .map_err(at_path(path))
    }

    /// Whether SWMR writing is on ([`File::start_swmr`]).
    pub fn is_swmr_writer(&self) -> bool {
        self.query(|w| Ok(w.is_swmr())).unwrap_or(false)
    }

    /// A file held in memory, for reading.
    pub fn from_bytes(bytes: impl Into<Arc<[u8]>>) -> Result<File> {
        let reader = h5_io::File::from_bytes(bytes)?;
        Ok(Self::read_only(reader, None, OpenOptions::default()))
    }

    /// Revision `revision` of a file written with HDF5 2.x's onion driver, for reading (see
    /// `h5_io::File::open_onion`).
    pub fn open_onion(path: impl AsRef<Path>, revision: u64, options: OpenOptions) -> Result<File> {
        let path = path.as_ref();
        let reader = h5_io::File::open_onion(path, revision, options.clone())?;
        Ok(Self::read_only(reader, Some(path.to_path_buf()), options))
    }

    /// A read-only file over a reader of the low-level layer.
    pub fn from_reader(reader: h5_io::File) -> File {
        let path = reader.path().map(Path::to_path_buf);
        let options = reader.options().clone();
        Self::read_only(reader, path, options)
    }

    fn read_only(reader: h5_io::File, path: Option<PathBuf>, options: OpenOptions) -> File {
        File {
            shared: Arc::new(Shared {
                path,
                root: reader.root_address().0,
                options,
                writer: None,
                state: RwLock::new(ReadState {
                    generation: 0,
                    reader: Some(reader),
                    dirty: false,
                }),
                lock: Mutex::new(None),
            }),
        }
    }

    fn writable(w: FileWriter, options: OpenOptions, lock: Option<FileLock>) -> Result<File> {
        let root = w.address(w.root())?;
        Ok(File {
            shared: Arc::new(Shared {
                path: Some(w.path().to_path_buf()),
                root,
                options,
                writer: Some(Mutex::new(Some(w))),
                state: RwLock::new(ReadState {
                    generation: 0,
                    reader: None,
                    dirty: true,
                }),
                lock: Mutex::new(lock),
            }),
        })
    }

    /// Create a file in the widest-compatible format ([`FileFormat::Compatible`]),
    /// truncating it if it exists (h5py's `w`).
    pub fn create(path: impl AsRef<Path>) -> Result<File> {
        Self::create_with(path, FileFormat::Compatible)
    }

    /// Create (or truncate) a file in the given format.
    pub fn create_with(path: impl AsRef<Path>, format: FileFormat) -> Result<File> {
        let path = path.as_ref();
        not_a_directory(path)?;
        // A file another process has open is not truncated under it: lock it first.
        let mut lock = lock_file(path, WRITER_LOCK).map_err(at_path(path))?;
        let w = FileWriter::create(path, format)
            .map_err(Error::from)
            .map_err(at_path(path))?;
        if lock.is_none() {
            lock = lock_file(path, WRITER_LOCK).map_err(at_path(path))?;
        }
        Self::writable(w, OpenOptions::default(), lock)
    }

    /// Create a file, failing with [`ErrorKind::AlreadyExists`] if one exists (h5py's `w-`).
    pub fn create_new(path: impl AsRef<Path>) -> Result<File> {
        Self::create_new_with(path, FileFormat::Compatible)
    }

    /// [`File::create_new`] in the given format.
    pub fn create_new_with(path: impl AsRef<Path>, format: FileFormat) -> Result<File> {
        let path = path.as_ref();
        // Reserve the name atomically, then let the writer truncate what it just made.
        match h5_format::storage::FileStorage::create_new(path) {
            Ok(_) => Self::create_with(path, format),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(Error::new(
                ErrorKind::AlreadyExists,
                format!("{} exists", path.display()),
            )),
            Err(e) => Err(Error::from(e).at(path.display().to_string())),
        }
    }

    /// Open an existing file for reading and writing (h5py's `r+`), whatever format it
    /// uses. The file is modified where it is: objects keep their addresses, only what
    /// changes is written, the user block is kept (see `h5_io::write::FileWriter::open_rw`
    /// for what is refused and when a file is rewritten whole).
    pub fn open_rw(path: impl AsRef<Path>) -> Result<File> {
        let path = path.as_ref();
        not_a_directory(path)?;
        let lock = lock_file(path, WRITER_LOCK).map_err(at_path(path))?;
        let w = FileWriter::open_rw(path)
            .map_err(Error::from)
            .map_err(at_path(path))?;
        let f = Self::writable(w, OpenOptions::default(), lock)?;
        // Nothing changed yet: the reader can read the file as it is.
        f.shared.state.write().map_err(poisoned)?.dirty = false;
        Ok(f)
    }

    /// Open a file for reading and writing, creating it (compatible format) if it does not
    /// exist (h5py's `a`).
    pub fn append(path: impl AsRef<Path>) -> Result<File> {
        let path = path.as_ref();
        if path.exists() {
            Self::open_rw(path)
        } else {
            Self::create(path)
        }
    }

    /// How the file was opened.
    pub fn mode(&self) -> Mode {
        match self.shared.writer {
            Some(_) => Mode::ReadWrite,
            None => Mode::Read,
        }
    }

    /// Whether the file can be written.
    pub fn is_writable(&self) -> bool {
        self.mode() == Mode::ReadWrite
    }

    /// The file's path (`None` for a file in memory).
    pub fn path(&self) -> Option<&Path> {
        self.shared.path.as_deref()
    }

    /// The root group.
    pub fn root(&self) -> Result<Group> {
        Ok(self.root_group())
    }

    fn root_group(&self) -> Group {
        Group::at_root(self, self.shared.root)
    }

    /// Write everything changed so far: the file on disk is then complete. Nothing to do
    /// for a read-only file.
    pub fn flush(&self) -> Result<()> {
        let Some(w) = &self.shared.writer else {
            return Ok(());
        };
        let mut g = w.lock().map_err(poisoned)?;
        let w = g
            .as_mut()
            .ok_or_else(|| Error::new(ErrorKind::Closed, "the file was closed"))?;
        w.flush()?;
        Ok(())
    }

    /// Flush and close the file, reporting any error. Other handles of it fail with
    /// [`ErrorKind::Closed`] afterwards. (Dropping the last handle flushes too, printing
    /// any error to standard error.)
    pub fn close(self) -> Result<()> {
        let r = match &self.shared.writer {
            Some(w) => {
                let mut g = w.lock().map_err(poisoned)?;
                match g.take() {
                    Some(mut w) => w.shutdown().map_err(Error::from),
                    None => Ok(()),
                }
            }
            None => Ok(()),
        };
        let mut st = self.shared.state.write().map_err(poisoned)?;
        st.reader = None;
        st.dirty = false;
        st.generation += 1;
        if let Ok(mut l) = self.shared.lock.lock() {
            l.take();
        }
        r
    }

    /// The reader of the file as it is now (flushing the writer's changes first), and its
    /// generation: handles compare it to know whether what they decoded is still current.
    pub(crate) fn snapshot(&self) -> Result<(u64, h5_io::File)> {
        {
            let st = self.shared.state.read().map_err(poisoned)?;
            if !st.dirty {
                match &st.reader {
                    Some(r) => return Ok((st.generation, r.clone())),
                    // Not opened yet (a file opened for writing), unless closed.
                    None if self.shared.writer.is_some() => {}
                    None => return Err(closed()),
                }
            }
        }
        // Writer lock first, then the state (the order every writing path takes).
        let Some(w) = &self.shared.writer else {
            return Err(closed());
        };
        let mut wg = w.lock().map_err(poisoned)?;
        let mut st = self.shared.state.write().map_err(poisoned)?;
        if st.dirty || st.reader.is_none() {
            let w = wg.as_mut().ok_or_else(closed)?;
            if st.dirty {
                w.flush()?;
            }
            let path = self.shared.path.as_deref().ok_or_else(closed)?;
            // The writer's own file, marked open for SWMR writing once that started.
            let mut options = self.shared.options.clone();
            options.swmr |= w.is_swmr();
            st.reader = Some(
                h5_io::File::open_with(path, options)
                    .map_err(Error::from)
                    .map_err(at_path(path))?,
            );
            st.generation += 1;
            st.dirty = false;
        }
        match &st.reader {
            Some(r) => Ok((st.generation, r.clone())),
            None => Err(closed()),
        }
    }

    /// The current reader: the low-level layer's file (flushed first when changed).
    pub(crate) fn reader(&self) -> Result<h5_io::File> {
        Ok(self.snapshot()?.1)
    }

    /// Run `f` on the writer; an error of kind [`ErrorKind::ReadOnly`] for a read-only file.
    pub(crate) fn write<R>(
        &self,
        f: impl FnOnce(&mut FileWriter) -> h5_io::write::Result<R>,
    ) -> Result<R> {
        let mut g = self.lock_writer()?;
        let w = g.as_mut().ok_or_else(closed)?;
        let r = f(w);
        // Even a failed change may have changed the model.
        self.shared.state.write().map_err(poisoned)?.dirty = true;
        Ok(r?)
    }

    /// Run `f` on the writer without changing anything (queries of its model).
    pub(crate) fn query<R>(
        &self,
        f: impl FnOnce(&FileWriter) -> h5_io::write::Result<R>,
    ) -> Result<R> {
        let g = self.lock_writer()?;
        let w = g.as_ref().ok_or_else(closed)?;
        Ok(f(w)?)
    }

    fn lock_writer(&self) -> Result<MutexGuard<'_, Option<FileWriter>>> {
        match &self.shared.writer {
            Some(w) => w.lock().map_err(poisoned),
            None => Err(Error::new(
                ErrorKind::ReadOnly,
                match &self.shared.path {
                    Some(p) => format!("{} was opened read-only", p.display()),
                    None => "the file was opened read-only".to_owned(),
                },
            )),
        }
    }

    /// The writer's id of the object whose header is at `addr` (a writable file's own
    /// objects).
    pub(crate) fn writer_id(&self, addr: u64) -> Result<ObjId> {
        let g = self.lock_writer()?;
        let w = g.as_ref().ok_or_else(closed)?;
        w.object_at(addr).ok_or_else(|| {
            Error::new(
                ErrorKind::NotFound,
                format!("no object of this file at {addr:#x}"),
            )
        })
    }

    /// Whether two handles are of the same open file.
    pub fn same_file(&self, other: &File) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// The low-level reader of the file as it is now (flushed first when changed).
    pub fn inner(&self) -> Result<h5_io::File> {
        self.reader()
    }

    /// Run `f` on the low-level writer of a writable file (an error of kind
    /// [`ErrorKind::ReadOnly`] otherwise).
    pub fn with_writer<R>(
        &self,
        f: impl FnOnce(&mut FileWriter) -> h5_io::write::Result<R>,
    ) -> Result<R> {
        self.write(f)
    }
}

#[cold]
fn closed() -> Error {
    Error::new(ErrorKind::Closed, "the file was closed")
}

#[cold]
pub(crate) fn poisoned<T>(_: T) -> Error {
    Error::new(
        ErrorKind::Closed,
        "the file's state was left inconsistent by a panic in another thread",
    )
}

/// The root group's methods, on the file (as h5py's `File` is its root group).
macro_rules! root_methods {
    ($(
        $(#[$m:meta])*
        fn $name:ident $(<$g:ident: $b:path>)? (&self $(, $a:ident: $t:ty)*) -> $r:ty;
    )*) => {
        impl File {
            $(
                $(#[$m])*
                pub fn $name $(<$g: $b>)? (&self $(, $a: $t)*) -> $r {
                    self.root_group().$name($($a),*)
                }
            )*
        }
    };
}

root_methods! {
    /// The object at `path`, whatever its kind ([`Group::node`]).
    fn node(&self, path: &str) -> Result<Node>;
    /// The group at `path` ([`Group::group`]).
    fn group(&self, path: &str) -> Result<Group>;
    /// The dataset at `path` ([`Group::dataset`]).
    fn dataset(&self, path: &str) -> Result<Dataset>;
    /// The committed datatype at `path` ([`Group::datatype`]).
    fn datatype(&self, path: &str) -> Result<CommittedType>;
    /// Whether a link at `path` exists ([`Group::exists`]).
    fn exists(&self, path: &str) -> Result<bool>;
    /// How the root group stores its links.
    fn storage(&self) -> Result<LinkStorage>;
    /// The root group's links, in name order.
    fn links(&self) -> Result<Vec<Link>>;
    /// The root group's links, in creation order.
    fn links_by_creation_order(&self) -> Result<Vec<Link>>;
    /// The root group's link `name`.
    fn link(&self, name: &str) -> Result<Link>;
    /// The names of the root group's links, in name order.
    fn member_names(&self) -> Result<Vec<String>>;
    /// The names of the root group's links, in creation order.
    fn member_names_by_creation_order(&self) -> Result<Vec<String>>;
    /// The groups linked from the root group.
    fn groups(&self) -> Result<Vec<Group>>;
    /// The datasets linked from the root group.
    fn datasets(&self) -> Result<Vec<Dataset>>;
    /// The root group's attribute `name`.
    fn attr(&self, name: &str) -> Result<Attribute>;
    /// The root group's attributes, in name order.
    fn attrs(&self) -> Result<Vec<Attribute>>;
    /// The root group's attributes, in creation order.
    fn attrs_by_creation_order(&self) -> Result<Vec<Attribute>>;
    /// The root group's attribute names, in name order.
    fn attr_names(&self) -> Result<Vec<String>>;
    /// Whether the root group has an attribute `name`.
    fn has_attr(&self, name: &str) -> Result<bool>;
    /// Create a group (with missing intermediate groups) ([`Group::create_group`]).
    fn create_group(&self, path: &str) -> Result<Group>;
    /// Create a group with options ([`Group::create_group_with`]).
    fn create_group_with(&self, path: &str, options: GroupOptions) -> Result<Group>;
    /// Track the creation order of the root group's links (right after creating the file).
    fn set_link_order(&self, order: CreationOrder) -> Result<()>;
    /// Track the creation order of the root group's attributes.
    fn set_attr_order(&self, order: CreationOrder) -> Result<()>;
    /// Start building a dataset of `T` ([`Group::new_dataset`]).
    fn new_dataset<T: H5Type>(&self) -> DatasetBuilder<T>;
    /// Start building a dataset from its data ([`Group::new_dataset_builder`]).
    fn new_dataset_builder(&self) -> DatasetBuilderUntyped;
    /// Commit a datatype at `path` ([`Group::commit_datatype`]).
    fn commit_datatype(&self, path: &str, datatype: &Datatype) -> Result<CommittedType>;
    /// A soft link at `path` to `target`.
    fn link_soft(&self, target: &str, path: &str) -> Result<()>;
    /// An external link at `path` to `object` in `file`.
    fn link_external(&self, file: &str, object: &str, path: &str) -> Result<()>;
    /// A hard link at `path` to the object at `target`.
    fn link_hard(&self, target: &str, path: &str) -> Result<()>;
    /// Start building an attribute of `T` on the root group.
    fn new_attr<T: H5Type>(&self) -> AttrBuilder<T>;
    /// Remove the link at `path` ([`Group::unlink`]).
    fn unlink(&self, path: &str) -> Result<()>;
    /// Move the link at `from` to `to` ([`Group::rename`]).
    fn rename(&self, from: &str, to: &str) -> Result<()>;
    /// Copy the object at `src` into `dst` as `name` ([`Group::copy`]).
    fn copy(&self, src: &str, dst: &Group, name: &str) -> Result<Node>;
    /// Delete the root group's attribute `name`.
    fn delete_attr(&self, name: &str) -> Result<()>;
    /// Rename the root group's attribute `from` to `to`.
    fn rename_attr(&self, from: &str, to: &str) -> Result<()>;
}

impl File {
    /// Every object reachable by hard links from the root, each once, depth first in name
    /// order: its path, header address and kind.
    pub fn walk(&self) -> Result<Vec<(String, h5_format::Addr, ObjectKind)>> {
        Ok(self.reader()?.walk()?)
    }

    /// The object an object reference points at.
    pub fn deref_object(&self, r: ObjectRef) -> Result<Node> {
        let reader = self.reader()?;
        let n = reader.deref_object(r)?;
        let (loc, kind) = match &n {
            h5_io::Node::Group(g) => (g.location().clone(), ObjectKind::Group),
            h5_io::Node::Dataset(d) => (d.location().clone(), ObjectKind::Dataset),
            h5_io::Node::Datatype(t) => (t.location().clone(), ObjectKind::Datatype),
        };
        Node::of(Obj::from_location(self, &reader, &loc), kind)
    }

    /// The dataset and selection a region reference points at.
    pub fn deref_region(&self, r: &RegionRef) -> Result<(Dataset, Selection)> {
        let reader = self.reader()?;
        let (d, sel) = reader.deref_region(r)?;
        let obj = Obj::from_location(self, &reader, d.location());
        Ok((Dataset::from_obj(obj)?, sel))
    }
}
