//! The byte level of HDF5: every on-disk structure, parsed from and encoded to byte slices.
//!
//! Structures are pure functions over bytes: `parse(&mut Cursor, ...) -> Result<Self>` and
//! `encode(&self, &mut Writer, ...)`. A [`Cursor`] knows the absolute file offset of its slice
//! and the superblock's [`Sizes`], so every error names the structure and the offset. File
//! data is hostile: nothing here panics, loops without bound or allocates by a file field
//! before checking it against the data available and [`limits`].
#![forbid(unsafe_code)]

pub mod addr;
mod bits;
pub mod btree;
pub mod checksum;
pub mod chunk_index;
pub mod cursor;
pub mod error;
pub mod free_space;
pub mod heap;
pub mod limits;
pub mod onion;
pub mod reference;
pub mod selection;
pub mod storage;
pub mod symbol_table;
pub mod vds;
pub mod walk;

// Level 0 and level 2 (format-a).
pub mod driver_info;
pub mod message;
pub mod object_header;
pub mod superblock;
pub mod symbol_table_entry;

pub use addr::{Addr, Sizes};
pub use cursor::{Cursor, Writer};
pub use error::{Error, ErrorKind, Result};
