//! Byte sources: where a file's bytes come from. The storage boundary is
//! [`h5_format::storage`]; these are its names as the reader has long spelled them.
//!
//! A [`ReadAt`] reads at an absolute position without moving a shared cursor, so any number of
//! threads can read one file at once with no lock: `pread` on a file descriptor, or a slice of
//! memory.

pub use h5_format::storage::{
    FamilyStorage as FamilySource, FileStorage as FileSource, MemStorage as MemSource,
    Storage as ReadAt,
};
