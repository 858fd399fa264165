//! Global heap collections for variable-length data and region references.

use h5_format::heap::global::{
    header_size, object_header_size, GlobalHeapCollection, GlobalHeapId, GlobalHeapObject,
    MIN_COLLECTION_SIZE,
};
use h5_format::{Addr, Writer};

use super::file::{align8, FileWriter};
use super::Result;

/// The collections written so far; objects are appended to the last one while it has room.
#[derive(Debug, Default)]
pub(crate) struct GlobalHeap {
    collections: Vec<(u64, GlobalHeapCollection)>,
}

impl FileWriter {
    /// Store `data` as a new global heap object and return its id. The collection is
    /// re-encoded into the image at once.
    pub(crate) fn gheap_insert(&mut self, data: Vec<u8>) -> Result<GlobalHeapId> {
        let sizes = self.sizes;
        let need = object_header_size(sizes) as u64 + align8(data.len() as u64);
        let fits = self.gheap.collections.last().is_some_and(|(_, c)| {
            c.objects.len() < (u16::MAX - 1) as usize
                && c.free_space(sizes) >= need
                && (c.free_space(sizes) - need == 0
                    || c.free_space(sizes) - need >= object_header_size(sizes) as u64)
        });
        if !fits {
            let size = (header_size(sizes) as u64 + need + object_header_size(sizes) as u64)
                .max(MIN_COLLECTION_SIZE);
            let size = size.div_ceil(4096) * 4096;
            let addr = self.alloc(size);
            self.gheap.collections.push((
                addr,
                GlobalHeapCollection {
                    collection_size: size,
                    objects: Vec::new(),
                },
            ));
        }
        let Some((addr, coll)) = self.gheap.collections.last_mut() else {
            super::bail!(Format, "no global heap collection");
        };
        let index = coll.objects.len() as u16 + 1;
        coll.objects.push(GlobalHeapObject {
            index,
            reference_count: 0,
            data,
        });
        let mut w = Writer::new(sizes);
        coll.encode(&mut w);
        let at = *addr;
        self.put(at, w.as_slice())?;
        Ok(GlobalHeapId {
            collection: Addr(at),
            index: u32::from(index),
        })
    }
}
