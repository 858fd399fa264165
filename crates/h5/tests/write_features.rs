//! Writer features beyond the seed examples, each written in both formats and judged by h5py
//! (exact values) and h5dump (exit 0, DDL snippets): filters, resize and append, links and
//! many groups, committed datatypes shared by datasets, writes by selection, and errors that
//! leave a readable file.

use std::path::{Path, PathBuf};

use h5::io::selection::{Dataspace, NcForm, Selection};
use h5::types::Datatype;
use h5::{FileFormat, H5Type};

mod write_support;

use write_support::{assert_contains, dump, py, FORMATS};

fn tmp(name: &str, format: FileFormat) -> PathBuf {
    write_support::tmp_in("write-features", name, format)
}

#[test]
fn filters_deflate_shuffle_fletcher32_nbit_scaleoffset_lzf() {
    for format in FORMATS {
        let p = tmp("filters", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let ints: Vec<i32> = (0..1000).map(|i| (i * 7) % 300 - 100).collect();
        f.new_dataset::<i32>()
            .shape(&[1000])
            .chunk(&[128])
            .shuffle()
            .deflate(6)
            .fletcher32()
            .create("deflate")
            .unwrap()
            .write(&ints)
            .unwrap();
        f.new_dataset::<i32>()
            .shape(&[1000])
            .chunk(&[100])
            .scale_offset(2, 0)
            .create("scaleoffset")
            .unwrap()
            .write(&ints)
            .unwrap();
        f.new_dataset::<i32>()
            .shape(&[1000])
            .chunk(&[250])
            .lzf()
            .create("lzf")
            .unwrap()
            .write(&ints)
            .unwrap();
        // N-bit over a 12-bit integer type in 2 bytes (converted from i32).
        let t: Datatype = "H5T_STD_I16LE".parse().unwrap();
        let mut it = *t.as_integer().unwrap();
        it.set_precision(12).unwrap();
        f.new_dataset::<i32>()
            .dtype(Datatype::Integer(it))
            .shape(&[1000])
            .chunk(&[200])
            .nbit()
            .create("nbit")
            .unwrap()
            .write(&ints)
            .unwrap();
        f.close().unwrap();
        let script = "exp = [(i * 7) % 300 - 100 for i in range(1000)]\n\
                      for n in ['deflate', 'scaleoffset', 'lzf', 'nbit']:\n    \
                      d = f[n]\n    print(n, d[()].tolist() == exp, d.compression, d.shuffle, d.fletcher32, d.scaleoffset)";
        if let Some(out) = py(&p, script) {
            assert_eq!(
                out.trim(),
                "deflate True gzip True True None\n\
                 scaleoffset True None False False 0\n\
                 lzf True lzf False False None\n\
                 nbit True unknown False False None"
            );
        }
        if let Some(out) = dump(&p, &["-p", "-d", "deflate"]) {
            assert_contains(
                &out,
                &[
                    "FILTERS {\nPREPROCESSING SHUFFLE\nCOMPRESSION DEFLATE { LEVEL 6 }\nCHECKSUM FLETCHER32\n}",
                    "(989): -77, -70, -63, -56, -49, -42, -35, -28, -21, -14, -7",
                ],
            );
        }
        if let Some(out) = dump(&p, &["-p", "-d", "nbit"]) {
            assert_contains(&out, &["COMPRESSION NBIT", "(0): -100, -93, -86"]);
        }
    }
}

#[test]
fn resize_and_append_unlimited() {
    for format in FORMATS {
        let p = tmp("append", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let d = f
            .new_dataset::<f64>()
            .shape(&[0, 3])
            .max_shape(&[None, Some(3)])
            .chunk(&[4, 3])
            .fill_value(-1.0)
            .create("table")
            .unwrap();
        for r in 0..5 {
            let row: Vec<f64> = (0..3).map(|c| f64::from(r * 10 + c)).collect();
            d.append(&row).unwrap();
        }
        f.flush().unwrap();
        // Shrink to 3 rows, then grow to 6: the rows beyond 3 come back as fill values.
        d.resize(&[3, 3]).unwrap();
        d.resize(&[6, 3]).unwrap();
        assert_eq!(d.shape(), vec![6, 3]);
        f.close().unwrap();
        let script = "d = f['table']\nprint(d.shape, d.maxshape, d.chunks)\nprint(d[()].tolist())";
        if let Some(out) = py(&p, script) {
            assert_eq!(
                out.trim(),
                "(6, 3) (None, 3) (4, 3)\n[[0.0, 1.0, 2.0], [10.0, 11.0, 12.0], [20.0, 21.0, 22.0], \
                 [-1.0, -1.0, -1.0], [-1.0, -1.0, -1.0], [-1.0, -1.0, -1.0]]"
            );
        }
        if let Some(out) = dump(&p, &[]) {
            assert_contains(
                &out,
                &["DATASPACE  SIMPLE { ( 6, 3 ) / ( H5S_UNLIMITED, 3 ) }"],
            );
        }
    }
}

#[test]
fn many_groups_links_and_external_links() {
    for format in FORMATS {
        let p = tmp("links", format);
        let f = h5::File::create_with(&p, format).unwrap();
        // Enough names for several symbol table nodes and a two-level B-tree (compatible
        // format), or a header of link messages (latest).
        let n = if format == FileFormat::Compatible {
            300
        } else {
            60
        };
        let big = f.create_group("big").unwrap();
        for i in 0..n {
            big.create_group(&format!("g{i:04}")).unwrap();
        }
        let d = f
            .new_dataset::<u8>()
            .shape(&[2])
            .create("/x/y/z/data")
            .unwrap();
        d.write(&[5u8, 6]).unwrap();
        f.link_soft("/x/y/z/data", "soft").unwrap();
        f.link_soft("/nowhere", "dangling").unwrap();
        f.link_hard("/x/y/z/data", "x/hard").unwrap();
        let g = f.create_group("ext").unwrap();
        g.link_external("other.h5", "/some/path", "elink").unwrap();
        assert!(f.create_group("x/y").is_err());
        f.close().unwrap();
        let script = format!(
            "b = f['big']\nprint(len(b), list(b)[:2], list(b)[-1])\n\
             print(f['soft'][()].tolist(), f['x/hard'][()].tolist())\n\
             print(f.get('dangling', getlink=True).path, f['ext'].get('elink', getlink=True).filename)\n\
             print(f['x/hard'].id == f['x/y/z/data'].id, h5py.h5o.get_info(f['x/hard'].id).rc)\n\
             assert list(b) == ['g%04d' % i for i in range({n})]"
        );
        if let Some(out) = py(&p, &script) {
            let last = format!("g{:04}", n - 1);
            assert_eq!(
                out.trim(),
                format!("{n} ['g0000', 'g0001'] {last}\n[5, 6] [5, 6]\n/nowhere other.h5\nTrue 2")
            );
        }
        if let Some(out) = dump(&p, &["-g", "/ext"]) {
            assert_contains(
                &out,
                &["EXTERNAL_LINK \"elink\" {\nTARGETFILE \"other.h5\"\nTARGETPATH \"/some/path\""],
            );
        }
        if let Some(out) = dump(&p, &["-n"]) {
            assert_contains(&out, &[" group      /big/g0042", " dataset    /x/y/z/data"]);
        }
    }
}

#[derive(H5Type, Clone, Copy)]
#[repr(C)]
struct Pair {
    a: i32,
    b: f32,
}

#[test]
fn committed_datatype_shared_by_datasets_and_attributes() {
    for format in FORMATS {
        let p = tmp("committed", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let t = f.commit_datatype("pair_t", &Pair::h5_type()).unwrap();
        for name in ["d1", "d2"] {
            let d = f
                .new_dataset::<Pair>()
                .committed(&t)
                .shape(&[2])
                .create(name)
                .unwrap();
            d.write(&[Pair { a: 1, b: 1.5 }, Pair { a: 2, b: 2.5 }])
                .unwrap();
            d.new_attr::<Pair>()
                .committed(&t)
                .create("meta")
                .unwrap()
                .write(&[Pair { a: 9, b: 9.5 }])
                .unwrap();
        }
        f.close().unwrap();
        let script = "print(f['d1'][()].tolist(), f['d2'].attrs['meta'].tolist())\n\
                      print(f['d1'].id.get_type().committed(), f['d2'].id.get_type().committed())\n\
                      print(h5py.h5o.get_info(f['pair_t'].id).rc)";
        if let Some(out) = py(&p, script) {
            assert_eq!(out.trim(), "[(1, 1.5), (2, 2.5)] (9, 9.5)\nTrue True\n5");
        }
        if let Some(out) = dump(&p, &[]) {
            assert_contains(
                &out,
                &[
                    "DATATYPE \"pair_t\" H5T_COMPOUND {",
                    "DATASET \"d1\" {\nDATATYPE  \"/pair_t\"",
                ],
            );
        }
    }
}

#[test]
fn writes_by_hyperslab_points_and_netcdf_forms() {
    for format in FORMATS {
        for chunked in [false, true] {
            let p = tmp(&format!("sel-{chunked}"), format);
            let f = h5::File::create_with(&p, format).unwrap();
            let mut b = f.new_dataset::<i16>().shape(&[4, 5]);
            if chunked {
                b = b.chunk(&[3, 2]);
            }
            let d = b.create("grid").unwrap();
            let space = Dataspace::simple(&[4, 5]).unwrap();
            // Every other column of rows 1..3 (a strided hyperslab).
            let sel = Selection::hyperslab(&space, &[1, 0], Some(&[1, 2]), &[2, 3], None).unwrap();
            d.write_selection(&sel, &[1i16, 2, 3, 4, 5, 6]).unwrap();
            // Three points, in the given order.
            let pts = Selection::points(&space, &[[3u64, 4], [0, 0], [0, 4]]).unwrap();
            d.write_selection(&pts, &[7i16, 8, 9]).unwrap();
            // A netCDF mapped write: start (2,1), count (2,2), stride (1,2) and a transposing
            // index map (1,2): memory [10, 11, 12, 13] holds (0,0), (1,0), (0,1), (1,1).
            d.write_nc(
                NcForm::Mapped {
                    start: &[2, 1],
                    count: &[2, 2],
                    stride: Some(&[1, 2]),
                    imap: Some(&[1, 2]),
                },
                &[10i16, 11, 12, 13],
            )
            .unwrap();
            // A contiguous section.
            d.write_slab(&[0, 2], &[1, 2], &[14i16, 15]).unwrap();
            // Converted from f64 on the way.
            d.write_selection(
                &Selection::hyperslab(&space, &[0, 1], None, &[1, 1], None).unwrap(),
                &[12.0f64],
            )
            .unwrap();
            f.close().unwrap();
            if let Some(out) = py(&p, "print(f['grid'][()].tolist())") {
                assert_eq!(
                    out.trim(),
                    "[[8, 12, 14, 15, 9], [1, 0, 2, 0, 3], [4, 10, 5, 12, 6], [0, 11, 0, 13, 7]]"
                );
            }
            if let Some(out) = dump(&p, &[]) {
                assert_contains(&out, &["(3,0): 0, 11, 0, 13, 7"]);
            }
        }
    }
}

#[test]
fn filtered_chunks_written_whole_in_part_and_out_of_order() {
    for format in FORMATS {
        let p = tmp("filtered-sel", format);
        let f = h5::File::create_with(&p, format).unwrap();
        // 7 x 10 in 3 x 4 chunks: whole chunks, edge chunks past the extent, and chunks whose
        // elements a later write replaces in part.
        let d = f
            .new_dataset::<i32>()
            .shape(&[7, 10])
            .chunk(&[3, 4])
            .shuffle()
            .deflate(4)
            .create("grid")
            .unwrap();
        let all: Vec<i32> = (0..70).collect();
        d.write(&all).unwrap();
        let space = Dataspace::simple(&[7, 10]).unwrap();
        // Rows 2..5, columns 3..9: across 2 x 2 chunks, none whole.
        let sel = Selection::hyperslab(&space, &[2, 3], None, &[3, 6], None).unwrap();
        let vals: Vec<i32> = (0..18).map(|i| -1 - i).collect();
        d.write_selection(&sel, &vals).unwrap();
        // Every element of chunk (0, 1) (rows 0..3, columns 4..8), as points in reverse
        // order, and one point of chunk (2, 0).
        let mut pts: Vec<[u64; 2]> = (0..3u64)
            .flat_map(|r| (4..8u64).map(move |c| [r, c]))
            .collect();
        pts.reverse();
        pts.push([6, 0]);
        let n = pts.len();
        let pvals: Vec<i32> = (0..n as i32).map(|i| 1000 + i).collect();
        d.write_selection(&Selection::points(&space, &pts).unwrap(), &pvals)
            .unwrap();
        f.close().unwrap();
        let mut want = all.clone();
        for (k, (r, c)) in (2..5).flat_map(|r| (3..9).map(move |c| (r, c))).enumerate() {
            want[r * 10 + c] = vals[k];
        }
        for (k, [r, c]) in pts.iter().enumerate() {
            want[*r as usize * 10 + *c as usize] = pvals[k];
        }
        let back: Vec<i32> = h5::File::open(&p)
            .unwrap()
            .dataset("grid")
            .unwrap()
            .read()
            .unwrap();
        assert_eq!(back, want);
        if let Some(out) = py(&p, "print(f['grid'][()].ravel().tolist())") {
            let got: Vec<i32> = out
                .trim()
                .trim_matches(|c| c == '[' || c == ']')
                .split(", ")
                .map(|v| v.parse().unwrap())
                .collect();
            assert_eq!(got, want);
        }
    }
}

#[test]
fn failed_writes_leave_a_readable_file() {
    for format in FORMATS {
        let p = tmp("errors", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let d = f
            .new_dataset::<i32>()
            .shape(&[4])
            .chunk(&[2])
            .create("d")
            .unwrap();
        d.write(&[1, 2, 3, 4]).unwrap();
        let space = Dataspace::simple(&[4]).unwrap();
        // A selection outside the extent, a buffer of the wrong size, a name that exists,
        // a resize beyond the maximum, and an unconvertible type.
        let bad = Selection::hyperslab(&Dataspace::simple(&[10]).unwrap(), &[6], None, &[2], None)
            .unwrap();
        assert!(d.write_selection(&bad, &[0i32, 0]).is_err());
        assert!(d.write(&[1i32, 2, 3]).is_err());
        assert!(f.new_dataset::<i32>().shape(&[1]).create("d").is_err());
        assert!(d.resize(&[5]).is_err());
        let sel = Selection::hyperslab(&space, &[0], None, &[1], None).unwrap();
        assert!(d
            .write_selection(
                &sel,
                &["no".parse::<h5::types::h5type::VarLenAscii>().unwrap()]
            )
            .is_err());
        assert!(f.new_dataset::<i32>().shape(&[2]).create("").is_err());
        f.new_attr::<i32>()
            .create("a")
            .unwrap()
            .write(&[3])
            .unwrap();
        assert!(f.new_attr::<i32>().create("a").is_err());
        // Too big for a header message: refused in the compatible format (the latest one
        // stores it densely).
        assert_eq!(
            f.new_attr::<[u8; 70000]>().create("huge").is_err(),
            format == FileFormat::Compatible
        );
        // Dropped without close: the destructor flushes.
        drop(d);
        drop(f);
        if let Some(out) = py(
            &p,
            "print(f['d'][()].tolist(), f.attrs['a'], list(f.attrs))",
        ) {
            let names = if format == FileFormat::Compatible {
                "['a']"
            } else {
                "['a', 'huge']"
            };
            assert_eq!(out.trim(), format!("[1, 2, 3, 4] 3 {names}"));
        }
        if let Some(out) = dump(&p, &[]) {
            assert_contains(&out, &["(0): 1, 2, 3, 4"]);
        }
    }
}

#[test]
fn scalar_null_and_compact_datasets_and_alloc_times() {
    for format in FORMATS {
        let p = tmp("spaces", format);
        let f = h5::File::create_with(&p, format).unwrap();
        f.new_dataset::<f32>()
            .scalar()
            .create("scalar")
            .unwrap()
            .write(&[2.5f32])
            .unwrap();
        f.new_dataset::<i8>().null().create("null").unwrap();
        f.new_dataset::<u16>()
            .shape(&[3])
            .compact()
            .create("compact")
            .unwrap()
            .write(&[1u16, 2, 3])
            .unwrap();
        f.new_dataset::<u16>()
            .shape(&[5])
            .chunk(&[2])
            .alloc_time(h5::write::AllocTime::Early)
            .fill_value(7)
            .create("early")
            .unwrap();
        f.new_attr::<i32>().null().create("nothing").unwrap();
        f.close().unwrap();
        let script = "print(f['scalar'][()], f['null'].shape, f['compact'][()].tolist(), \
                      f['early'][()].tolist(), f['early'].id.get_storage_size(), f.attrs['nothing'])";
        if let Some(out) = py(&p, script) {
            assert_eq!(
                out.trim(),
                "2.5 None [1, 2, 3] [7, 7, 7, 7, 7] 12 Empty(dtype=dtype('int32'))"
            );
        }
        if let Some(out) = dump(&p, &["-p"]) {
            assert_contains(
                &out,
                &[
                    "DATASPACE  SCALAR",
                    "DATASPACE  NULL",
                    "COMPACT",
                    "H5D_ALLOC_TIME_EARLY",
                ],
            );
        }
    }
}

#[test]
fn chunk_indexes_single_paged_fixed_array_and_deep_btree2() {
    for format in FORMATS {
        let p = tmp("indexes", format);
        let f = h5::File::create_with(&p, format).unwrap();
        // One chunk covering the dataset (single-chunk index in the latest format), filtered.
        let single: Vec<i64> = (0..20).map(|i| i * i).collect();
        f.new_dataset::<i64>()
            .shape(&[5, 4])
            .chunk(&[5, 4])
            .deflate(4)
            .create("single")
            .unwrap()
            .write(&single)
            .unwrap();
        // 1500 chunks: a paged fixed array.
        let many: Vec<u16> = (0..3000u16).collect();
        f.new_dataset::<u16>()
            .shape(&[3000])
            .chunk(&[2])
            .create("paged")
            .unwrap()
            .write(&many)
            .unwrap();
        // 2000 appended one-element chunks: a version 2 B-tree of depth 2.
        let d = f
            .new_dataset::<i32>()
            .shape(&[0])
            .max_shape(&[None])
            .chunk(&[1])
            .create("appended")
            .unwrap();
        for i in 0..2000 {
            d.append(&[i * 3]).unwrap();
        }
        // Two unlimited dimensions.
        let d2 = f
            .new_dataset::<u8>()
            .shape(&[3, 3])
            .max_shape(&[None, None])
            .chunk(&[2, 2])
            .create("two_unlimited")
            .unwrap();
        d2.write(&[1u8, 2, 3, 4, 5, 6, 7, 8, 9]).unwrap();
        d2.resize(&[4, 4]).unwrap();
        // One unlimited dimension that is not the first (an extensible array over swizzled
        // chunk coordinates), filtered.
        let d3 = f
            .new_dataset::<i32>()
            .shape(&[3, 0])
            .max_shape(&[Some(3), None])
            .chunk(&[2, 2])
            .deflate(1)
            .create("columns")
            .unwrap();
        for c in 0..40u64 {
            d3.resize(&[3, c + 1]).unwrap();
            let col: Vec<i32> = (0..3).map(|r| (r * 100 + c) as i32).collect();
            d3.write_slab(&[0, c], &[3, 1], &col).unwrap();
        }
        f.close().unwrap();
        let script = "print(f['single'][()].sum(), f['single'][4].tolist())\n\
                      print(f['paged'][()].tolist() == list(range(3000)))\n\
                      a = f['appended'][()].tolist()\nprint(len(a), a == [3 * i for i in range(2000)])\n\
                      print(f['two_unlimited'][()].tolist())\n\
                      c = f['columns'][()]\nprint(c.shape, c[:, 39].tolist(), c[2, :3].tolist())";
        if let Some(out) = py(&p, script) {
            assert_eq!(
                out.trim(),
                "2470 [256, 289, 324, 361]\nTrue\n2000 True\n\
                 [[1, 2, 3, 0], [4, 5, 6, 0], [7, 8, 9, 0], [0, 0, 0, 0]]\n\
                 (3, 40) [39, 139, 239] [200, 201, 202]"
            );
        }
        if let Some(out) = dump(&p, &["-d", "appended", "-s", "1995", "-c", "5"]) {
            assert_contains(&out, &["(1995): 5985, 5988, 5991, 5994, 5997"]);
        }
    }
}

#[test]
fn many_attributes_dense_or_in_continuation_chunks() {
    for format in FORMATS {
        let p = tmp("attrs", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let d = f.new_dataset::<u8>().shape(&[1]).create("d").unwrap();
        let g = f.create_group("g").unwrap();
        for i in 0..30u32 {
            d.new_attr::<u32>()
                .shape(&[3])
                .create(&format!("attr{i:02}"))
                .unwrap()
                .write(&[i, i + 1, i + 2])
                .unwrap();
            g.new_attr::<f32>()
                .create(&format!("x{i}"))
                .unwrap()
                .write(&[i as f32 / 2.0])
                .unwrap();
        }
        // Rewritten through a reopened handle, converted from u8 (a short buffer is refused).
        d.attr("attr03").unwrap().write(&[1, 2]).unwrap_err();
        d.attr("attr03").unwrap().write(&[30, 31, 32]).unwrap();
        assert!(d.attr("missing").is_err());
        assert_eq!(d.attr_names().unwrap().len(), 30);
        // A bigger one (4000 bytes).
        d.new_attr::<u64>()
            .shape(&[500])
            .create("big")
            .unwrap()
            .write(&(0..500u64).collect::<Vec<_>>())
            .unwrap();
        f.close().unwrap();
        let script = "a = f['d'].attrs\nprint(len(a), sorted(a)[:2], a['attr17'].tolist(), int(a['big'].sum()), a['attr03'].tolist())\n\
                      b = f['g'].attrs\nprint(len(b), b['x29'], sorted(b.keys(), key=lambda k: int(k[1:]))[-1])";
        if let Some(out) = py(&p, script) {
            assert_eq!(
                out.trim(),
                "31 ['attr00', 'attr01'] [17, 18, 19] 124750 [30, 31, 32]\n30 14.5 x29"
            );
        }
        if let Some(out) = dump(&p, &["-a", "/d/attr29"]) {
            assert_contains(&out, &["(0): 29, 30, 31"]);
        }
        assert!(dump(&p, &[]).is_some_and(|o| o.contains("ATTRIBUTE \"x7\"")));
    }
}

#[test]
fn large_attributes_in_the_latest_format() {
    // 200 KB of attribute: dense storage with a huge fractal heap object (the latest format);
    // the compatible format refuses it, as the reference library does.
    let big: Vec<f64> = (0..25_000).map(|i| f64::from(i) * 0.5).collect();
    let p = tmp("bigattr", FileFormat::Latest);
    let f = h5::File::create_with(&p, FileFormat::Latest).unwrap();
    let g = f.create_group("g").unwrap();
    g.new_attr::<f64>()
        .shape(&[25_000])
        .create("big")
        .unwrap()
        .write(&big)
        .unwrap();
    g.new_attr::<i8>()
        .create("small")
        .unwrap()
        .write(&[-3])
        .unwrap();
    f.close().unwrap();
    if let Some(out) = py(
        &p,
        "a = f['g'].attrs\nprint(sorted(a), a['big'][24999], a['big'].sum(), a['small'])",
    ) {
        assert_eq!(out.trim(), "['big', 'small'] 12499.5 156243750.0 -3");
    }
    if let Some(out) = dump(&p, &["-A", "-a", "/g/big"]) {
        assert_contains(
            &out,
            &[
                "DATASPACE  SIMPLE { ( 25000 ) / ( 25000 ) }",
                "(24995): 12497.5, 12498, 12498.5, 12499, 12499.5",
            ],
        );
    }
    let p = tmp("bigattr", FileFormat::Compatible);
    let f = h5::File::create_with(&p, FileFormat::Compatible).unwrap();
    let e = f
        .new_attr::<f64>()
        .shape(&[25_000])
        .create("big")
        .unwrap_err();
    assert!(e.to_string().contains("64 KiB"), "{e}");
    f.close().unwrap();
}

#[test]
fn region_references() {
    use h5::types::h5type::RegionRef;
    for format in FORMATS {
        let p = tmp("regref", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let d = f
            .new_dataset::<i32>()
            .shape(&[3, 4])
            .create("data")
            .unwrap();
        d.write(&(0..12).collect::<Vec<i32>>()).unwrap();
        let space = Dataspace::simple(&[3, 4]).unwrap();
        let slab = Selection::hyperslab(&space, &[0, 1], Some(&[2, 2]), &[2, 2], None).unwrap();
        let pts = Selection::points(&space, &[[2u64, 3], [0, 0]]).unwrap();
        let refs = vec![
            d.region_reference(&slab).unwrap(),
            d.region_reference(&pts).unwrap(),
            d.region_reference(&Selection::All).unwrap(),
        ];
        f.new_dataset::<RegionRef>()
            .shape(&[3])
            .create("refs")
            .unwrap()
            .write(&refs)
            .unwrap();
        f.close().unwrap();
        let script = "r = f['refs'][()]\nd = f['data']\n\
                      print(f[r[0]].name, d[r[0]].tolist(), d[r[1]].tolist(), d[r[2]].tolist())";
        if let Some(out) = py(&p, script) {
            assert_eq!(
                out.trim(),
                "/data [[1, 3], [9, 11]] [11, 0] [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]"
            );
        }
        if let Some(out) = dump(&p, &["-d", "refs"]) {
            assert_contains(
                &out,
                &[
                    "DATATYPE  H5T_REFERENCE { H5T_STD_REF_DSETREG }",
                    "REGION_TYPE BLOCK  (0,1)-(0,1), (0,3)-(0,3), (2,1)-(2,1),",
                    "REGION_TYPE POINT  (2,3), (0,0)",
                ],
            );
        }
    }
}

#[test]
fn large_dataset_written_in_slabs() {
    for format in FORMATS {
        let p = tmp("large", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let n = 1u64 << 20;
        let d = f
            .new_dataset::<u32>()
            .shape(&[4 * n])
            .create("big")
            .unwrap();
        let c = f
            .new_dataset::<u32>()
            .shape(&[4 * n])
            .chunk(&[1 << 16])
            .create("chunked")
            .unwrap();
        for s in 0..4u64 {
            let slab: Vec<u32> = (s * n..(s + 1) * n).map(|v| v as u32).collect();
            d.write_slab(&[s * n], &[n], &slab).unwrap();
            c.write_slab(&[s * n], &[n], &slab).unwrap();
            f.flush().unwrap();
        }
        f.close().unwrap();
        let len = std::fs::metadata(&p).unwrap().len();
        assert!(((32 << 20)..(32 << 20) + (1 << 20)).contains(&len), "{len}");
        let script = "import numpy as np\nfor k in ['big', 'chunked']:\n    a = f[k][()]\n    \
                      print(k, a.size, bool((a == np.arange(a.size, dtype='u4')).all()))";
        if let Some(out) = py(&p, script) {
            assert_eq!(out.trim(), "big 4194304 True\nchunked 4194304 True");
        }
    }
}

/// Like [`py`], with the file opened for writing.
fn py_rw(path: &Path, body: &str) -> Option<String> {
    let exe = h5_oracle::require("h5py", h5_oracle::h5py())?;
    let script = format!(
        "import sys, h5py, numpy as np\nf = h5py.File(sys.argv[1], 'r+')\n{body}\nf.close()\n"
    );
    let out = h5_oracle::run(&exe, &["-c", &script, path.to_str().unwrap()], b"")
        .unwrap_or_else(|e| panic!("h5py failed on {}: {e}", path.display()));
    Some(String::from_utf8(out).unwrap())
}

#[test]
fn the_reference_library_can_modify_what_we_write() {
    for format in FORMATS {
        let p = tmp("modify", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let g = f.create_group("g").unwrap();
        for i in 0..40 {
            g.create_group(&format!("m{i:02}")).unwrap();
            g.new_attr::<i32>()
                .create(&format!("a{i:02}"))
                .unwrap()
                .write(&[i])
                .unwrap();
        }
        let ext = f
            .new_dataset::<i32>()
            .shape(&[10])
            .max_shape(&[None])
            .chunk(&[4])
            .create("ext")
            .unwrap();
        ext.write(&(0..10).collect::<Vec<i32>>()).unwrap();
        let two = f
            .new_dataset::<i32>()
            .shape(&[2, 2])
            .max_shape(&[None, None])
            .chunk(&[1, 1])
            .deflate(3)
            .create("two")
            .unwrap();
        two.write(&[1, 2, 3, 4]).unwrap();
        f.new_dataset::<i32>()
            .shape(&[8])
            .chunk(&[2])
            .create("fixed")
            .unwrap()
            .write(&[0; 8])
            .unwrap();
        f.close().unwrap();
        let script = "g = f['g']\ndel g['m05']\ng.create_group('new')\ndel g.attrs['a07']\n\
                      g.attrs['b'] = 'x'\nfor i in range(40, 60): g.create_group('m%02d' % i)\n\
                      e = f['ext']\ne.resize((30,))\ne[10:] = np.arange(100, 120)\n\
                      t = f['two']\nt.resize((3, 3))\nt[2, 2] = 9\nf['fixed'][3] = 7";
        if py_rw(&p, script).is_none() {
            continue;
        }
        let check = "g = f['g']\nprint(len(g), 'm05' in g, 'new' in g, len(g.attrs), g.attrs['b'])\n\
                     print(f['ext'][8:12].tolist(), f['two'][()].tolist(), f['fixed'][()].tolist())";
        if let Some(out) = py(&p, check) {
            assert_eq!(
                out.trim(),
                "60 False True 40 x\n[8, 9, 100, 101] [[1, 2, 0], [3, 4, 0], [0, 0, 9]] \
                 [0, 0, 0, 7, 0, 0, 0, 0]"
            );
        }
        assert!(dump(&p, &[]).is_some());
    }
}

#[test]
fn dense_storage_beyond_one_heap_block() {
    // Thousands of links and attributes: the fractal heaps need a root indirect block.
    let p = tmp("dense-big", FileFormat::Latest);
    let f = h5::File::create_with(&p, FileFormat::Latest).unwrap();
    let g = f.create_group("g").unwrap();
    for i in 0..4000 {
        g.link_soft(&format!("/target/number/{i}"), &format!("link{i:05}"))
            .unwrap();
    }
    for i in 0..1500 {
        g.new_attr::<u64>()
            .create(&format!("attribute number {i}"))
            .unwrap()
            .write(&[i * 3])
            .unwrap();
    }
    f.close().unwrap();
    let script = "g = f['g']\nprint(len(g), g.get('link03999', getlink=True).path, len(g.attrs), \
                  g.attrs['attribute number 1499'])";
    if let Some(out) = py(&p, script) {
        assert_eq!(out.trim(), "4000 /target/number/3999 1500 4497");
    }
    if py_rw(&p, "f['g'].create_group('more')\nf['g'].attrs['more'] = 1").is_some() {
        if let Some(out) = py(&p, "print(len(f['g']), len(f['g'].attrs))") {
            assert_eq!(out.trim(), "4001 1501");
        }
    }
    if let Some(out) = dump(&p, &["-A", "-g", "/g"]) {
        assert_contains(
            &out,
            &["SOFTLINK \"link02500\" {\nLINKTARGET \"/target/number/2500\""],
        );
    }
}

#[test]
fn libhdf5_1_10_object_api_counts_what_we_wrote() {
    for format in FORMATS {
        let p = tmp("walk", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let g = f.create_group("g").unwrap();
        for i in 0..12 {
            g.create_group(&format!("c{i:02}")).unwrap();
        }
        g.new_attr::<u8>().create("one").unwrap();
        let d = f.new_dataset::<f32>().shape(&[2, 3]).create("d").unwrap();
        for i in 0..10 {
            d.new_attr::<u8>().create(&format!("a{i}")).unwrap();
        }
        f.link_hard("d", "g/d_again").unwrap();
        let t = f.commit_datatype("t", &u16::h5_type()).unwrap();
        f.new_dataset::<u16>()
            .committed(&t)
            .shape(&[4])
            .create("typed")
            .unwrap();
        f.close().unwrap();
        let Some(out) = h5_oracle::require(
            "write_walk",
            h5_oracle::run_c("write_walk", &[p.to_str().unwrap()], b""),
        ) else {
            return;
        };
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], ". group rc=1 attrs=0 links=4", "{out}");
        assert!(
            lines.contains(
                &"d dataset rc=2 attrs=10 npoints=6 @a0 @a1 @a2 @a3 @a4 @a5 @a6 @a7 @a8 @a9"
            ),
            "{out}"
        );
        assert!(
            lines.contains(&"g group rc=1 attrs=1 links=13 @one"),
            "{out}"
        );
        assert!(lines.contains(&"g/c11 group rc=1 attrs=0 links=0"), "{out}");
        assert!(lines.contains(&"t datatype rc=2 attrs=0"), "{out}");
        assert!(
            lines.contains(&"typed dataset rc=1 attrs=0 npoints=4"),
            "{out}"
        );
    }
}

#[test]
fn h5repack_copies_our_files_and_h5diff_finds_them_equal() {
    let (Some(repack), Some(h5diff)) = (
        h5_oracle::require("h5repack", h5_oracle::tool("h5repack")),
        h5_oracle::require("h5diff", h5_oracle::tool("h5diff")),
    ) else {
        return;
    };
    for format in FORMATS {
        let p = tmp("repack-src", format);
        let out = tmp("repack-out", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let g = f.create_group("a/b").unwrap();
        for i in 0..12 {
            g.new_attr::<i32>()
                .create(&format!("attr{i}"))
                .unwrap()
                .write(&[i])
                .unwrap();
        }
        let d = g
            .new_dataset::<Pair>()
            .shape(&[5])
            .max_shape(&[None])
            .chunk(&[2])
            .deflate(5)
            .create("pairs")
            .unwrap();
        d.write(
            &(0..5)
                .map(|i| Pair { a: i, b: i as f32 })
                .collect::<Vec<_>>(),
        )
        .unwrap();
        let v = f
            .new_dataset::<h5::types::h5type::VarLenArray<i16>>()
            .shape(&[3])
            .create("vl")
            .unwrap();
        let vl: Vec<h5::types::h5type::VarLenArray<i16>> =
            vec![vec![1i16].into(), Vec::new().into(), vec![2i16, 3].into()];
        v.write(&vl).unwrap();
        f.new_dataset::<u8>()
            .shape(&[4, 4])
            .compact()
            .create("small")
            .unwrap()
            .write(&[7u8; 16])
            .unwrap();
        f.link_soft("/a/b/pairs", "soft").unwrap();
        f.close().unwrap();
        let args = |extra: &[&'static str]| {
            let mut v: Vec<String> = extra.iter().map(|s| (*s).to_owned()).collect();
            v.push(p.to_str().unwrap().to_owned());
            v.push(out.to_str().unwrap().to_owned());
            v
        };
        let a = args(if format == FileFormat::Latest {
            &["-L"]
        } else {
            &[]
        });
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        h5_oracle::run(&repack, &a, b"").unwrap_or_else(|e| panic!("h5repack: {e}"));
        // h5diff exits 0 only when it finds no difference.
        h5_oracle::run(
            &h5diff,
            &["-r", p.to_str().unwrap(), out.to_str().unwrap()],
            b"",
        )
        .unwrap_or_else(|e| panic!("h5diff finds differences after h5repack: {e}"));
    }
}
