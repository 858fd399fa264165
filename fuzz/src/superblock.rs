//! Target `superblock`: the superblock (every version), the symbol table entry it holds and
//! the driver information block.

use arbitrary::Unstructured;
use h5_format::driver_info::DriverInfoBlock;
use h5_format::superblock::{self, Superblock};
use h5_format::symbol_table_entry::SymbolTableEntry;
use h5_format::Cursor;

/// Parse the input as a superblock (signature first), a symbol table entry and a driver
/// information block; round-trip whatever parses.
pub fn run(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let (cfg, data) = crate::split(u)?;
    let sizes = crate::sizes_of(cfg);
    if let Ok(sb) = Superblock::parse(&mut Cursor::new(data, 0, sizes)) {
        crate::roundtrip(
            "superblock",
            &sb,
            sb.sizes,
            |s, w| s.encode(w),
            Superblock::parse,
        );
        let _ = sb.root_object_header();
        let _ = sb.encoded_len();
    }
    let _ = superblock::find_signature_in(data);
    let _ = superblock::parse_file_superblock(data);
    if let Ok(e) = SymbolTableEntry::parse(&mut Cursor::new(data, 0, sizes)) {
        crate::roundtrip(
            "symbol table entry",
            &e,
            sizes,
            |e, w| e.encode(w),
            SymbolTableEntry::parse,
        );
    }
    if let Ok(d) = DriverInfoBlock::parse(&mut Cursor::new(data, 0, sizes)) {
        crate::roundtrip(
            "driver information block",
            &d,
            sizes,
            |d, w| d.encode(w),
            DriverInfoBlock::parse,
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn smoke() {
        let mut seeds = crate::smoke::signature_seeds(&[&h5_format::superblock::SIGNATURE], 256);
        seeds.extend(crate::smoke::corpus_files(4096).into_iter().map(|f| {
            let mut s = vec![0u8];
            s.extend(f);
            s
        }));
        crate::smoke::run("superblock", super::run, &seeds, 4000);
    }
}
