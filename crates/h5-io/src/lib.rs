//! HDF5 files: groups, datasets, attributes, filters and selections.
#![forbid(unsafe_code)]

#[cfg(feature = "ndarray")]
mod array;
pub mod attribute;
mod chunk_cache;
mod chunks;
pub mod compare;
pub mod dataset;
pub mod error;
pub mod external;
pub mod file;
pub mod filter;
pub mod group;
pub mod link;
pub mod lock;
pub mod object;
pub mod onion;
pub mod raw;
pub mod reader;
pub mod reference;
pub mod selection;
pub mod source;
pub mod stats;
mod vds;
pub mod vlen;

pub use attribute::Attribute;
pub use chunks::{ChunkLocation, StoredChunk};
pub use dataset::{AllocTime, Dataset, FillTime, FillValue};
pub use error::{Error, ErrorKind, Result};
pub use file::{File, OpenOptions};
pub use group::{Group, Location, NamedDatatype, Node};
pub use link::{Link, LinkStorage, LinkTarget};
pub use object::ObjectKind;
pub use reader::{AttributeReader, DatasetReader};
pub mod write;
