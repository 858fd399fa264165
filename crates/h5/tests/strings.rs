//! `String` and `&str` as h5py's `str` (variable-length UTF-8): written through our writer
//! and read back, read by h5py as `str`; and `Vec<String>` reading every string dataset and
//! attribute h5py makes (fixed or variable length, ASCII or UTF-8, every padding) as h5py's
//! `.asstr()[()]` gives them.

use std::path::{Path, PathBuf};

use h5::read::ErrorKind;
use h5::types::h5type::VarLenUnicode;
use h5::types::ErrorKind as TypesErrorKind;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("h5-strings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn python(script: &str, path: &Path) -> Option<String> {
    let exe = h5_oracle::require("h5py", h5_oracle::h5py())?;
    let out = h5_oracle::run(&exe, &["-c", script, path.to_str().unwrap()], b"")
        .unwrap_or_else(|e| panic!("python failed on {}: {e}", path.display()));
    Some(String::from_utf8(out).unwrap())
}

/// Lines `name<TAB>hex,hex,...` (each string's UTF-8 bytes in hex) into (name, strings).
fn parse_listing(out: &str) -> Vec<(String, Vec<String>)> {
    out.lines()
        .map(|line| {
            let (name, values) = line.split_once('\t').unwrap();
            let values = values
                .split(',')
                .filter(|v| !v.is_empty())
                .map(|v| {
                    let v = v.strip_prefix('x').unwrap();
                    let bytes: Vec<u8> = (0..v.len())
                        .step_by(2)
                        .map(|i| u8::from_str_radix(&v[i..i + 2], 16).unwrap())
                        .collect();
                    String::from_utf8(bytes).unwrap()
                })
                .collect();
            (name.to_owned(), values)
        })
        .collect()
}

/// Python that prints, for every dataset and attribute in the file, h5py's
/// `.asstr()[()]` (for attributes, the value read as `str`) as a listing.
const LIST: &str = r#"
import sys, h5py, numpy as np
def hexs(v):
    v = np.atleast_1d(np.asarray(v, dtype=object)).ravel()
    return ','.join('x' + s.encode('utf-8').hex() for s in v)
f = h5py.File(sys.argv[1], 'r')
def visit(name, obj):
    if isinstance(obj, h5py.Dataset):
        t = h5py.check_string_dtype(obj.dtype)
        assert t is not None, name
        print('d:' + name + '\t' + hexs(obj.asstr()[()]))
    for k in obj.attrs:
        t = h5py.check_string_dtype(obj.attrs.get_id(k).dtype)
        assert t is not None, (name, k)
        v = obj.attrs[k]
        if isinstance(v, bytes):
            v = v.decode(t.encoding)
        elif isinstance(v, np.ndarray) and v.dtype.kind == 'S':
            v = np.array([b.decode(t.encoding) for b in v.ravel()], dtype=object)
        print('a:' + (name if name != '.' else '') + '@' + k + '\t' + hexs(v))
visit('.', f)
f.visititems(visit)
"#;

/// Read every dataset and attribute of `listing` as `Vec<String>` and compare.
fn check_listing(f: &h5::File, listing: &[(String, Vec<String>)]) {
    assert!(!listing.is_empty());
    for (name, want) in listing {
        let got: Vec<String> = if let Some(d) = name.strip_prefix("d:") {
            f.dataset(d).unwrap().read().unwrap()
        } else {
            let (obj, attr) = name.strip_prefix("a:").unwrap().split_once('@').unwrap();
            let a = if obj.is_empty() {
                f.attr(attr).unwrap()
            } else if let Ok(ds) = f.dataset(obj) {
                ds.attr(attr).unwrap()
            } else {
                f.group(obj).unwrap().attr(attr).unwrap()
            };
            a.read().unwrap()
        };
        assert_eq!(&got, want, "{name}");
    }
}

#[test]
fn round_trip_through_our_writer_and_h5py() {
    let path = tmp("ours.h5");
    let names = vec![
        "alpha".to_owned(),
        String::new(),
        "ünïcödé ✓".to_owned(),
        "a much longer string than the others".to_owned(),
    ];
    let f = h5::File::create(&path).unwrap();
    f.new_dataset::<String>()
        .shape(&[4])
        .create("names")
        .unwrap()
        .write(&names)
        .unwrap();
    f.new_dataset::<String>()
        .shape(&[2, 2])
        .chunk(&[1, 2])
        .deflate(4)
        .create("grid")
        .unwrap()
        .write(&names)
        .unwrap();
    let strs: Vec<&str> = names.iter().map(String::as_str).collect();
    let ds = f
        .new_dataset::<&str>()
        .shape(&[4])
        .create("borrowed")
        .unwrap();
    ds.write(&strs).unwrap();
    ds.new_attr::<String>()
        .create("title")
        .unwrap()
        .write(&["a title".to_owned()])
        .unwrap();
    f.new_attr::<String>()
        .shape(&[3])
        .create("tags")
        .unwrap()
        .write(&["x".to_owned(), "yy ✓".to_owned(), String::new()])
        .unwrap();
    f.new_attr::<&str>()
        .create("note")
        .unwrap()
        .write(&["borrowed note"])
        .unwrap();
    // A NUL cannot be written.
    let bad = f.new_dataset::<String>().shape(&[1]).create("bad").unwrap();
    assert!(bad.write(&["a\0b".to_owned()]).is_err());
    f.close().unwrap();

    let f = h5::File::open(&path).unwrap();
    for name in ["names", "grid", "borrowed"] {
        let ds = f.dataset(name).unwrap();
        assert_eq!(ds.datatype(), <String as h5::H5Type>::h5_type(), "{name}");
        assert_eq!(ds.read::<String>().unwrap(), names, "{name}");
        let v: Vec<VarLenUnicode> = ds.read().unwrap();
        assert_eq!(v[2].as_str(), names[2]);
    }
    assert_eq!(
        f.dataset("grid")
            .unwrap()
            .read_hyperslab::<String>(&[1, 0], None, &[1, 2], None)
            .unwrap(),
        names[2..]
    );
    let title = f.dataset("borrowed").unwrap().attr("title").unwrap();
    assert_eq!(title.read_scalar::<String>().unwrap(), "a title");
    assert_eq!(
        f.attr("tags").unwrap().read::<String>().unwrap(),
        ["x", "yy ✓", ""]
    );
    assert_eq!(
        f.attr("note").unwrap().read_scalar::<String>().unwrap(),
        "borrowed note"
    );
    // A &str cannot own what it reads.
    let e = f.dataset("names").unwrap().read::<&str>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conversion, "{e}");

    // h5py sees variable-length UTF-8 strings, the same text.
    let check = r#"
import sys, h5py
f = h5py.File(sys.argv[1], 'r')
for name in ['names', 'grid', 'borrowed']:
    t = h5py.check_string_dtype(f[name].dtype)
    assert t.encoding == 'utf-8' and t.length is None, (name, t)
for k in ['tags', 'note']:
    t = h5py.check_string_dtype(f.attrs.get_id(k).dtype)
    assert t.encoding == 'utf-8' and t.length is None, (k, t)
assert isinstance(f.attrs['note'], str)
assert isinstance(f['borrowed'].attrs['title'], str)
"#;
    let script = format!(
        "{check}\n{}",
        LIST.replace("import sys, h5py, numpy as np", "import numpy as np")
    );
    let Some(out) = python(&script, &path) else {
        return;
    };
    let listing = parse_listing(&out);
    let by_name = |n: &str| listing.iter().find(|(k, _)| k == n).unwrap().1.clone();
    assert_eq!(by_name("d:names"), names);
    assert_eq!(by_name("d:grid"), names);
    assert_eq!(by_name("d:borrowed"), names);
    assert_eq!(by_name("a:borrowed@title"), ["a title"]);
    assert_eq!(by_name("a:@tags"), ["x", "yy ✓", ""]);
    assert_eq!(by_name("a:@note"), ["borrowed note"]);
}

/// h5py writes strings of every kind, as datasets and attributes.
const MAKE: &str = r#"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'w')
utf8 = h5py.string_dtype('utf-8')
ascii = h5py.string_dtype('ascii')
f['vlen_utf8'] = np.array(['één', '', 'naïve ✓'], dtype=utf8)
f['vlen_ascii'] = np.array([b'plain', b'', b'text'], dtype=ascii)
f['fixed_ascii'] = np.array([b'abc', b'', b'abcdefgh'], dtype='S8')
ds = f.create_dataset('fixed_utf8', shape=(2,), dtype=h5py.string_dtype('utf-8', 8))
ds.id.write(h5py.h5s.ALL, h5py.h5s.ALL,
            np.array(['ü'.encode('utf-8'), 'größe'.encode('utf-8')], dtype='S8'),
            mtype=ds.id.get_type())
f['scalar_vlen'] = 'a scalar'
f['grid'] = np.array([['a', 'bb'], ['ccc', 'ü']], dtype=utf8)
# Every padding of a fixed-length string, both character sets, through the low-level API.
for cset in (h5py.h5t.CSET_ASCII, h5py.h5t.CSET_UTF8):
    for pad, pname in ((h5py.h5t.STR_NULLTERM, 'nullterm'), (h5py.h5t.STR_NULLPAD, 'nullpad'),
                       (h5py.h5t.STR_SPACEPAD, 'spacepad')):
        tid = h5py.h5t.C_S1.copy()
        tid.set_size(6)
        tid.set_strpad(pad)
        tid.set_cset(cset)
        name = 'pad_%s_%s' % (pname, 'utf8' if cset else 'ascii')
        ds = h5py.h5d.create(f.id, name.encode(), tid, h5py.h5s.create_simple((3,)))
        text = b'\xc3\xa9t\xc3\xa9' if cset else b'ete'
        fill = b' ' if pad == h5py.h5t.STR_SPACEPAD else b'\0'
        raw = [b'ab', text, b'sixsix']
        if pad == h5py.h5t.STR_NULLTERM:
            raw[2] = b'fives'
        data = np.array([r + fill * (6 - len(r)) for r in raw], dtype='S6')
        ds.write(h5py.h5s.ALL, h5py.h5s.ALL, data, mtype=tid)
        # The same as an attribute of the root group.
        aid = h5py.h5a.create(f.id, name.encode(), tid, h5py.h5s.create_simple((3,)))
        aid.write(data, mtype=tid)
g = f.create_group('g')
g.attrs['vlen_utf8'] = 'ünï'
g.attrs['vlen_list'] = np.array(['a', 'b ✓'], dtype=utf8)
g.attrs['fixed_bytes'] = np.bytes_(b'fixed')
tid = h5py.h5t.C_S1.copy()
tid.set_size(7)
tid.set_cset(h5py.h5t.CSET_UTF8)
h5py.h5a.create(g.id, b'fixed_utf8', tid, h5py.h5s.create(h5py.h5s.SCALAR)).write(
    np.array('größe'.encode('utf-8'), dtype='S7'), mtype=tid)
g.attrs['vlen_ascii'] = np.array([b'x', b'yz'], dtype=ascii)
f['vlen_utf8'].attrs['units'] = 'm/s'
f.close()
"#;

#[test]
fn h5py_strings_read_as_asstr_gives_them() {
    let path = tmp("h5py.h5");
    if python(MAKE, &path).is_none() {
        return;
    }
    let Some(out) = python(LIST, &path) else {
        return;
    };
    let listing = parse_listing(&out);
    let f = h5::File::open(&path).unwrap();
    check_listing(&f, &listing);
    // A few by hand, so that the comparison above cannot agree on something wrong.
    let by_name = |n: &str| listing.iter().find(|(k, _)| k == n).unwrap().1.clone();
    assert_eq!(by_name("d:vlen_utf8"), ["één", "", "naïve ✓"]);
    assert_eq!(by_name("d:fixed_ascii"), ["abc", "", "abcdefgh"]);
    assert_eq!(by_name("d:pad_spacepad_utf8"), ["ab", "été", "sixsix"]);
    assert_eq!(by_name("d:pad_nullterm_ascii"), ["ab", "ete", "fives"]);
    assert_eq!(by_name("a:g@fixed_utf8"), ["größe"]);
    assert!(listing.len() >= 20, "{}", listing.len());
    assert_eq!(
        f.dataset("scalar_vlen")
            .unwrap()
            .reader()
            .read_scalar::<String>()
            .unwrap(),
        "a scalar"
    );
}

#[test]
fn invalid_utf8_is_an_error_naming_the_element() {
    let path = tmp("bad_utf8.h5");
    let make = r#"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'w')
tid = h5py.h5t.C_S1.copy()
tid.set_size(4)
tid.set_cset(h5py.h5t.CSET_UTF8)
ds = h5py.h5d.create(f.id, b'bad', tid, h5py.h5s.create_simple((3,)))
ds.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array([b'ok', b'fine', b'\xff\xfe'], dtype='S4'), mtype=tid)
try:
    f['bad'].asstr()[()]
    print('h5py decoded it')
except UnicodeDecodeError:
    print('h5py raises')
"#;
    let Some(out) = python(make, &path) else {
        return;
    };
    assert_eq!(out.trim(), "h5py raises");
    let f = h5::File::open(&path).unwrap();
    let e = f.dataset("bad").unwrap().read::<String>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conversion, "{e}");
    let t = e.datatype_error().unwrap();
    assert_eq!(t.kind(), TypesErrorKind::ConversionException, "{e}");
    assert_eq!(t.element(), Some(2), "{e}");
}

#[derive(h5::H5Type, Clone, Debug, PartialEq)]
#[repr(C)]
struct Record {
    id: u32,
    name: String,
    tags: [String; 2],
}

#[test]
fn string_members_of_a_struct() {
    let path = tmp("records.h5");
    let records = vec![
        Record {
            id: 1,
            name: "first".into(),
            tags: ["a".into(), "ü".into()],
        },
        Record {
            id: 2,
            name: String::new(),
            tags: [String::new(), "long tag text".into()],
        },
    ];
    let f = h5::File::create(&path).unwrap();
    f.new_dataset::<Record>()
        .shape(&[2])
        .create("records")
        .unwrap()
        .write(&records)
        .unwrap();
    f.close().unwrap();
    let f = h5::File::open(&path).unwrap();
    assert_eq!(
        f.dataset("records").unwrap().read::<Record>().unwrap(),
        records
    );
    let script = r#"
import sys, h5py
f = h5py.File(sys.argv[1], 'r')
d = f['records']
for r in d[()]:
    print(int(r['id']), r['name'].decode('utf-8'), '|'.join(t.decode('utf-8') for t in r['tags']))
"#;
    let Some(out) = python(script, &path) else {
        return;
    };
    assert_eq!(out, "1 first a|ü\n2  |long tag text\n");
}
