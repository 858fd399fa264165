//! Target `walk`: the whole-file validation walk ([`h5_format::walk`]) over a file. The
//! input is the file; it must never panic, and what it reports must not depend on reading
//! the file from memory or through a storage.

use arbitrary::Unstructured;
use h5_format::storage::SliceStorage;
use h5_format::walk::{self, Options};

/// Walk the input as a file, from memory and through a storage; both agree.
pub fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let n = u.len();
    let data = u.bytes(n)?;
    let opts = Options {
        max_objects: 1 << 12,
        max_structures: 1 << 16,
        max_depth: 64,

        ..Options::default()
    };
    let a = walk::walk_with(data, &opts);
    let b = walk::walk_storage(&SliceStorage(data), &opts);
    assert_eq!(a, b, "the walk differs between memory and a storage");
    for p in &a.problems {
        let _ = p.to_string();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn smoke() {
        // Corpus files (the mutations of them are the interesting inputs) and random bytes
        // behind a superblock signature.
        let seeds = crate::smoke::corpus_files(1 << 15);
        let mut rng = crate::smoke::Rng::new(99);
        let mut extra = Vec::new();
        for _ in 0..200 {
            let mut v = h5_format::superblock::SIGNATURE.to_vec();
            let n = rng.below(2048);
            v.extend(rng.bytes(n));
            extra.push(v);
        }
        let mut all = seeds;
        all.extend(extra);
        crate::smoke::run("walk", super::run, &all, 2000);
    }
}
