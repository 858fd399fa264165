//! Every cap on a size, count or depth that comes from a file, in one place. Parsers check a
//! file-supplied number against these (and against the bytes actually available) before
//! allocating or looping on it.

/// Most messages in one object header (all its chunks). Above 65,535 (the count a version 1
/// prefix holds): the reference library writes and reads headers with more, e.g. as many
/// compact attributes; each message takes at least 4 bytes of the chunks read.
pub const MAX_HEADER_MESSAGES: usize = 1 << 21;
/// Most continuation chunks followed for one object header.
pub const MAX_HEADER_CHUNKS: usize = 1 << 12;
/// Largest dataspace rank (`H5S_MAX_RANK`).
pub const MAX_RANK: usize = 32;
/// Deepest nesting of datatypes (array of compound of vlen ...).
pub const MAX_DATATYPE_DEPTH: usize = 64;
/// Most members of one compound or enum datatype.
pub const MAX_MEMBERS: usize = 1 << 16;
/// Longest name (link, attribute, member) accepted.
pub const MAX_NAME_LEN: usize = 1 << 16;
/// Deepest B-tree (v1 or v2) walked.
pub const MAX_BTREE_DEPTH: usize = 64;
/// Most entries in one B-tree node.
pub const MAX_BTREE_ENTRIES: usize = 1 << 16;
/// Most filters in one pipeline.
pub const MAX_FILTERS: usize = 32;
/// Most client data values of one filter.
pub const MAX_FILTER_CLIENT_VALUES: usize = 1 << 12;
/// Largest single metadata structure read in one piece (heap data block, header chunk...).
pub const MAX_METADATA_BLOCK: u64 = 1 << 30;
/// Largest chunk (bytes, after filters) accepted; HDF5's own limit is 4 GiB - 1.
pub const MAX_CHUNK_BYTES: u64 = u32::MAX as u64;
/// Deepest fractal heap indirect block nesting / doubling table rows.
pub const MAX_FRACTAL_HEAP_ROWS: usize = 64;
/// Most points in a point selection or blocks in a hyperslab selection.
pub const MAX_SELECTION_ELEMENTS: u64 = 1 << 32;
/// Largest extensible/fixed array element count considered.
pub const MAX_ARRAY_INDEX_ELEMENTS: u64 = 1 << 40;

/// Most object headers a whole-file walk ([`crate::walk`]) visits.
pub const MAX_WALK_OBJECTS: usize = 1 << 20;
/// Most structures (B-tree nodes, heap blocks, chunk records...) a whole-file walk visits.
pub const MAX_WALK_STRUCTURES: usize = 1 << 24;
/// Deepest group nesting a whole-file walk follows.
pub const MAX_WALK_DEPTH: usize = 256;
/// Most problems a whole-file walk records (later ones are counted, not kept).
pub const MAX_WALK_PROBLEMS: usize = 10_000;
/// Most bytes of raw data (compact, contiguous and chunked storage, attribute values) a
/// whole-file walk reads to find variable-length values and references (256 MiB).
pub const MAX_WALK_DATA_BYTES: u64 = 1 << 28;
/// Most heap IDs and references (variable-length values, region and object references) a
/// whole-file walk follows.
pub const MAX_WALK_REFERENCES: usize = 1 << 20;
/// Most places that hold a heap ID or a reference in one element of a datatype (an array of
/// variable-length values counts each); a walk looks at no more of them.
pub const MAX_WALK_ELEMENT_SLOTS: usize = 1 << 16;
/// Bytes of global heap collections a whole-file walk keeps parsed at once (64 MiB).
pub const MAX_WALK_GLOBAL_HEAP_CACHE: u64 = 1 << 26;

/// Check that `count` items of `item_size` bytes can come from `available` bytes and stay
/// under `cap` items; the number to allocate, or why not.
pub fn check_count(count: u64, item_size: u64, available: u64, cap: u64) -> Result<usize, String> {
    if count > cap {
        return Err(format!("count {count} exceeds the limit {cap}"));
    }
    let need = count
        .checked_mul(item_size)
        .ok_or_else(|| format!("count {count} times {item_size} bytes overflows"))?;
    if need > available {
        return Err(format!("count {count} of {item_size}-byte items needs {need} bytes, only {available} available"));
    }
    usize::try_from(count).map_err(|_| format!("count {count} does not fit in memory"))
}
