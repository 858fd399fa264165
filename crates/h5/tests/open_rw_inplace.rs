//! `File::open_rw` modifies files where they are: on h5py files of both formats (every chunk
//! index kind, dense groups, compact and dense attributes, object references, a user block,
//! creation-order tracking) the objects not changed keep their header bytes, changed ones
//! keep their addresses, references still dereference, and h5py and h5dump read the values
//! expected.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use h5_io::file::File as RawFile;
use h5_io::group::Location;
use h5_io::link::LinkTarget;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("h5-open-rw-inplace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn python(script: &str, args: &[&str]) -> Option<String> {
    let exe = h5_oracle::require("h5py", h5_oracle::h5py())?;
    let mut all = vec!["-c", script];
    all.extend_from_slice(args);
    let out = h5_oracle::run(&exe, &all, b"").unwrap_or_else(|e| panic!("python failed: {e}"));
    Some(String::from_utf8(out).unwrap())
}

/// Panic with the first offset where `a` and `b` differ.
fn same(a: &[u8], b: &[u8], what: &str) {
    if a != b {
        let at = a
            .iter()
            .zip(b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len()));
        panic!(
            "{what}: differ at byte {at} (lengths {} and {})",
            a.len(),
            b.len()
        );
    }
}

fn h5dump_ok(path: &Path) {
    if let Some(exe) = h5_oracle::require("h5dump", h5_oracle::tool("h5dump")) {
        h5_oracle::run(&exe, &[path.to_str().unwrap()], b"")
            .unwrap_or_else(|e| panic!("h5dump failed on {}: {e}", path.display()));
    }
}

/// Every object reachable from the root: path -> (header address, bytes of every header
/// chunk).
fn headers(path: &Path) -> BTreeMap<String, (u64, Vec<Vec<u8>>)> {
    let f = RawFile::open(path).unwrap();
    let bytes = std::fs::read(path).unwrap();
    let base = f.raw().base();
    let mut out = BTreeMap::new();
    let mut queue = vec![(f.root_address(), "/".to_owned())];
    let mut seen = std::collections::HashSet::new();
    while let Some((addr, p)) = queue.pop() {
        if !seen.insert(addr.0) {
            continue;
        }
        let obj = f.object(addr).unwrap();
        let chunks = (0..obj.header.chunks.len())
            .map(|i| {
                let at = (base + obj.header.chunks[i].address.0) as usize;
                bytes[at..at + obj.header.chunk_size(i)].to_vec()
            })
            .collect();
        out.insert(p.clone(), (addr.0, chunks));
        if obj.kind() == h5_io::object::ObjectKind::Group {
            let g = h5_io::group::Group::at(Location {
                file: f.clone(),
                addr,
                path: p.clone(),
            })
            .unwrap();
            for l in g.links().unwrap() {
                if let LinkTarget::Hard(a) = l.target {
                    let child = if p == "/" {
                        format!("/{}", l.name)
                    } else {
                        format!("{p}/{}", l.name)
                    };
                    queue.push((a, child));
                }
            }
        }
    }
    out
}

const MAKE: &str = r#"
import sys, h5py, numpy as np
path, libver = sys.argv[1], sys.argv[2]
ub = int(sys.argv[3]) if len(sys.argv) > 3 else 0
kw = {'userblock_size': ub} if ub else {}
f = h5py.File(path, 'w', libver=libver, **kw)
f.attrs['title'] = b'made by h5py'
f.attrs['n'] = 3
g = f.create_group('g')
g.create_dataset('contig', data=np.arange(10, dtype='<i4'))
g.create_dataset('earray', data=np.arange(12, dtype='<i4'), maxshape=(None,), chunks=(4,))
g.create_dataset('fixed', data=np.arange(16, dtype='<i4'), chunks=(4,), compression='gzip')
g.create_dataset('single', data=np.arange(6, dtype='<i4'), chunks=(6,))
dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
dcpl.set_chunk((5,))
dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
sp = h5py.h5s.create_simple((10,))
h5py.h5d.create(g.id, b'implicit', h5py.h5t.STD_I32LE, sp, dcpl=dcpl).write(
    h5py.h5s.ALL, h5py.h5s.ALL, np.arange(10, dtype='<i4'))
g.create_dataset('bt2', data=np.arange(16, dtype='<i4').reshape(4, 4),
                 maxshape=(None, None), chunks=(2, 2))
many = f.create_group('many')
for i in range(10):
    many.create_dataset('d%02d' % i, data=np.array([i], dtype='<i4'))
a = f.create_dataset('attrs', data=np.zeros(2, dtype='<i4'))
for i in range(12):
    a.attrs['a%02d' % i] = i
f.create_dataset('vstr', data=np.array([b'x', b'yz'], dtype=h5py.string_dtype('ascii')))
refs = f.create_dataset('refs', (3,), dtype=h5py.ref_dtype)
refs[0] = f['g/contig'].ref
refs[1] = f['many/d03'].ref
refs[2] = f['g'].ref
t = f.create_group('tracked', track_order=True)
for n in ['zz', 'aa', 'mm']:
    t.create_dataset(n, data=np.array([len(n)], dtype='<i4'))
t.attrs['second'] = 2
t.attrs['first'] = 1
f.close()
if ub:
    with open(path, 'r+b') as fh:
        fh.write(b'my user block')
"#;

const CHECK: &str = r#"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'r')
L = lambda d: np.asarray(d).tolist()
print(f.attrs['title'], int(f.attrs['n']))
for n in ['contig', 'earray', 'fixed', 'single', 'implicit']:
    print(n, L(f['g/' + n][:]))
print('bt2', f['g/bt2'].shape, L(f['g/bt2'][:]))
print(len(f['many']), int(f['many/d10'][()]), int(f['many/d03'][0]))
a = f['attrs']
print(len(a.attrs), int(a.attrs['a05']), int(a.attrs['a12']))
print([s.decode() for s in f['vstr'][:]])
print([f[r].name for r in f['refs'][:]])
print(list(f['tracked']), list(f['tracked'].attrs), L(f['tracked/mm'][:]))
print(L(f['new/ds'][:]), f['new/ds'].attrs['units'].decode())
"#;

const EXPECTED: &str = "made by h5py 4
contig [0, 1, 100, 101, 4, 5, 6, 7, 8, 9]
earray [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]
fixed [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, -15]
single [0, 1, 2, 3, 4, 55]
implicit [0, 1, 2, 3, 4, 5, 6, 77, 8, 9]
bt2 (5, 4) [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15], [90, 91, 92, 93]]
11 10 3
13 5 12
['x', 'yz']
['/g/contig', '/many/d03', '/g']
['zz', 'aa', 'mm', 'new'] ['second', 'first', 'third'] [-2]
[1.5, 2.5] m/s
";

/// The objects our changes touch (their headers may change; their addresses do not).
const CHANGED: &[&str] = &[
    "/",
    "/g/contig",
    "/g/earray",
    "/g/fixed",
    "/g/single",
    "/g/implicit",
    "/g/bt2",
    "/many",
    "/attrs",
    "/tracked",
    "/tracked/mm",
];

fn modify(path: &Path) {
    let f = h5::File::open_rw(path).unwrap();
    f.attr("n").unwrap().write(&[4]).unwrap();
    let g = f.group("g").unwrap();
    g.dataset("contig")
        .unwrap()
        .write_slab(&[2], &[2], &[100i32, 101])
        .unwrap();
    g.dataset("earray")
        .unwrap()
        .append(&(12..18).collect::<Vec<i32>>())
        .unwrap();
    g.dataset("fixed")
        .unwrap()
        .write_slab(&[15], &[1], &[-15i32])
        .unwrap();
    g.dataset("single")
        .unwrap()
        .write_slab(&[5], &[1], &[55i32])
        .unwrap();
    g.dataset("implicit")
        .unwrap()
        .write_slab(&[7], &[1], &[77i32])
        .unwrap();
    let b2 = g.dataset("bt2").unwrap();
    b2.resize(&[5, 4]).unwrap();
    b2.write_slab(&[4, 0], &[1, 4], &[90i32, 91, 92, 93])
        .unwrap();
    f.new_dataset::<i32>()
        .scalar()
        .create("many/d10")
        .unwrap()
        .write(&[10])
        .unwrap();
    f.dataset("attrs")
        .unwrap()
        .new_attr::<i32>()
        .create("a12")
        .unwrap()
        .write(&[12])
        .unwrap();
    f.dataset("attrs")
        .unwrap()
        .attr("a05")
        .unwrap()
        .write(&[5])
        .unwrap();
    // Creation order is kept: a new link and a new attribute of the tracked group come
    // last in creation order (the indexes continue the file's), the others keep theirs.
    f.dataset("tracked/mm").unwrap().write(&[-2i32]).unwrap();
    f.new_dataset::<i32>()
        .shape(&[1])
        .create("tracked/new")
        .unwrap()
        .write(&[9])
        .unwrap();
    f.group("tracked")
        .unwrap()
        .new_attr::<i32>()
        .create("third")
        .unwrap()
        .write(&[3])
        .unwrap();
    let ds = f
        .new_dataset::<f64>()
        .shape(&[2])
        .chunk(&[1])
        .deflate(4)
        .create("new/ds")
        .unwrap();
    ds.write(&[1.5, 2.5]).unwrap();
    type Units = h5::types::h5type::FixedAscii<3, h5::types::h5type::NullPad>;
    ds.new_attr::<Units>()
        .create("units")
        .unwrap()
        .write(&[Units::from_str_padded("m/s").unwrap()])
        .unwrap();
    f.close().unwrap();
}

fn check(libver: &str, userblock: u64) {
    let p = tmp(&format!("{libver}-{userblock}.h5"));
    let ub = userblock.to_string();
    if python(MAKE, &[p.to_str().unwrap(), libver, &ub]).is_none() {
        return;
    }
    let bytes_before = std::fs::read(&p).unwrap();
    // Opened and closed without a change: not a byte changes.
    h5::File::open_rw(&p).unwrap().close().unwrap();
    same(
        &std::fs::read(&p).unwrap(),
        &bytes_before,
        &format!("{libver}: open and close without a change"),
    );
    let before = headers(&p);
    modify(&p);
    let after = headers(&p);
    let bytes_after = std::fs::read(&p).unwrap();
    same(
        &bytes_after[..userblock as usize],
        &bytes_before[..userblock as usize],
        &format!("{libver}: the user block"),
    );
    for (path, (addr, chunks)) in &before {
        let (a2, c2) = after
            .get(path)
            .unwrap_or_else(|| panic!("{libver}: {path} is gone"));
        assert_eq!(addr, a2, "{libver}: {path} moved");
        if !CHANGED.contains(&path.as_str()) {
            assert_eq!(chunks.len(), c2.len(), "{libver}: {path} header chunks");
            for (a, b) in chunks.iter().zip(c2) {
                same(a, b, &format!("{libver}: untouched {path} header"));
            }
        }
    }
    // The bytes of the original file outside the changed headers and freed structures:
    // the raw data of untouched datasets is where it was (the file only grew).
    assert!(bytes_after.len() >= bytes_before.len());
    let out = python(CHECK, &[p.to_str().unwrap()]).unwrap();
    assert_eq!(out, EXPECTED, "{libver} user block {userblock}");
    h5dump_ok(&p);
    // Again, on the file we changed.
    let f = h5::File::open_rw(&p).unwrap();
    f.dataset("g/earray").unwrap().append(&[18i32, 19]).unwrap();
    f.close().unwrap();
    let out = python(
        "import sys,h5py\nf=h5py.File(sys.argv[1])\nprint(f['g/earray'][:].tolist()[-3:], len(f['many']))",
        &[p.to_str().unwrap()],
    )
    .unwrap();
    assert_eq!(out.trim(), "[17, 18, 19] 11");
    h5dump_ok(&p);
}

#[test]
fn h5py_compatible_file_modified_in_place() {
    check("earliest", 0);
}

#[test]
fn h5py_latest_file_modified_in_place() {
    check("latest", 0);
}

#[test]
fn user_block_is_kept() {
    check("earliest", 512);
    check("latest", 1024);
}

#[test]
fn files_in_place_cannot_extend_are_rewritten_whole() {
    // 4-byte offsets and lengths: this writer writes 8-byte ones, so the file is rewritten
    // (objects move; the values stay).
    let p = tmp("sizes4.h5");
    let script = r#"
import sys, h5py, numpy as np
fcpl = h5py.h5p.create(h5py.h5p.FILE_CREATE)
fcpl.set_sizes(4, 4)
f = h5py.File(h5py.h5f.create(sys.argv[1].encode(), fcpl=fcpl))
f['x'] = np.arange(3, dtype='<i4')
f.close()
"#;
    if python(script, &[p.to_str().unwrap()]).is_none() {
        return;
    }
    assert_eq!(RawFile::open(&p).unwrap().sizes().offset, 4);
    let f = h5::File::open_rw(&p).unwrap();
    f.new_dataset::<i32>()
        .shape(&[1])
        .create("y")
        .unwrap()
        .write(&[9])
        .unwrap();
    f.close().unwrap();
    assert_eq!(RawFile::open(&p).unwrap().sizes().offset, 8);
    let out = python(
        "import sys,h5py\nf=h5py.File(sys.argv[1])\nprint(f['x'][:].tolist(), f['y'][:].tolist())",
        &[p.to_str().unwrap()],
    )
    .unwrap();
    assert_eq!(out.trim(), "[0, 1, 2] [9]");
    h5dump_ok(&p);
}

#[test]
fn shrinking_a_dataset_read_from_the_file_drops_its_data() {
    for libver in ["earliest", "latest"] {
        let p = tmp(&format!("shrink-{libver}.h5"));
        let script = "import sys, h5py, numpy as np\nf = h5py.File(sys.argv[1], 'w', libver=sys.argv[2])\nf.create_dataset('d', data=np.arange(1, 13, dtype='<i4'), maxshape=(None,), chunks=(4,), fillvalue=-1)\nf.close()\n";
        if python(script, &[p.to_str().unwrap(), libver]).is_none() {
            return;
        }
        let f = h5::File::open_rw(&p).unwrap();
        let d = f.dataset("d").unwrap();
        d.resize(&[6]).unwrap();
        d.resize(&[12]).unwrap();
        f.close().unwrap();
        let out = python(
            "import sys,h5py\nprint(h5py.File(sys.argv[1])['d'][:].tolist())",
            &[p.to_str().unwrap()],
        )
        .unwrap();
        assert_eq!(
            out.trim(),
            "[1, 2, 3, 4, 5, 6, -1, -1, -1, -1, -1, -1]",
            "{libver}"
        );
        h5dump_ok(&p);
    }
}

/// Groups whose symbol tables move (a compatible-format file changed in place): the
/// symbol-table entries of their parents, which cache where the tables are, follow them,
/// though nothing else of the parents changed; the file walks clean and h5py reads it.
#[test]
fn parents_cache_the_moved_symbol_tables_of_their_children() {
    let p = tmp("nested-earliest.h5");
    let make = "import sys, h5py, numpy as np\n\
                f = h5py.File(sys.argv[1], 'w', libver='earliest')\n\
                b = f.create_group('a').create_group('b')\n\
                b['x'] = np.arange(3)\n\
                f.create_group('a/c/d')\n\
                f.close()\n";
    if python(make, &[p.to_str().unwrap()]).is_none() {
        return;
    }
    let f = h5::File::open_rw(&p).unwrap();
    for i in 0..20 {
        f.new_dataset::<i32>()
            .shape(&[1])
            .create(&format!("a/b/y{i}"))
            .unwrap()
            .write(&[i])
            .unwrap();
    }
    f.create_group("a/c/d/e").unwrap();
    f.close().unwrap();
    let report = h5::format::walk::walk(&std::fs::read(&p).unwrap());
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    let out = python(
        "import sys, h5py\nf = h5py.File(sys.argv[1], 'r')\nprint(len(f['a/b']), int(f['a/b/y7'][0]), list(f['a/c/d']))",
        &[p.to_str().unwrap()],
    )
    .unwrap();
    assert_eq!(out.trim(), "21 7 ['e']");
    h5dump_ok(&p);
}

/// A cycle of groups (a hard link back to an ancestor) in the compatible format, where each
/// symbol table caches where the other's is: written new, then changed in place, the caches
/// settle and the file walks clean.
#[test]
fn cycles_of_groups_settle() {
    let p = tmp("cycle-earliest.h5");
    let f = h5::File::create(&p).unwrap();
    f.create_group("a/b").unwrap();
    f.link_hard("/a", "a/b/up").unwrap();
    f.close().unwrap();
    let walk = |p: &Path| h5::format::walk::walk(&std::fs::read(p).unwrap()).problems;
    assert!(walk(&p).is_empty(), "{:?}", walk(&p));
    let f = h5::File::open_rw(&p).unwrap();
    for i in 0..12 {
        f.create_group(&format!("a/b/up/n{i}")).unwrap();
    }
    f.close().unwrap();
    assert!(walk(&p).is_empty(), "{:?}", walk(&p));
    let r = h5::File::open(&p).unwrap();
    assert_eq!(r.group("a/b/up/b/up").unwrap().links().unwrap().len(), 13);
    h5dump_ok(&p);
}
