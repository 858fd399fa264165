//! Target `selection_reference`: dataspace selections (every type and version), references
//! (revised, stored, object and region, region data in global heaps) and virtual dataset
//! mappings.

use arbitrary::Unstructured;
use h5_format::reference::{
    ObjectReference, Reference, RegionReference, RegionReferenceData, StoredReference,
};
use h5_format::selection::Selection;
use h5_format::vds::VirtualMappings;
use h5_format::Cursor;

/// Parse the input as the structure the configuration selects; round-trip it.
pub fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let (cfg, data) = crate::split(u)?;
    let sizes = crate::sizes_of(cfg);
    let c = || Cursor::new(data, 0, sizes);
    match (cfg >> 4) % 4 {
        0 => {
            if let Ok(s) = Selection::parse(&mut c()) {
                let _ = s.rank();
                let _ = s.encoded_size();
                crate::roundtrip("selection", &s, sizes, |s, w| s.encode(w), Selection::parse);
            }
        }
        1 => {
            if let Ok(r) = Reference::parse(&mut c()) {
                let _ = r.token_address(sizes);
                crate::roundtrip("reference", &r, sizes, |r, w| r.encode(w), Reference::parse);
            }
            if let Ok(r) = StoredReference::parse(&mut c()) {
                crate::roundtrip(
                    "stored reference",
                    &r,
                    sizes,
                    |r, w| r.encode(w),
                    StoredReference::parse,
                );
            }
        }
        2 => {
            if let Ok(r) = ObjectReference::parse(&mut c()) {
                crate::roundtrip(
                    "object reference",
                    &r,
                    sizes,
                    |r, w| r.encode(w),
                    ObjectReference::parse,
                );
            }
            if let Ok(r) = RegionReference::parse(&mut c()) {
                crate::roundtrip(
                    "region reference",
                    &r,
                    sizes,
                    |r, w| r.encode(w),
                    RegionReference::parse,
                );
            }
            if let Ok(r) = RegionReferenceData::parse(&mut c()) {
                crate::roundtrip(
                    "region reference data",
                    &r,
                    sizes,
                    |r, w| r.encode(w),
                    RegionReferenceData::parse,
                );
            }
        }
        _ => {
            if let Ok(m) = VirtualMappings::parse(&mut c()) {
                crate::roundtrip(
                    "virtual dataset mappings",
                    &m,
                    sizes,
                    |m, w| m.encode(w),
                    VirtualMappings::parse,
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use h5_format::heap::global::GlobalHeapCollection;
    use h5_format::Cursor;

    #[test]
    fn smoke() {
        // Global heap objects of the corpus: region reference data and VDS mappings.
        let mut seeds = Vec::new();
        for s in crate::smoke::signature_seeds(&[b"GCOL"], 1 << 16) {
            let Ok(g) = GlobalHeapCollection::parse(&mut Cursor::new(
                &s[1..],
                0,
                h5_format::Sizes::DEFAULT,
            )) else {
                continue;
            };
            for o in g.objects.iter().take(8) {
                for cfg in [0x20u8, 0x30] {
                    let mut v = vec![cfg];
                    v.extend_from_slice(&o.data);
                    seeds.push(v);
                }
                // The selection inside a region reference (after its address).
                if o.data.len() > 8 {
                    let mut v = vec![0x00];
                    v.extend_from_slice(&o.data[8..]);
                    seeds.push(v);
                }
            }
        }
        crate::smoke::run("selection_reference", super::run, &seeds, 6000);
    }
}
