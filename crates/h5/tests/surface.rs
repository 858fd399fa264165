//! The user-facing surface, through the facade only, against h5py: an instrument-like file
//! h5py wrote, walked, read whole, sliced the numpy way (each slice compared with numpy's
//! result for the same slice on the same array), read into buffers; a file written from
//! ndarray arrays and views, appended to, partly overwritten and read back through the same
//! handle before closing, then read by h5py; the error kinds; the builder's checks.

use std::path::{Path, PathBuf};

use h5::{s, ErrorKind, FileFormat, H5Type};
use ndarray::{Array1, Array2, Array3, ArrayD, IxDyn};

mod write_support;

use write_support::{py, FORMATS};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("h5-surface-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Run a Python script with h5py and numpy (`sys.argv[1]` = `path`); its stdout, or `None`
/// when h5py is unavailable.
fn python(path: &Path, script: &str) -> Option<String> {
    let exe = h5_oracle::require("h5py", h5_oracle::h5py())?;
    let full = format!("import sys, h5py, numpy as np\n{script}\n");
    let out = h5_oracle::run(&exe, &["-c", &full, path.to_str().unwrap()], b"")
        .unwrap_or_else(|e| panic!("python failed: {e}"));
    Some(String::from_utf8(out).unwrap())
}

/// The instrument file: nested groups, a 3-D chunked gzip dataset, strings, attributes of
/// several kinds, a compound, an enum, object references, soft and external links.
const MAKE_INSTRUMENT: &str = r#"
p = sys.argv[1]
with h5py.File(p.replace('.h5', '-other.h5'), 'w') as o:
    o['x'] = np.arange(5, dtype='i4')
with h5py.File(p, 'w') as f:
    f.attrs['title'] = 'scan 42'
    f.attrs['version'] = np.int32(3)
    e = f.create_group('entry')
    e.attrs['start'] = np.float64(1.5)
    e.attrs['roi'] = np.array([10, 20, 30, 40], dtype='u2')
    e.attrs['label'] = np.bytes_(b'fixed label')
    det = e.create_group('instrument/detector')
    data = (np.arange(6 * 20 * 30, dtype='f4').reshape(6, 20, 30) * 0.5 - 100)
    d = det.create_dataset('data', data=data, chunks=(1, 20, 15), compression='gzip', compression_opts=4, shuffle=True)
    d.attrs['units'] = 'counts'
    det.create_dataset('names', data=['alpha', 'beta', 'gamma ünï'], dtype=h5py.string_dtype())
    det.create_dataset('codes', data=np.array([b'AB', b'CD'], dtype='S2'))
    cmp = np.dtype([('t', '<f8'), ('ch', '<u2'), ('e', '<f4')])
    rec = np.zeros(4, dtype=cmp)
    rec['t'] = [0.5, 1.5, 2.5, 3.5]; rec['ch'] = [1, 2, 3, 4]; rec['e'] = [10, 20, 30, 40]
    e.create_dataset('events', data=rec)
    st = h5py.enum_dtype({'OFF': 0, 'ON': 1, 'FAULT': 7}, basetype='i1')
    e.create_dataset('state', data=np.array([0, 1, 7, 1], dtype='i1'), dtype=st)
    refs = e.create_dataset('refs', (2,), dtype=h5py.ref_dtype)
    refs[0] = d.ref
    refs[1] = det.ref
    e['data_link'] = h5py.SoftLink('/entry/instrument/detector/data')
    e['ext'] = h5py.ExternalLink(p.replace('.h5', '-other.h5').split('/')[-1], '/x')
    f.create_dataset('scalar', data=np.float64(2.25))
"#;

fn instrument() -> Option<PathBuf> {
    let p = scratch("instrument.h5");
    python(&p, MAKE_INSTRUMENT)?;
    Some(p)
}

#[derive(H5Type, Debug, PartialEq)]
#[repr(C)]
struct Event {
    t: f64,
    ch: u16,
    e: f32,
}

#[test]
fn instrument_file_walked_and_read() {
    let Some(p) = instrument() else { return };
    let f = h5::File::open(&p).unwrap();
    // Walk: every object once, as h5py's visititems sees them (it skips soft links too).
    let mut ours: Vec<String> = f.walk().unwrap().into_iter().map(|(p, _, _)| p).collect();
    ours.retain(|p| p != "/");
    ours.sort();
    let theirs = python(
        &p,
        "names = []\nh5py.File(sys.argv[1], 'r').visit(lambda n: names.append('/' + n))\nprint('\\n'.join(sorted(names)))",
    )
    .unwrap();
    assert_eq!(ours.join("\n"), theirs.trim());
    // Attributes of several kinds.
    assert_eq!(f.attr("version").unwrap().read_scalar::<i32>().unwrap(), 3);
    let e = f.group("entry").unwrap();
    assert_eq!(e.attr("start").unwrap().read_scalar::<f64>().unwrap(), 1.5);
    assert_eq!(
        e.attr("roi").unwrap().read::<u32>().unwrap(),
        [10, 20, 30, 40]
    );
    let roi: Array1<u16> = e.attr("roi").unwrap().read_array().unwrap();
    assert_eq!(roi.len(), 4);
    assert_eq!(
        e.attr_names().unwrap(),
        ["label", "roi", "start"],
        "attribute names in name order"
    );
    // The 3-D chunked gzip dataset: whole, as an array of any rank, through the soft link.
    let d = f.dataset("/entry/instrument/detector/data").unwrap();
    assert_eq!(d.shape(), [6, 20, 30]);
    assert_eq!(d.chunk_dims(), Some(vec![1, 20, 15]));
    let whole: Array3<f32> = d.read_array().unwrap();
    let anyrank: ArrayD<f64> = f.dataset("entry/data_link").unwrap().read_array().unwrap();
    assert_eq!(anyrank.shape(), [6, 20, 30]);
    assert_eq!(whole[[5, 19, 29]], (6 * 20 * 30 - 1) as f32 * 0.5 - 100.0);
    assert_eq!(anyrank[[5, 19, 29]], whole[[5, 19, 29]] as f64);
    // Into a buffer, twice (no allocation for the values).
    let mut buf = vec![0f32; 6 * 20 * 30];
    d.read_into(&mut buf).unwrap();
    d.read_into(&mut buf).unwrap();
    assert_eq!(buf, whole.iter().copied().collect::<Vec<_>>());
    assert_eq!(
        d.read_into(&mut [0f32; 7]).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    // Compound, enum, references, external link, scalar.
    let ev: Vec<Event> = e.dataset("events").unwrap().read().unwrap();
    assert_eq!(
        ev[2],
        Event {
            t: 2.5,
            ch: 3,
            e: 30.0
        }
    );
    assert_eq!(
        e.dataset("state").unwrap().read::<i8>().unwrap(),
        [0, 1, 7, 1]
    );
    let refs: Vec<h5::ObjectRef> = e.dataset("refs").unwrap().read().unwrap();
    match f.deref_object(refs[0]).unwrap() {
        h5::Node::Dataset(r) => assert_eq!(r.shape(), [6, 20, 30]),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        f.deref_object(refs[1]).unwrap(),
        h5::Node::Group(_)
    ));
    assert!(f.exists("entry/ext").unwrap());
    let fx = h5::File::open_with(&p, h5::OpenOptions::new().external_links(true)).unwrap();
    assert_eq!(
        fx.dataset("entry/ext").unwrap().read::<i32>().unwrap(),
        [0, 1, 2, 3, 4]
    );
    assert_eq!(
        f.dataset("scalar").unwrap().read_scalar::<f64>().unwrap(),
        2.25
    );
    // A group is not a dataset; a missing path is not found.
    assert_eq!(
        f.dataset("/entry").unwrap_err().kind(),
        ErrorKind::WrongKind
    );
    assert_eq!(f.group("/scalar").unwrap_err().kind(), ErrorKind::WrongKind);
    assert_eq!(f.dataset("/nope").unwrap_err().kind(), ErrorKind::NotFound);
}

/// (numpy's slice text, our slice): numpy applies the text to the whole array h5py read.
fn slices() -> Vec<(&'static str, Vec<ndarray::SliceInfoElem>)> {
    vec![
        ("[5]", s![5].to_vec()),
        ("[-1]", s![-1].to_vec()),
        ("[1:4]", s![1..4].to_vec()),
        ("[::2]", s![..;2].to_vec()),
        ("[2, :, 7:26:4]", s![2, .., 7..26;4].to_vec()),
        ("[:, 3]", s![.., 3].to_vec()),
        ("[-2:, -5:, -1]", s![-2.., -5.., -1].to_vec()),
        ("[1:5:3, 19, ::7]", s![1..5;3, 19, ..;7].to_vec()),
        ("[0, 0, 0]", s![0, 0, 0].to_vec()),
        ("[3:100, 18:]", s![3..100, 18..].to_vec()),
        ("[4:2]", {
            let (a, b) = (4, 2);
            s![a..b].to_vec()
        }),
        ("[:, ::-1][:, 2:9]", s![.., 11..18;-1].to_vec()),
        (
            "[..., np.newaxis, 0]",
            s![.., .., ndarray::NewAxis, 0].to_vec(),
        ),
    ]
}

#[test]
fn numpy_slices_equal_numpy() {
    let Some(p) = instrument() else { return };
    let f = h5::File::open(&p).unwrap();
    let d = f.dataset("/entry/instrument/detector/data").unwrap();
    let list = slices();
    let mut script = String::from(
        "a = h5py.File(sys.argv[1], 'r')['/entry/instrument/detector/data'][()].astype('f8')\n",
    );
    for (text, _) in &list {
        script.push_str(&format!(
            "r = a{text}\nprint(list(r.shape), ' '.join(repr(float(x)) for x in r.ravel()))\n"
        ));
    }
    let out = python(&p, &script).unwrap();
    for ((text, ours), line) in list.iter().zip(out.lines()) {
        let (shape, values) = line.split_once("] ").map_or((line, ""), |(a, b)| (a, b));
        let shape: Vec<usize> = shape
            .trim_start_matches('[')
            .trim_end_matches(']')
            .split(", ")
            .filter(|t| !t.is_empty())
            .map(|t| t.parse().unwrap())
            .collect();
        let values: Vec<f64> = values
            .split_whitespace()
            .map(|t| t.parse().unwrap())
            .collect();
        let got: ArrayD<f64> = d.read_slice(ours).unwrap();
        assert_eq!(got.shape(), shape.as_slice(), "shape of {text}");
        assert_eq!(
            got.iter().copied().collect::<Vec<_>>(),
            values,
            "values of {text}"
        );
        // The same into a buffer.
        let mut buf = ArrayD::<f64>::zeros(IxDyn(&shape));
        d.read_slice_into(ours, &mut buf.view_mut()).unwrap();
        assert_eq!(buf, got, "into a buffer: {text}");
    }
    // Out of bounds and rank errors.
    for bad in [s![6].to_vec(), s![-7].to_vec(), s![0, 0, 0, 0].to_vec()] {
        let e = d.read_slice::<f32, _, IxDyn>(&bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    }
    // A fixed-rank array type that does not fit the slice.
    assert!(d.read_slice::<f32, _, ndarray::Ix3>(s![1]).is_err());
}

#[test]
fn strings_read_as_h5py_gives_them() {
    let Some(p) = instrument() else { return };
    let f = h5::File::open(&p).unwrap();
    use h5::types::h5type::{FixedAscii, NullPad, VarLenUnicode};
    let names: Vec<VarLenUnicode> = f
        .dataset("entry/instrument/detector/names")
        .unwrap()
        .read()
        .unwrap();
    let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    assert_eq!(names, ["alpha", "beta", "gamma ünï"]);
    let codes: Vec<FixedAscii<2, NullPad>> = f
        .dataset("entry/instrument/detector/codes")
        .unwrap()
        .read()
        .unwrap();
    assert_eq!(codes[1].as_str(), "CD");
}

#[test]
fn written_from_arrays_appended_overwritten_read_back_then_h5py() {
    for format in FORMATS {
        let p = scratch(&format!("arrays-{format:?}.h5"));
        let f = h5::File::create_with(&p, format).unwrap();
        let a = Array2::<i32>::from_shape_fn((3, 4), |(i, j)| (i * 10 + j) as i32);
        // From an array (type and shape from the data), from its transpose (a view that is
        // not contiguous), from a slice of a Vec.
        let da = f
            .new_dataset_builder()
            .with_data(&a)
            .chunk(&[2, 2])
            .deflate(3)
            .shuffle()
            .create("a")
            .unwrap();
        assert_eq!(da.shape(), [3, 4]);
        assert_eq!(
            da.filters().iter().map(|x| x.id.0).collect::<Vec<_>>(),
            [2, 1],
            "shuffle is placed before deflate"
        );
        let dt = f.new_dataset::<i32>().shape(&[4, 3]).create("t").unwrap();
        dt.write(&a.t()).unwrap();
        assert_eq!(dt.read_array::<i32, ndarray::Ix2>().unwrap(), a.t());
        let v: Vec<f64> = (0..6).map(f64::from).collect();
        let dv = f.new_dataset::<f64>().shape(&[2, 3]).create("v").unwrap();
        dv.write(&v[..]).unwrap();
        // A shape that does not fit is refused.
        assert_eq!(
            dv.write(&Array2::<f64>::zeros((3, 2))).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
        // Appended to (an unlimited dataset), read through the same handle at once.
        let log = f
            .new_dataset::<u16>()
            .shape(&[0, 2])
            .max_shape(&[None, Some(2)])
            .create("log")
            .unwrap();
        log.append(&[1, 2, 3, 4]).unwrap();
        assert_eq!(log.read::<u16>().unwrap(), [1, 2, 3, 4]);
        log.append(&[5, 6]).unwrap();
        let tail: Array2<u16> = log.read_slice(s![-1.., ..]).unwrap();
        assert_eq!(tail, ndarray::arr2(&[[5, 6]]));
        // Partly overwritten: a row, then a strided column (numpy's a[::2, 3] = ...).
        da.write_slice(&ndarray::arr1(&[-1, -2, -3, -4]), s![1, ..])
            .unwrap();
        da.write_slice(&ndarray::arr1(&[100, 200]), s![..;2, 3])
            .unwrap();
        let mut expect = a.clone();
        expect.row_mut(1).assign(&ndarray::arr1(&[-1, -2, -3, -4]));
        expect[[0, 3]] = 100;
        expect[[2, 3]] = 200;
        assert_eq!(da.read_array::<i32, ndarray::Ix2>().unwrap(), expect);
        // A reversed write: s![..;-1] writes the data back to front.
        let r = f.new_dataset::<i8>().shape(&[4]).create("rev").unwrap();
        r.write_slice(&ndarray::arr1(&[1i8, 2, 3, 4]), s![..;-1])
            .unwrap();
        assert_eq!(r.read::<i8>().unwrap(), [4, 3, 2, 1]);
        let back: Array1<i8> = r.read_slice(s![..;-1]).unwrap();
        assert_eq!(back.to_vec(), [1, 2, 3, 4]);
        // Attributes, through the same handles, before closing.
        da.new_attr::<f32>()
            .create("gain")
            .unwrap()
            .write_scalar(&1.25)
            .unwrap();
        assert_eq!(da.attr("gain").unwrap().read_scalar::<f32>().unwrap(), 1.25);
        f.close().unwrap();
        // h5py sees the same.
        let out = py(
            &p,
            "print(f['a'][()].tolist(), f['a'].compression, f['a'].shuffle)\n\
             print(f['t'][()].tolist())\nprint(f['v'][()].tolist())\n\
             print(f['log'][()].tolist(), f['log'].maxshape)\nprint(f['rev'][()].tolist())\n\
             print(float(f['a'].attrs['gain']))",
        );
        if let Some(out) = out {
            assert_eq!(
                out.trim(),
                "[[0, 1, 2, 100], [-1, -2, -3, -4], [20, 21, 22, 200]] gzip True\n\
                 [[0, 10, 20], [1, 11, 21], [2, 12, 22], [3, 13, 23]]\n\
                 [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]\n\
                 [[1, 2], [3, 4], [5, 6]] (None, 2)\n\
                 [4, 3, 2, 1]\n\
                 1.25"
            );
        }
    }
}

#[test]
fn modes_and_their_errors() {
    let p = scratch("modes.h5");
    let _ = std::fs::remove_file(&p);
    // append creates a missing file, then reopens it read-write.
    let f = h5::File::append(&p).unwrap();
    f.new_dataset::<u8>()
        .shape(&[2])
        .create("x")
        .unwrap()
        .write(&[1, 2])
        .unwrap();
    f.close().unwrap();
    let f = h5::File::append(&p).unwrap();
    assert_eq!(f.dataset("x").unwrap().read::<u8>().unwrap(), [1, 2]);
    f.close().unwrap();
    // create_new refuses an existing file and leaves it as it was.
    assert_eq!(
        h5::File::create_new(&p).unwrap_err().kind(),
        ErrorKind::AlreadyExists
    );
    // Read only: every write is ReadOnly.
    let r = h5::File::open(&p).unwrap();
    assert_eq!(r.mode(), h5::Mode::Read);
    let x = r.dataset("x").unwrap();
    assert_eq!(x.write(&[3u8, 4]).unwrap_err().kind(), ErrorKind::ReadOnly);
    assert_eq!(r.create_group("g").unwrap_err().kind(), ErrorKind::ReadOnly);
    assert_eq!(
        x.new_attr::<i32>().create("a").unwrap_err().kind(),
        ErrorKind::ReadOnly
    );
    assert_eq!(x.read::<u8>().unwrap(), [1, 2]);
    // A directory is an i/o error; a file that is not HDF5 a format error.
    let dir = scratch("a-directory");
    std::fs::create_dir_all(&dir).unwrap();
    assert_eq!(h5::File::open(&dir).unwrap_err().kind(), ErrorKind::Io);
    assert_eq!(
        h5::File::open(scratch("missing.h5")).unwrap_err().kind(),
        ErrorKind::Io
    );
    let junk = scratch("junk.h5");
    std::fs::write(&junk, b"not an hdf5 file at all").unwrap();
    assert_eq!(h5::File::open(&junk).unwrap_err().kind(), ErrorKind::Format);
    // Handles of a closed file fail with Closed.
    let w = h5::File::open_rw(&p).unwrap();
    let d = w.dataset("x").unwrap();
    w.clone().close().unwrap();
    assert_eq!(d.read::<u8>().unwrap_err().kind(), ErrorKind::Closed);
    // The source chain reaches the lower layer's error.
    let e = h5::File::open(&junk).unwrap_err();
    assert!(std::error::Error::source(&e).is_some(), "{e}");
}

#[test]
fn malformed_files_give_format_errors_with_offsets() {
    let bad = h5_oracle::corpus("bad");
    let mut with_offset = 0;
    let mut formats = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&bad).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.extension().and_then(|x| x.to_str()) != Some("h5") {
            continue;
        }
        let r = h5::File::open(&p).and_then(|f| {
            for (path, _, kind) in f.walk()? {
                if kind == h5::ObjectKind::Dataset {
                    f.dataset(&path)?.read_raw()?;
                }
            }
            Ok(())
        });
        if let Err(e) = r {
            if e.kind() == ErrorKind::Format {
                formats += 1;
                with_offset += e.offset().is_some() as usize;
            }
        }
    }
    assert!(formats > 5, "{formats} format errors");
    assert!(
        with_offset > 0,
        "none of {formats} format errors has an offset"
    );
}

#[test]
fn builder_mistakes_are_refused() {
    let p = scratch("builder.h5");
    let f = h5::File::create_with(&p, FileFormat::Latest).unwrap();
    let kind = |r: h5::Result<h5::Dataset>| r.unwrap_err().kind();
    let b = || f.new_dataset::<f32>().shape(&[100, 100]);
    assert_eq!(kind(b().deflate(12).create("d1")), ErrorKind::InvalidInput);
    assert_eq!(
        kind(b().deflate(4).lzf().create("d2")),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        kind(b().chunk(&[0, 10]).create("d3")),
        ErrorKind::InvalidInput
    );
    assert_eq!(kind(b().chunk(&[10]).create("d4")), ErrorKind::InvalidInput);
    assert_eq!(
        kind(b().chunk(&[200, 10]).create("d5")),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        kind(f.new_dataset::<f32>().create("no_shape")),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        kind(f.new_dataset::<f32>().scalar().chunk(&[1]).create("d6")),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        kind(f.new_dataset::<f32>().scalar().deflate(1).create("d7")),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        kind(b().contiguous().deflate(1).create("d8")),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        kind(b().shuffle().shuffle().create("d9")),
        ErrorKind::InvalidInput
    );
    #[derive(H5Type, Clone, Copy)]
    #[repr(C)]
    struct P {
        x: f32,
        y: f32,
    }
    assert_eq!(
        kind(
            f.new_dataset::<P>()
                .shape(&[4])
                .scale_offset(0, 2)
                .create("d10")
        ),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        kind(
            f.new_dataset::<f32>()
                .shape(&[5])
                .max_shape(&[Some(4)])
                .create("d11")
        ),
        ErrorKind::InvalidInput
    );
    // None of the refused datasets exists; what is right works, chunks chosen as h5py does.
    for n in ["d1", "d2", "d3", "d5", "no_shape", "d8", "d10"] {
        assert!(!f.exists(n).unwrap(), "{n}");
    }
    let ok = b().fletcher32().deflate(5).shuffle().create("ok").unwrap();
    assert_eq!(ok.chunk_dims(), Some(vec![50, 50]));
    assert_eq!(
        ok.filters().iter().map(|x| x.id.0).collect::<Vec<_>>(),
        [2, 1, 3]
    );
    f.close().unwrap();
    if let Some(out) = py(
        &p,
        "from h5py._hl.filters import guess_chunk\nprint(f['ok'].chunks == guess_chunk((100, 100), None, 4), f['ok'].shuffle, f['ok'].fletcher32)",
    ) {
        assert_eq!(out.trim(), "True True True");
    }
}

#[test]
fn links_and_attributes_managed_as_h5py_sees_them() {
    for format in FORMATS {
        let p = scratch(&format!("manage-{format:?}.h5"));
        let other = scratch(&format!("manage-other-{format:?}.h5"));
        let f = h5::File::create_with(&p, format).unwrap();
        let g = f.create_group("a/b").unwrap();
        let d = g.new_dataset::<i32>().shape(&[4]).create("d").unwrap();
        d.write(&[1, 2, 3, 4]).unwrap();
        d.new_attr::<f64>()
            .create("x")
            .unwrap()
            .write_scalar(&1.0)
            .unwrap();
        d.new_attr::<f64>()
            .create("y")
            .unwrap()
            .write_scalar(&2.0)
            .unwrap();
        f.link_soft("/a/b/d", "soft").unwrap();
        f.create_group("c").unwrap();
        assert!(f.exists("a/b/d").unwrap() && f.exists("soft").unwrap());
        // Rename within a group, then across groups; the handle still reads.
        g.rename("d", "d2").unwrap();
        f.rename("/a/b/d2", "/c/moved").unwrap();
        assert!(!f.exists("a/b/d2").unwrap());
        assert_eq!(
            f.dataset("c/moved").unwrap().read::<i32>().unwrap(),
            [1, 2, 3, 4]
        );
        assert_eq!(
            f.rename("c/moved", "c").unwrap_err().kind(),
            ErrorKind::AlreadyExists
        );
        assert_eq!(
            f.rename("nope", "c/x").unwrap_err().kind(),
            ErrorKind::NotFound
        );
        // Attributes renamed and deleted.
        let m = f.dataset("c/moved").unwrap();
        m.rename_attr("x", "gain").unwrap();
        m.delete_attr("y").unwrap();
        assert_eq!(m.attr_names().unwrap(), ["gain"]);
        assert_eq!(m.delete_attr("y").unwrap_err().kind(), ErrorKind::NotFound);
        m.set_comment(Some("moved twice")).unwrap();
        assert_eq!(m.comment().unwrap().as_deref(), Some("moved twice"));
        // The dangling soft link goes; a copy within the file and one into another file.
        f.unlink("soft").unwrap();
        assert!(!f.exists("soft").unwrap());
        f.copy("c", &f.root().unwrap(), "c_copy").unwrap();
        let o = h5::File::create_with(&other, format).unwrap();
        f.copy("/c/moved", &o.root().unwrap(), "imported").unwrap();
        o.close().unwrap();
        f.close().unwrap();
        let out = py(
            &p,
            "def names(g):\n    out = []\n    g.visit(out.append)\n    return sorted(out)\n\
             print(names(f))\nprint(f['c/moved'][()].tolist(), dict(f['c/moved'].attrs))\n\
             print(f['c_copy/moved'][()].tolist(), list(f['c_copy/moved'].attrs))\n\
             print('soft' in f)",
        );
        if let Some(out) = out {
            assert_eq!(
                out.trim(),
                "['a', 'a/b', 'c', 'c/moved', 'c_copy', 'c_copy/moved']\n\
                 [1, 2, 3, 4] {'gain': np.float64(1.0)}\n\
                 [1, 2, 3, 4] ['gain']\n\
                 False"
            );
        }
        if let Some(out) = py(
            &other,
            "print(f['imported'][()].tolist(), list(f['imported'].attrs))",
        ) {
            assert_eq!(out.trim(), "[1, 2, 3, 4] ['gain']");
        }
    }
}

#[test]
fn space_of_deleted_objects_is_reused() {
    for format in FORMATS {
        let p = scratch(&format!("reuse-{format:?}.h5"));
        let f = h5::File::create_with(&p, format).unwrap();
        let big: Vec<f64> = (0..100_000).map(f64::from).collect();
        f.new_dataset::<f64>()
            .shape(&[100_000])
            .create("big")
            .unwrap()
            .write(&big)
            .unwrap();
        f.close().unwrap();
        let before = std::fs::metadata(&p).unwrap().len();
        let f = h5::File::open_rw(&p).unwrap();
        f.unlink("big").unwrap();
        f.flush().unwrap();
        f.new_dataset::<f64>()
            .shape(&[100_000])
            .create("again")
            .unwrap()
            .write(&big)
            .unwrap();
        f.close().unwrap();
        let after = std::fs::metadata(&p).unwrap().len();
        assert!(
            after < before + 4096,
            "{format:?}: {before} -> {after} bytes"
        );
        let r = h5::File::open(&p).unwrap();
        assert_eq!(r.dataset("again").unwrap().read::<f64>().unwrap(), big);
        assert!(!r.exists("big").unwrap());
    }
}
