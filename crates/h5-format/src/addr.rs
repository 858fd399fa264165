//! Typed file addresses and the superblock's field sizes.

use std::fmt;

/// An absolute file address (relative to the base address, as every address in a file is).
/// [`Addr::UNDEF`] is the "undefined address" (all bits set in the file).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Addr(pub u64);

impl Addr {
    /// The undefined address.
    pub const UNDEF: Addr = Addr(u64::MAX);

    /// Whether this is the undefined address.
    pub const fn is_undef(self) -> bool {
        self.0 == u64::MAX
    }

    /// The address as a number, or `None` when undefined.
    pub const fn get(self) -> Option<u64> {
        if self.is_undef() {
            None
        } else {
            Some(self.0)
        }
    }
}

impl fmt::Debug for Addr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_undef() {
            f.write_str("Addr(UNDEF)")
        } else {
            write!(f, "Addr({:#x})", self.0)
        }
    }
}

impl fmt::Display for Addr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_undef() {
            f.write_str("UNDEF")
        } else {
            write!(f, "{:#x}", self.0)
        }
    }
}

/// "Size of Offsets" and "Size of Lengths" from the superblock, in bytes (2, 4 or 8 each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sizes {
    /// Size of Offsets: bytes in an address.
    pub offset: u8,
    /// Size of Lengths: bytes in a length.
    pub length: u8,
}

impl Sizes {
    /// 8-byte offsets and lengths, what the reference library writes by default.
    pub const DEFAULT: Sizes = Sizes {
        offset: 8,
        length: 8,
    };

    /// Whether both sizes are among those the specification allows (2, 4, 8; the reference
    /// library also accepts 16 for lengths in principle, which no file uses).
    pub const fn is_valid(self) -> bool {
        matches!(self.offset, 2 | 4 | 8) && matches!(self.length, 2 | 4 | 8)
    }
}

impl Default for Sizes {
    fn default() -> Self {
        Sizes::DEFAULT
    }
}
