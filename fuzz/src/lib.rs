//! Fuzz targets. Each module has `run(&mut Unstructured)`; the binaries under `fuzz_targets/`
//! call it under `cfg(fuzzing)`, and a seeded `smoke` test calls it under `cargo test`.
//!
//! Every target reads one configuration byte first (the superblock sizes to parse with and
//! which parser of its family to use), then hands the rest of the input to the parsers as
//! structure bytes. Where a parse succeeds, the value is encoded and parsed again, and the
//! two values must be equal: a mismatch is a bug of the parser or the encoder.
#![forbid(unsafe_code)]

pub mod btree;
pub mod chunk_index;
pub mod datatype_message;
pub mod filters;
pub mod heap;
pub mod object_header;
pub mod onion;
pub mod selection_reference;
pub mod superblock;
pub mod walk;

use std::fmt::Debug;

use arbitrary::Unstructured;
use h5_format::{Cursor, Sizes, Writer};

/// The signature of every target's `run`.
pub type Target = fn(&mut Unstructured<'_>) -> arbitrary::Result<()>;

/// The superblock sizes selected by the low four bits of a configuration byte.
pub fn sizes_of(cfg: u8) -> Sizes {
    const W: [u8; 4] = [8, 4, 2, 8];
    Sizes {
        offset: W[(cfg & 3) as usize],
        length: W[((cfg >> 2) & 3) as usize],
    }
}

/// The configuration byte and the structure bytes of an input.
pub fn split<'a>(u: &mut Unstructured<'a>) -> arbitrary::Result<(u8, &'a [u8])> {
    let cfg: u8 = u.arbitrary()?;
    let n = u.len();
    Ok((cfg, u.bytes(n)?))
}

/// Encode `x`, parse the encoding back, and assert the value is unchanged.
pub fn roundtrip<T: PartialEq + Debug>(
    what: &str,
    x: &T,
    sizes: Sizes,
    encode: impl FnOnce(&T, &mut Writer),
    parse: impl FnOnce(&mut Cursor<'_>) -> h5_format::Result<T>,
) {
    let mut w = Writer::new(sizes);
    encode(x, &mut w);
    let bytes = w.into_vec();
    match parse(&mut Cursor::new(&bytes, 0, sizes)) {
        Ok(y) => assert_eq!(*x, y, "{what}: encode-then-parse changed the value"),
        Err(e) => panic!("{what}: the encoding of {x:?} does not parse: {e}"),
    }
}

/// The reproducer runner of the fuzz target binaries outside `cfg(fuzzing)`: run `target`
/// over every file named on the command line (directories: every file in them).
pub fn reproduce(target: Target) {
    let mut files = Vec::new();
    for a in std::env::args_os().skip(1) {
        let p = std::path::PathBuf::from(a);
        match std::fs::read_dir(&p) {
            Ok(rd) => files.extend(rd.filter_map(|e| e.ok().map(|e| e.path()))),
            Err(_) => files.push(p),
        }
    }
    if files.is_empty() {
        eprintln!("usage: TARGET FILE|DIR...  (runs the fuzz target over each input)");
        std::process::exit(2);
    }
    for f in files {
        let data = match std::fs::read(&f) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{}: {e}", f.display());
                std::process::exit(2);
            }
        };
        let _ = target(&mut Unstructured::new(&data));
        println!("{}: ok", f.display());
    }
}

/// Seeded smoke runs of the targets under `cargo test`.
#[cfg(test)]
pub(crate) mod smoke {
    use super::Target;
    use arbitrary::Unstructured;
    use std::path::{Path, PathBuf};

    /// splitmix64: a small fixed-seed generator, so every run sees the same inputs.
    pub struct Rng(u64);

    impl Rng {
        pub fn new(seed: u64) -> Self {
            Rng(seed)
        }

        pub fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        pub fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }

        pub fn bytes(&mut self, n: usize) -> Vec<u8> {
            (0..n).map(|_| self.next() as u8).collect()
        }
    }

    /// Flip, overwrite, insert or delete a few bytes.
    pub fn mutate(rng: &mut Rng, d: &mut Vec<u8>) {
        for _ in 0..1 + rng.below(4) {
            if d.is_empty() {
                d.push(rng.next() as u8);
                continue;
            }
            let i = rng.below(d.len());
            match rng.below(6) {
                0 => d[i] ^= 1 << rng.below(8),
                1 => d[i] = rng.next() as u8,
                2 => d[i] = *[0u8, 0xff, 1, 0x7f, 0x80].get(rng.below(5)).unwrap_or(&0),
                3 => d.insert(i, rng.next() as u8),
                4 => {
                    d.remove(i);
                }
                _ => {
                    let end = (i + 8).min(d.len());
                    for b in &mut d[i..end] {
                        *b = 0xff;
                    }
                }
            }
        }
    }

    pub fn shared_corpus(sub: &str) -> Option<PathBuf> {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .map(|a| a.join("shared/corpus").join(sub))
            .find(|p| p.is_dir())
    }

    /// The corpus's `.h5` files of at most `max` bytes.
    pub fn corpus_files(max: usize) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for sub in ["h5dump", "h5dump-develop", "bad"] {
            let Some(dir) = shared_corpus(sub) else {
                continue;
            };
            let Ok(rd) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut paths: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "h5"))
                .collect();
            paths.sort();
            for p in paths {
                if let Ok(d) = std::fs::read(&p) {
                    if d.len() <= max {
                        out.push(d);
                    }
                }
            }
        }
        out
    }

    /// Seeds for a structure parser: the bytes at every occurrence of `sig` in the corpus
    /// (at most `len` of them), prefixed by a configuration byte (8-byte sizes).
    pub fn signature_seeds(sigs: &[&[u8]], len: usize) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for f in corpus_files(1 << 20) {
            for sig in sigs {
                let mut from = 0;
                while let Some(i) = f[from..]
                    .windows(sig.len())
                    .position(|w| w == *sig)
                    .map(|i| i + from)
                {
                    let mut s = vec![0u8];
                    s.extend_from_slice(&f[i..(i + len).min(f.len())]);
                    out.push(s);
                    from = i + 1;
                    if out.len() >= 400 {
                        return out;
                    }
                }
            }
        }
        out
    }

    /// The committed crash inputs of a target (`fuzz/regressions/<target>/`).
    pub fn regressions(target: &str) -> Vec<Vec<u8>> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("regressions")
            .join(target);
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        v.sort();
        v.iter().filter_map(|p| std::fs::read(p).ok()).collect()
    }

    /// Run `target` over the regressions, the seeds and mutations of them, and `iterations`
    /// random inputs from a fixed seed.
    pub fn run(name: &str, target: Target, seeds: &[Vec<u8>], iterations: usize) {
        let mut rng = Rng::new(0x5eed_0000 ^ name.len() as u64);
        for r in regressions(name) {
            let _ = target(&mut Unstructured::new(&r));
        }
        for s in seeds {
            let _ = target(&mut Unstructured::new(s));
            for _ in 0..4 {
                let mut m = s.clone();
                mutate(&mut rng, &mut m);
                let _ = target(&mut Unstructured::new(&m));
            }
        }
        for i in 0..iterations {
            let n = rng.below(if i % 8 == 0 { 4096 } else { 256 });
            let d = rng.bytes(n);
            let _ = target(&mut Unstructured::new(&d));
        }
    }
}
