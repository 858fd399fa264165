//! The File Space Info message against the reference library.
//!
//! Version 0 (written by HDF5 1.10.0 only): the 1.10.8 C API no longer writes it, so the test
//! files are files the C library wrote with each strategy, whose version 1 message is encoded
//! again in the old form (strategy codes of `H5F_file_space_type_t`, six manager addresses
//! when persisting). The reference tools read them (`h5dump -B`, `h5stat -S`); `h5 dump`
//! must print what h5dump prints and `h5 check` must find them sound.

use std::path::{Path, PathBuf};
use std::process::Command;

use h5::format::cursor::{Cursor, Writer};
use h5::format::message::fs_info::{FileSpaceInfo, V0_MANAGERS};
use h5::format::message::{Message, MessageType};
use h5::format::object_header::{ObjectHeader, RawMessage};
use h5::format::superblock::parse_file_superblock;

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fs_info-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The C library's files, one per strategy, in `d`; `None` (skipped) without the oracle.
fn reference_files(d: &Path) -> Option<()> {
    let out = h5_oracle::require(
        "fs_strategy_files (libhdf5)",
        h5_oracle::run_c("fs_strategy_files", &[d.to_str().unwrap()], b""),
    )?;
    assert!(String::from_utf8_lossy(&out).contains("none.h5"));
    Some(())
}

fn tool(name: &str) -> Option<PathBuf> {
    h5_oracle::require(name, h5_oracle::tool(name))
}

fn run(exe: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(exe).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn h5(args: &[&str]) -> (i32, String, String) {
    run(Path::new(env!("CARGO_BIN_EXE_h5")), args)
}

/// Rewrite the File Space Info message of `path` (a version 1 message in a superblock
/// extension) as the version 0 message 1.10.0 wrote for the same strategy: the message
/// shrinks and a NIL message takes the bytes it frees, the header checksum is recomputed.
/// Returns the version 0 strategy written.
fn encode_version_0(path: &Path) -> u8 {
    let mut data = std::fs::read(path).unwrap();
    let (sb, _) = parse_file_superblock(&data).unwrap();
    let sizes = sb.sizes;
    let base = sb.base_address.0;
    let ext = sb.extension_address;
    assert!(
        !ext.is_undef(),
        "{}: no superblock extension",
        path.display()
    );
    let start = (base + ext.0) as usize;
    let mut h = ObjectHeader::parse(&mut Cursor::new(&data[start..], ext.0, sizes), |a, n| {
        panic!("unexpected continuation at {a:?} ({n} bytes)")
    })
    .unwrap();
    let version = h.version();
    let chunk = &mut h.chunks[0];
    let i = chunk
        .messages
        .iter()
        .position(|m| m.kind == MessageType::FILE_SPACE_INFO)
        .expect("a file space info message");
    let v1 = match chunk.messages[i].decode(sizes).unwrap() {
        Message::FileSpaceInfo(m) => m,
        m => panic!("{m:?}"),
    };
    let FileSpaceInfo::V1 {
        strategy,
        persist,
        threshold,
        managers,
        ..
    } = v1
    else {
        panic!("already version 0")
    };
    // H5F_FSPACE_STRATEGY_{FSM_AGGR, PAGE, AGGR, NONE} = 0..3 to H5F_FILE_SPACE_{ALL_PERSIST,
    // ALL, AGGR_VFD, VFD} = 1..4 (paging has no version 0 form).
    let old = match (strategy, persist) {
        (0, true) => 1,
        (0, false) => 2,
        (2, _) => 3,
        (3, _) => 4,
        s => panic!("strategy {s:?} has no version 0 form"),
    };
    let v0 = FileSpaceInfo::V0 {
        strategy: old,
        threshold,
        managers: (old == 1).then(|| managers.iter().copied().take(V0_MANAGERS).collect()),
    };
    let mut w = Writer::new(sizes);
    v0.encode(&mut w);
    let mut body = w.as_slice().to_vec();
    // Version 1 headers align messages to 8 bytes and give each an 8-byte header; version 2
    // headers use 4 (no creation order in an extension).
    let message_header = if version == 1 {
        body.resize(body.len().div_ceil(8) * 8, 0);
        8
    } else {
        4
    };
    let freed = chunk.messages[i].data.len() - body.len();
    assert!(freed >= message_header, "room for a NIL message header");
    chunk.messages[i].data = body;
    chunk
        .messages
        .insert(i + 1, RawMessage::nil(freed - message_header));
    let mut w = Writer::new(sizes);
    h.encode_chunk(0, &mut w).unwrap();
    let bytes = w.as_slice();
    data[start..start + bytes.len()].copy_from_slice(bytes);
    std::fs::write(path, &data).unwrap();
    // The file now holds the old form.
    let (sb, _) = parse_file_superblock(&data).unwrap();
    let h = ObjectHeader::parse(
        &mut Cursor::new(
            &data[(base + sb.extension_address.0) as usize..],
            ext.0,
            sizes,
        ),
        |_, _| unreachable!(),
    )
    .unwrap();
    let found = h
        .decode_messages(sizes)
        .unwrap()
        .into_iter()
        .find_map(|m| match m {
            Message::FileSpaceInfo(m) => Some(m),
            _ => None,
        });
    assert_eq!(found, Some(v0));
    old
}

/// What `h5stat -S` says the strategy is.
fn h5stat_strategy(h5stat: &Path, file: &Path) -> String {
    let (code, out, err) = run(h5stat, &["-S", file.to_str().unwrap()]);
    assert_eq!(code, 0, "h5stat -S {}: {err}", file.display());
    out.lines()
        .find_map(|l| l.strip_prefix("File space management strategy: "))
        .unwrap_or_else(|| panic!("h5stat -S {}: no strategy in\n{out}", file.display()))
        .to_owned()
}

#[test]
fn version_0_read_like_the_reference_library() {
    let d = dir("v0");
    let Some(()) = reference_files(&d) else {
        return;
    };
    let (Some(h5dump), Some(h5stat)) = (tool("h5dump"), tool("h5stat")) else {
        return;
    };
    for (name, expect) in [
        ("fsm_aggr_persist.h5", "H5F_FSPACE_STRATEGY_FSM_AGGR"),
        ("fsm_aggr.h5", "H5F_FSPACE_STRATEGY_FSM_AGGR"),
        ("aggr.h5", "H5F_FSPACE_STRATEGY_AGGR"),
        ("none.h5", "H5F_FSPACE_STRATEGY_NONE"),
    ] {
        let file = d.join(name);
        let before = h5stat_strategy(&h5stat, &file);
        encode_version_0(&file);
        let f = file.to_str().unwrap();
        // The reference library reads the old form and maps it to the same strategy.
        assert_eq!(h5stat_strategy(&h5stat, &file), before, "{name}");
        assert_eq!(before, expect, "{name}");
        for args in [&["-B", f][..], &[f][..]] {
            let (code, want, err) = run(&h5dump, args);
            assert_eq!(code, 0, "h5dump {args:?}: {err}");
            let (code, got, err) = h5(&[&["dump"][..], args].concat());
            assert_eq!(code, 0, "h5 dump {args:?}: {err}");
            assert_eq!(got, want, "h5 dump {args:?}");
        }
        let (code, out, err) = h5(&["check", f]);
        assert_eq!(code, 0, "h5 check {name}:\n{out}{err}");
    }
}

/// The version 0 message stays what it was after `h5::File::open_rw` changes the file (the
/// superblock extension is not rewritten): the reference library still reads the file, maps
/// the same strategy, and can itself modify it (using what it says of free space) after us.
#[test]
fn version_0_kept_by_in_place_writes() {
    let d = dir("v0-inplace");
    let Some(()) = reference_files(&d) else {
        return;
    };
    let (Some(h5dump), Some(h5stat)) = (tool("h5dump"), tool("h5stat")) else {
        return;
    };
    for name in ["fsm_aggr_persist.h5", "fsm_aggr.h5", "aggr.h5", "none.h5"] {
        let file = d.join(name);
        encode_version_0(&file);
        let strategy = h5stat_strategy(&h5stat, &file);
        let ext = |p: &Path| {
            let data = std::fs::read(p).unwrap();
            let (sb, _) = parse_file_superblock(&data).unwrap();
            let at = sb.extension_address.0 as usize;
            // A version 1 header (superblock 2): 16 bytes of prefix, then the size of chunk 0.
            let mut n = [0u8; 4];
            n.copy_from_slice(&data[at + 8..at + 12]);
            let len = 16 + u32::from_le_bytes(n) as usize;
            (sb.extension_address, data[at..at + len].to_vec())
        };
        let before = ext(&file);
        {
            let f = h5::File::open_rw(&file).unwrap();
            f.new_dataset::<i16>()
                .shape(&[4])
                .create("ours")
                .unwrap()
                .write(&[7, 8, 9, 10])
                .unwrap();
            f.dataset("e").unwrap().write(&[5i32; 10]).unwrap();
            f.close().unwrap();
        }
        assert_eq!(ext(&file), before, "{name}: the extension is untouched");
        assert_eq!(h5stat_strategy(&h5stat, &file), strategy, "{name}");
        let f = file.to_str().unwrap();
        let (code, out, err) = run(&h5dump, &["-d", "/ours", f]);
        assert_eq!(code, 0, "h5dump {name}: {err}");
        assert!(out.contains("(0): 7, 8, 9, 10"), "{out}");
        // The reference library modifies the file after us.
        h5_oracle::run_c("add_dataset", &[f, "theirs", "e"], b"")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(h5stat_strategy(&h5stat, &file), strategy, "{name}");
        for args in [&[f][..], &["-B", f][..]] {
            let (code, want, err) = run(&h5dump, args);
            assert_eq!(code, 0, "h5dump {args:?}: {err}");
            assert!(want.contains("(0): 0, 10, 20, 30, 40") || args[0] == "-B");
            let (code, got, err) = h5(&[&["dump"][..], args].concat());
            assert_eq!(code, 0, "h5 dump {args:?}: {err}");
            assert_eq!(got, want, "h5 dump {args:?}");
        }
        let (code, out, err) = h5(&["check", f]);
        assert_eq!(code, 0, "h5 check {name}:\n{out}{err}");
    }
}

/// Files of 1.10.1+ (version 1 messages), each strategy, persisting free space or not,
/// modified in place: the strategy stays (h5stat -S), and the reference library modifies
/// the file after us without losing what we wrote (a persisting file's free-space managers
/// are dropped, as h5clear drops them, so that the library does not shrink the file back to
/// the end it recorded before them).
#[test]
fn version_1_files_modified_in_place() {
    let d = dir("v1-inplace");
    let Some(()) = reference_files(&d) else {
        return;
    };
    let (Some(h5dump), Some(h5stat)) = (tool("h5dump"), tool("h5stat")) else {
        return;
    };
    for name in [
        "fsm_aggr_persist.h5",
        "fsm_aggr.h5",
        "aggr.h5",
        "none.h5",
        "page.h5",
    ] {
        let file = d.join(name);
        let strategy = h5stat_strategy(&h5stat, &file);
        {
            let f = h5::File::open_rw(&file).unwrap();
            f.new_dataset::<i16>()
                .shape(&[2000])
                .create("ours")
                .unwrap()
                .write(&vec![7i16; 2000])
                .unwrap();
            f.close().unwrap();
        }
        assert_eq!(h5stat_strategy(&h5stat, &file), strategy, "{name}");
        let f = file.to_str().unwrap();
        h5_oracle::run_c("add_dataset", &[f, "theirs", "e"], b"")
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(h5stat_strategy(&h5stat, &file), strategy, "{name}");
        let (code, want, err) = run(&h5dump, &[f]);
        assert_eq!(code, 0, "h5dump {name}: {err}");
        assert!(want.contains("(0): 0, 10, 20, 30, 40"), "{name}: {want}");
        assert!(want.contains("DATASET \"ours\""), "{name}: {want}");
        let (code, got, err) = h5(&["dump", f]);
        assert_eq!(code, 0, "h5 dump {name}: {err}");
        assert_eq!(got, want, "h5 dump {name}");
        let (code, out, err) = h5(&["check", f]);
        assert_eq!(code, 0, "h5 check {name}:\n{out}{err}");
    }
}
