//! Unit tests of the writer: what it writes parses back with h5-format.

use super::*;
use h5_format::superblock::parse_file_superblock;

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("h5-io-write-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn empty_file_has_a_superblock_and_root() {
    for format in [FileFormat::Compatible, FileFormat::Latest] {
        let p = tmp(&format!("empty-{format:?}.h5"));
        let w = FileWriter::create(&p, format).unwrap();
        w.close().unwrap();
        let bytes = std::fs::read(&p).unwrap();
        let (sb, at) = parse_file_superblock(&bytes).unwrap();
        assert_eq!(at, 0);
        assert_eq!(sb.eof_address.0, bytes.len() as u64);
        assert_eq!(
            sb.version,
            if format == FileFormat::Compatible {
                0
            } else {
                2
            }
        );
    }
}
