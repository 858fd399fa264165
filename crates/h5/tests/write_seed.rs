//! The datatypes chapter's examples (seed 000), written by us and read by the reference
//! library: h5py must see exactly the expected values and h5dump 1.10.8 must print the file
//! (exit 0) with the expected DDL. Every example is written in both formats.

use std::path::PathBuf;

use h5::types::h5type::{FixedAscii, ObjectRef, VarLenArray, VarLenAscii};
use h5::types::Datatype;
use h5::{FileFormat, H5Type};

mod write_support;

use write_support::{assert_contains, dump, py, FORMATS};

fn tmp(name: &str, format: FileFormat) -> PathBuf {
    write_support::tmp_in("write-seed", name, format)
}

#[derive(H5Type, Clone, Copy, Debug)]
#[repr(C)]
struct S1 {
    #[h5(name = "a_name")]
    a: i32,
    #[h5(name = "b_name")]
    b: f32,
    #[h5(name = "c_name")]
    c: f64,
}

fn s1_data() -> Vec<S1> {
    (0..3)
        .map(|i| S1 {
            a: i,
            b: (i * i) as f32,
            c: 1.0 / (i as f64 + 1.0),
        })
        .collect()
}

const S1_DDL: &str = "DATATYPE  H5T_COMPOUND {
      H5T_STD_I32LE \"a_name\";
      H5T_IEEE_F32LE \"b_name\";
      H5T_IEEE_F64LE \"c_name\";
   }
   DATASPACE  SIMPLE { ( 3 ) / ( 3 ) }";

#[test]
fn compound_s1_whole() {
    for format in FORMATS {
        let p = tmp("s1-whole", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let ds = f
            .new_dataset::<S1>()
            .shape(&[3])
            .create("ArrayOfStructures")
            .unwrap();
        ds.write(&s1_data()).unwrap();
        f.close().unwrap();
        if let Some(out) = py(&p, "print(f['ArrayOfStructures'][()].tolist())") {
            assert_eq!(
                out.trim(),
                "[(0, 0.0, 1.0), (1, 1.0, 0.5), (2, 4.0, 0.3333333333333333)]"
            );
        }
        if let Some(out) = dump(&p, &[]) {
            assert_contains(&out, &[S1_DDL, "(2): {\n2,\n4,\n0.333333\n}"]);
        }
    }
}

/// Memory types holding one field each, as in the seed's H5Pset_preserve example.
#[derive(H5Type, Clone, Copy)]
#[repr(C)]
struct SB {
    #[h5(name = "b_name")]
    b: f32,
}

#[derive(H5Type, Clone, Copy)]
#[repr(C)]
struct SC {
    #[h5(name = "c_name")]
    c: f64,
}

#[derive(H5Type, Clone, Copy)]
#[repr(C)]
struct SA {
    #[h5(name = "a_name")]
    a: i32,
}

#[test]
fn compound_s1_by_field_with_preserve() {
    for format in FORMATS {
        for chunked in [false, true] {
            let p = tmp(&format!("s1-fields-{chunked}"), format);
            let f = h5::File::create_with(&p, format).unwrap();
            let mut b = f.new_dataset::<S1>().shape(&[3]);
            if chunked {
                b = b.chunk(&[2]);
            }
            let ds = b.create("ArrayOfStructures").unwrap();
            let d1: Vec<SB> = (0..3).map(|i| SB { b: (i * i) as f32 }).collect();
            let d2: Vec<SC> = (0..3)
                .map(|i| SC {
                    c: 1.0 / (i as f64 + 1.0),
                })
                .collect();
            ds.write(&d1).unwrap();
            ds.write(&d2).unwrap();
            f.flush().unwrap();
            // The default fill value initialised the unwritten integer field.
            if let Some(out) = py(&p, "print(f['ArrayOfStructures'][()].tolist())") {
                assert_eq!(
                    out.trim(),
                    "[(0, 0.0, 1.0), (0, 1.0, 0.5), (0, 4.0, 0.3333333333333333)]"
                );
            }
            // Then the third field alone: all three survive.
            ds.write(&[SA { a: 7 }, SA { a: 8 }, SA { a: 9 }]).unwrap();
            f.close().unwrap();
            if let Some(out) = py(&p, "print(f['ArrayOfStructures'][()].tolist())") {
                assert_eq!(
                    out.trim(),
                    "[(7, 0.0, 1.0), (8, 1.0, 0.5), (9, 4.0, 0.3333333333333333)]"
                );
            }
            if let Some(out) = dump(&p, &[]) {
                assert_contains(&out, &[S1_DDL]);
            }
        }
    }
}

#[derive(H5Type, Clone, Copy)]
#[repr(C)]
struct S1c {
    #[h5(name = "a_name")]
    a: i32,
    #[h5(name = "b_name")]
    b: i8,
    #[h5(name = "c_name")]
    c: f64,
}

#[derive(H5Type, Clone, Copy)]
#[repr(C)]
struct S2 {
    f1: f32,
    f2: f32,
}

/// The 89-byte record: T1 (s1_t), T2 (s2_t), T3 (int[10]), T4 (char[25]).
#[derive(H5Type, Clone, Copy)]
#[repr(C, packed)]
struct S5 {
    #[h5(name = "T1")]
    t1: S1c,
    #[h5(name = "T2")]
    t2: S2,
    #[h5(name = "T3")]
    t3: [i32; 10],
    #[h5(name = "T4")]
    t4: FixedAscii<25>,
}

#[test]
fn nested_compound_89_bytes_4x3() {
    assert_eq!(S5::h5_type().size(), 89);
    for format in FORMATS {
        let p = tmp("s5", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let ds = f.new_dataset::<S5>().shape(&[4, 3]).create("ds").unwrap();
        let data: Vec<S5> = (0..12)
            .map(|i| S5 {
                t1: S1c {
                    a: i,
                    b: b'a' as i8 + i as i8,
                    c: f64::from(i) / 2.0,
                },
                t2: S2 {
                    f1: i as f32,
                    f2: -(i as f32),
                },
                t3: core::array::from_fn(|k| i * 100 + k as i32),
                t4: FixedAscii::from_str_padded(&format!("record {i}")).unwrap(),
            })
            .collect();
        ds.write(&data).unwrap();
        f.close().unwrap();
        let script = "d = f['ds']\nprint(d.dtype.itemsize, d.shape)\nr = d[3, 2]\n\
                      print(r['T1'].tolist(), r['T2'].tolist(), r['T3'].tolist(), r['T4'])";
        if let Some(out) = py(&p, script) {
            assert_eq!(
                out.trim(),
                "89 (4, 3)\n(11, 108, 5.5) (11.0, -11.0) \
                 [1100, 1101, 1102, 1103, 1104, 1105, 1106, 1107, 1108, 1109] b'record 11'"
            );
        }
        if let Some(out) = dump(&p, &[]) {
            assert_contains(
                &out,
                &[
                    "H5T_ARRAY { [10] H5T_STD_I32LE } \"T3\";",
                    "H5T_STRING {\nSTRSIZE 25;\nSTRPAD H5T_STR_NULLTERM;\nCSET H5T_CSET_ASCII;\nCTYPE H5T_C_S1;\n} \"T4\";",
                    "DATASPACE  SIMPLE { ( 4, 3 ) / ( 4, 3 ) }",
                ],
            );
        }
    }
}

#[test]
fn two_dimensional_array_type() {
    for format in FORMATS {
        let p = tmp("array2d", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let ds = f
            .new_dataset::<[[i32; 2]; 3]>()
            .shape(&[4])
            .create("a")
            .unwrap();
        let data: Vec<[[i32; 2]; 3]> = (0..4)
            .map(|i| {
                core::array::from_fn(|r| core::array::from_fn(|c| i * 10 + (r * 2 + c) as i32))
            })
            .collect();
        ds.write(&data).unwrap();
        f.close().unwrap();
        if let Some(out) = py(
            &p,
            "d = f['a']\nprint(d.dtype.subdtype[1], d[()].tolist()[3])",
        ) {
            assert_eq!(out.trim(), "(3, 2) [[30, 31], [32, 33], [34, 35]]");
        }
        if let Some(out) = dump(&p, &[]) {
            assert_contains(&out, &["DATATYPE  H5T_ARRAY { [3][2] H5T_STD_I32LE }"]);
        }
    }
}

#[test]
fn vlen_sequences_of_unsigned_ints() {
    for format in FORMATS {
        let p = tmp("vlen", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let ds = f
            .new_dataset::<VarLenArray<u32>>()
            .shape(&[10])
            .create("Dataset1")
            .unwrap();
        let data: Vec<VarLenArray<u32>> = (0..10u32)
            .map(|i| (0..=i).map(|j| i * 10 + j).collect())
            .collect();
        ds.write(&data).unwrap();
        f.close().unwrap();
        if let Some(out) = py(
            &p,
            "print([x.tolist() for x in f['Dataset1'][()]][:4], f['Dataset1'][9].tolist())",
        ) {
            assert_eq!(
                out.trim(),
                "[[0], [10, 11], [20, 21, 22], [30, 31, 32, 33]] \
                 [90, 91, 92, 93, 94, 95, 96, 97, 98, 99]"
            );
        }
        if let Some(out) = dump(&p, &[]) {
            assert_contains(
                &out,
                &[
                    "DATATYPE  H5T_VLEN { H5T_STD_U32LE}",
                    "(0): (0), (10, 11), (20, 21, 22), (30, 31, 32, 33),",
                    "(9): (90, 91, 92, 93, 94, 95, 96, 97, 98, 99)",
                ],
            );
        }
    }
}

#[test]
fn vlen_strings_in_datasets_and_attributes() {
    for format in FORMATS {
        let p = tmp("vlstr", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let words = ["Parting", "is such", "sweet", "sorrow.", ""];
        let data: Vec<VarLenAscii> = words
            .iter()
            .map(|w| VarLenAscii::from_string((*w).to_owned()).unwrap())
            .collect();
        let ds = f
            .new_dataset::<VarLenAscii>()
            .shape(&[5])
            .create("strings")
            .unwrap();
        ds.write(&data).unwrap();
        ds.new_attr::<VarLenAscii>()
            .create("title")
            .unwrap()
            .write(&[VarLenAscii::from_string("Romeo and Juliet".into()).unwrap()])
            .unwrap();
        f.close().unwrap();
        let script = "print([s.decode() for s in f['strings'][()]], f['strings'].attrs['title'])";
        if let Some(out) = py(&p, script) {
            assert_eq!(
                out.trim(),
                "['Parting', 'is such', 'sweet', 'sorrow.', ''] Romeo and Juliet"
            );
        }
        if let Some(out) = dump(&p, &[]) {
            assert_contains(
                &out,
                &[
                    "STRSIZE H5T_VARIABLE;",
                    "(0): \"Parting\", \"is such\", \"sweet\", \"sorrow.\", \"\"",
                ],
            );
        }
    }
}

#[derive(H5Type, Clone, Copy, Debug, PartialEq)]
#[repr(i16)]
enum Color {
    #[h5(name = "RED")]
    Red = 0,
    #[h5(name = "GREEN")]
    Green = 1,
    #[h5(name = "BLUE")]
    Blue = 2,
    #[h5(name = "WHITE")]
    White = 3,
    #[h5(name = "BLACK")]
    Black = 4,
}

#[test]
fn five_colour_enum() {
    use Color::*;
    for format in FORMATS {
        let p = tmp("enum", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let ds = f
            .new_dataset::<Color>()
            .shape(&[8])
            .create("colors")
            .unwrap();
        ds.write(&[Black, Red, White, Blue, Green, Red, Black, White])
            .unwrap();
        f.close().unwrap();
        let script = "d = f['colors']\nm = h5py.check_enum_dtype(d.dtype)\n\
                      inv = {v: k for k, v in m.items()}\n\
                      print(sorted(m.items(), key=lambda kv: kv[1]), d.dtype.itemsize)\n\
                      print([inv[v] for v in d[()].tolist()])";
        if let Some(out) = py(&p, script) {
            assert_eq!(
                out.trim(),
                "[('RED', 0), ('GREEN', 1), ('BLUE', 2), ('WHITE', 3), ('BLACK', 4)] 2\n\
                 ['BLACK', 'RED', 'WHITE', 'BLUE', 'GREEN', 'RED', 'BLACK', 'WHITE']"
            );
        }
        if let Some(out) = dump(&p, &[]) {
            assert_contains(
                &out,
                &[
                    "DATATYPE  H5T_ENUM {\nH5T_STD_I16LE;\n\"RED\"              0;",
                    "(0): BLACK, RED, WHITE, BLUE, GREEN, RED, BLACK, WHITE",
                ],
            );
        }
    }
}

#[test]
fn object_references_to_groups_datasets_and_committed_types() {
    for format in FORMATS {
        let p = tmp("objref", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let g = f.create_group("Group1").unwrap();
        let d1 = g
            .new_dataset::<u32>()
            .shape(&[4])
            .create("Dataset1")
            .unwrap();
        d1.write(&[1u32, 2, 3, 4]).unwrap();
        let d2 = g
            .new_dataset::<u8>()
            .shape(&[2])
            .create("Dataset2")
            .unwrap();
        let t = g
            .commit_datatype(
                "Datatype1",
                &"H5T_COMPOUND { H5T_STD_I32LE \"a\"; H5T_IEEE_F32LE \"b\"; }"
                    .parse::<Datatype>()
                    .unwrap(),
            )
            .unwrap();
        let refs: Vec<ObjectRef> = vec![
            d1.reference().unwrap(),
            d2.reference().unwrap(),
            g.reference().unwrap(),
            t.reference().unwrap(),
        ];
        let ds = f
            .new_dataset::<ObjectRef>()
            .shape(&[4])
            .create("Dataset3")
            .unwrap();
        ds.write(&refs).unwrap();
        f.close().unwrap();
        let script =
            "print([f[r].name for r in f['Dataset3'][()]], f[f['Dataset3'][0]][()].tolist())";
        if let Some(out) = py(&p, script) {
            assert_eq!(
                out.trim(),
                "['/Group1/Dataset1', '/Group1/Dataset2', '/Group1', '/Group1/Datatype1'] [1, 2, 3, 4]"
            );
        }
        if let Some(out) = dump(&p, &[]) {
            assert_contains(
                &out,
                &[
                    "DATATYPE  H5T_REFERENCE { H5T_STD_REF_OBJECT }",
                    "\"/Group1/Dataset1\"\nDATA {\n(0): 1, 2, 3, 4\n}",
                    "\"/Group1/Dataset2\"",
                    "DATATYPE \"Datatype1\" H5T_COMPOUND {",
                ],
            );
        }
    }
}

#[test]
fn opaque_and_bitfield_data() {
    for format in FORMATS {
        let p = tmp("opaque", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let opaque: Datatype = "H5T_OPAQUE { OPQ_SIZE 4; OPQ_TAG \"certificate\"; }"
            .parse()
            .unwrap();
        let ds = f
            .new_dataset::<[u8; 4]>()
            .dtype(opaque.clone())
            .shape(&[3])
            .create("opaque")
            .unwrap();
        ds.write_raw(
            None,
            &opaque,
            &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
            &Default::default(),
        )
        .unwrap();
        let bits: Datatype = "H5T_STD_B16LE".parse().unwrap();
        let ds = f
            .new_dataset::<u16>()
            .dtype(bits.clone())
            .shape(&[4])
            .create("bits")
            .unwrap();
        let words: Vec<u8> = [0x0001u16, 0x8000, 0xff00, 0x1234]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        ds.write_raw(None, &bits, &words, &Default::default())
            .unwrap();
        f.close().unwrap();
        // h5py's high level cannot read tagged opaque data: read with the file type.
        let script = "o = f['opaque']\nt = o.id.get_type()\na = np.zeros(3, 'V4')\n\
                      o.id.read(h5py.h5s.ALL, h5py.h5s.ALL, a, t)\n\
                      print(t.get_class() == h5py.h5t.OPAQUE, t.get_tag(), a.tobytes().hex())\nb = f['bits']\n\
                      print(b.id.get_type().get_class() == h5py.h5t.BITFIELD, b[()].view('<u2').tolist())";
        if let Some(out) = py(&p, script) {
            assert_eq!(
                out.trim(),
                "True b'certificate' 0102030405060708090a0b0c\nTrue [1, 32768, 65280, 4660]"
            );
        }
        if let Some(out) = dump(&p, &[]) {
            assert_contains(
                &out,
                &[
                    "DATATYPE  H5T_OPAQUE {\nOPAQUE_TAG \"certificate\";\n}",
                    "(0): 01:02:03:04, 05:06:07:08, 09:0a:0b:0c",
                    "DATATYPE  H5T_STD_B16LE",
                    "(0): 01:00, 00:80, 00:ff, 34:12",
                ],
            );
        }
    }
}

#[derive(H5Type, Clone, Copy)]
#[repr(C)]
struct Filler {
    #[h5(name = "a_name")]
    a: i32,
    #[h5(name = "b_name")]
    b: i8,
    #[h5(name = "c_name")]
    c: f64,
}

#[test]
fn fill_values_for_ints_and_compounds() {
    for format in FORMATS {
        for chunked in [false, true] {
            let p = tmp(&format!("fill-{chunked}"), format);
            let f = h5::File::create_with(&p, format).unwrap();
            let mut b = f
                .new_dataset::<i32>()
                .dtype("H5T_STD_I32BE".parse().unwrap())
                .shape(&[6])
                .fill_value(-1);
            if chunked {
                b = b.chunk(&[4]);
            }
            let d = b.create("dset").unwrap();
            d.write_slab(&[1], &[2], &[10, 11]).unwrap();
            let mut b = f.new_dataset::<Filler>().shape(&[3]).fill_value(Filler {
                a: -1,
                b: b'*' as i8,
                c: -2.0,
            });
            if chunked {
                b = b.chunk(&[2]);
            }
            let c = b.create("compound").unwrap();
            c.write_slab(&[1], &[1], &[Filler { a: 5, b: 6, c: 7.5 }])
                .unwrap();
            // Never written: all fill values (no storage allocated).
            f.new_dataset::<i32>()
                .shape(&[2])
                .fill_value(42)
                .create("unwritten")
                .unwrap();
            f.close().unwrap();
            let script = "print(f['dset'].dtype, f['dset'][()].tolist(), f['dset'].fillvalue)\n\
                          print(f['compound'][()].tolist())\nprint(f['unwritten'][()].tolist())";
            if let Some(out) = py(&p, script) {
                assert_eq!(
                    out.trim(),
                    ">i4 [-1, 10, 11, -1, -1, -1] -1\n\
                     [(-1, 42, -2.0), (5, 6, 7.5), (-1, 42, -2.0)]\n[42, 42]"
                );
            }
            if let Some(out) = dump(&p, &["-p"]) {
                assert_contains(
                    &out,
                    &[
                        "DATATYPE  H5T_STD_I32BE",
                        "FILLVALUE {\nFILL_TIME H5D_FILL_TIME_IFSET\nVALUE  -1\n}",
                        "(0): -1, 10, 11, -1, -1, -1",
                    ],
                );
            }
        }
    }
}

#[derive(H5Type, Clone)]
#[repr(C)]
struct Record {
    id: u16,
    name: h5::types::h5type::VarLenUnicode,
    values: VarLenArray<f32>,
    tags: [VarLenAscii; 2],
}

#[test]
fn compounds_with_variable_length_members() {
    use h5::types::h5type::VarLenUnicode;
    for format in FORMATS {
        let p = tmp("vlcompound", format);
        let f = h5::File::create_with(&p, format).unwrap();
        let recs: Vec<Record> = (0..3u16)
            .map(|i| Record {
                id: i,
                name: VarLenUnicode::from_string(format!("nämé {i}")).unwrap(),
                values: (0..i).map(|v| f32::from(v) + 0.5).collect(),
                tags: [
                    VarLenAscii::from_string(format!("t{i}")).unwrap(),
                    VarLenAscii::from_string(String::new()).unwrap(),
                ],
            })
            .collect();
        let ds = f
            .new_dataset::<Record>()
            .shape(&[3])
            .create("records")
            .unwrap();
        ds.write(&recs).unwrap();
        f.close().unwrap();
        let script = "d = f['records']\nfor r in d[()]:\n    \
                      print(r['id'], r['name'].decode(), r['values'].tolist(), [t.decode() for t in r['tags']])";
        if let Some(out) = py(&p, script) {
            assert_eq!(
                out.trim(),
                "0 nämé 0 [] ['t0', '']\n1 nämé 1 [0.5] ['t1', '']\n2 nämé 2 [0.5, 1.5] ['t2', '']"
            );
        }
        if let Some(out) = dump(&p, &[]) {
            assert_contains(
                &out,
                &[
                    "H5T_VLEN { H5T_IEEE_F32LE} \"values\";",
                    "CSET H5T_CSET_UTF8;",
                ],
            );
        }
    }
}

#[test]
fn h5diff_finds_no_difference_with_the_reference_librarys_files() {
    // The same objects written by h5py (the reference library) and by us compare equal.
    let Some(py) = h5_oracle::require("h5py", h5_oracle::h5py()) else {
        return;
    };
    let Some(h5diff) = h5_oracle::require("h5diff", h5_oracle::tool("h5diff")) else {
        return;
    };
    for format in FORMATS {
        let ours = tmp("diff-ours", format);
        let theirs = tmp("diff-theirs", format);
        let f = h5::File::create_with(&ours, format).unwrap();
        f.new_dataset::<S1>()
            .shape(&[3])
            .create("s1")
            .unwrap()
            .write(&s1_data())
            .unwrap();
        let g = f.create_group("grp").unwrap();
        g.new_dataset::<Color>()
            .shape(&[3])
            .create("colors")
            .unwrap()
            .write(&[Color::Blue, Color::Red, Color::Black])
            .unwrap();
        g.new_dataset::<VarLenAscii>()
            .shape(&[2])
            .create("strings")
            .unwrap()
            .write(&[
                VarLenAscii::from_string("a".into()).unwrap(),
                VarLenAscii::from_string("bc".into()).unwrap(),
            ])
            .unwrap();
        g.new_attr::<f32>()
            .shape(&[2])
            .create("at")
            .unwrap()
            .write(&[1.5, -2.0])
            .unwrap();
        f.close().unwrap();
        let script = "import sys, h5py, numpy as np\nf = h5py.File(sys.argv[1], 'w')\n\
            t = np.dtype([('a_name', '<i4'), ('b_name', '<f4'), ('c_name', '<f8')])\n\
            f['s1'] = np.array([(i, i * i, 1.0 / (i + 1)) for i in range(3)], dtype=t)\n\
            e = h5py.enum_dtype({'RED': 0, 'GREEN': 1, 'BLUE': 2, 'WHITE': 3, 'BLACK': 4}, basetype='<i2')\n\
            f.create_dataset('grp/colors', data=np.array([2, 0, 4], dtype='<i2'), dtype=e)\n\
            f.create_dataset('grp/strings', data=[b'a', b'bc'], dtype=h5py.string_dtype('ascii'))\n\
            f['grp'].attrs['at'] = np.array([1.5, -2.0], dtype='<f4')\nf.close()";
        h5_oracle::run(&py, &["-c", script, theirs.to_str().unwrap()], b"").unwrap();
        let out = h5_oracle::run(
            &h5diff,
            &["-r", ours.to_str().unwrap(), theirs.to_str().unwrap()],
            b"",
        )
        .unwrap_or_else(|e| panic!("h5diff reports differences: {e}"));
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("0 differences found"), "{out}");
    }
}
