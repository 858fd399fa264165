//! Variable-length strings and sequences.
//!
//! Their contents live in a [`VarLenHeap`]; a buffer element holds a handle to a heap entry.

use super::except::Ctx;
use super::plan::Plan;
use super::string::{capacity, check_fits, content, fixed_size, write_fixed};
use super::Kernel;
use crate::{Error, ErrorKind, Result, StringType, VLEN_MEMORY_SIZE, VLEN_STRING_MEMORY_SIZE};

const WORD: usize = std::mem::size_of::<usize>();

/// The contents of variable-length values, indexed by handles.
///
/// The in-memory representation of a variable-length element in a conversion buffer is:
///
/// * a variable-length string ([`VLEN_STRING_MEMORY_SIZE`] bytes): the handle as a
///   native-endian `usize`;
/// * a variable-length sequence ([`VLEN_MEMORY_SIZE`] bytes, the shape of `hvl_t`): the number
///   of base elements, then the handle, both native-endian `usize`.
///
/// Handle 0 is the null value (a null string, an empty sequence); handle `k > 0` is entry
/// `k - 1`. An entry of a string holds its bytes without terminator; an entry of a sequence
/// holds its elements packed, each in the base type's in-memory representation.
/// Conversions add new entries for the destination and leave the source entries in place.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VarLenHeap {
    entries: Vec<Vec<u8>>,
}

impl VarLenHeap {
    /// An empty heap.
    pub fn new() -> Self {
        Self::default()
    }

    /// Store bytes and return their handle (never 0).
    pub fn insert(&mut self, bytes: Vec<u8>) -> usize {
        self.entries.push(bytes);
        self.entries.len()
    }

    /// The bytes of a handle; `Some(&[])` for the null handle, `None` for an unknown one.
    pub fn get(&self, handle: usize) -> Option<&[u8]> {
        if handle == 0 {
            return Some(&[]);
        }
        self.entries.get(handle - 1).map(Vec::as_slice)
    }

    /// The bytes of a non-null handle; an error for 0 or an unknown handle.
    pub fn entry(&self, handle: usize) -> Result<&[u8]> {
        handle
            .checked_sub(1)
            .and_then(|i| self.entries.get(i))
            .map(Vec::as_slice)
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::NotFound,
                    format!(
                        "variable-length handle {handle} is not in the heap ({} entries)",
                        self.entries.len()
                    ),
                )
            })
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the heap is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The buffer element of a variable-length string with these bytes.
    pub fn string_element(&mut self, s: &[u8]) -> [u8; VLEN_STRING_MEMORY_SIZE] {
        self.insert(s.to_vec()).to_ne_bytes()
    }

    /// The buffer element of a sequence of `count` elements packed in `bytes`.
    pub fn sequence_element(&mut self, count: usize, bytes: Vec<u8>) -> [u8; VLEN_MEMORY_SIZE] {
        let h = self.insert(bytes);
        let mut e = [0u8; VLEN_MEMORY_SIZE];
        e[..WORD].copy_from_slice(&count.to_ne_bytes());
        e[WORD..].copy_from_slice(&h.to_ne_bytes());
        e
    }

    /// The bytes of a variable-length string element.
    pub fn string_of(&self, element: &[u8]) -> Result<&[u8]> {
        let h = read_word(element, 0)?;
        self.get(h).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidArgument,
                format!("unknown variable-length handle {h}"),
            )
        })
    }

    /// The element count and packed bytes of a sequence element.
    pub fn sequence_of(&self, element: &[u8]) -> Result<(usize, &[u8])> {
        let count = read_word(element, 0)?;
        let h = read_word(element, WORD)?;
        let bytes = self.get(h).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidArgument,
                format!("unknown variable-length handle {h}"),
            )
        })?;
        Ok((count, bytes))
    }
}

fn read_word(b: &[u8], at: usize) -> Result<usize> {
    let w = b.get(at..at + WORD).ok_or_else(|| {
        Error::new(
            ErrorKind::BufferSize,
            "variable-length element is too short",
        )
    })?;
    let mut a = [0u8; WORD];
    a.copy_from_slice(w);
    Ok(usize::from_ne_bytes(a))
}

fn no_heap() -> Error {
    Error::new(
        ErrorKind::InvalidArgument,
        "variable-length data cannot be converted here without the values it points to \
         (read it into a variable-length type)",
    )
}

/// Strings where at least one side is variable-length.
#[derive(Clone, Debug)]
pub(crate) struct StrVarPlan {
    src: StringType,
    dst: StringType,
}

impl StrVarPlan {
    pub(crate) fn new(src: StringType, dst: StringType) -> Self {
        StrVarPlan { src, dst }
    }
}

impl Kernel for StrVarPlan {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        let strict = ctx.strict;
        // The first string too long for a fixed-length destination, under strict options.
        let mut too_long = None;
        let heap = ctx.heap.as_deref_mut().ok_or_else(no_heap)?;
        let ssize = if self.src.is_variable() {
            VLEN_STRING_MEMORY_SIZE
        } else {
            fixed_size(&self.src)
        };
        let dsize = if self.dst.is_variable() {
            VLEN_STRING_MEMORY_SIZE
        } else {
            fixed_size(&self.dst)
        };
        for i in 0..n {
            let se = &src[i * ss..i * ss + ssize];
            let chars: Vec<u8> = if self.src.is_variable() {
                let s = heap.string_of(se)?;
                // A variable-length string ends at its first NUL, if any.
                let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
                s[..end].to_vec()
            } else {
                content(self.src.pad, se).to_vec()
            };
            let de = &mut dst[i * ds..i * ds + dsize];
            if self.dst.is_variable() {
                if self.src.is_variable() && read_word(se, 0)? == 0 {
                    de.fill(0);
                } else {
                    de.copy_from_slice(&heap.string_element(&chars));
                }
            } else {
                if strict && too_long.is_none() && chars.len() > capacity(self.dst.pad, dsize) {
                    too_long = Some((i, chars.len()));
                }
                write_fixed(self.dst.pad, &chars, de);
            }
        }
        if let Some((i, len)) = too_long {
            check_fits(ctx, i, len, self.dst.pad, dsize);
        }
        Ok(())
    }
}

/// Sequence to sequence: each sequence's elements converted by the base path.
#[derive(Clone, Debug)]
pub(crate) struct SeqPlan {
    pub(crate) src_base: usize,
    pub(crate) dst_base: usize,
    pub(crate) base: Plan,
}

impl Kernel for SeqPlan {
    fn run(
        &self,
        src: &[u8],
        ss: usize,
        dst: &mut [u8],
        ds: usize,
        n: usize,
        ctx: &mut Ctx,
    ) -> Result<()> {
        let (b0, d0) = (ctx.base, ctx.div);
        for i in 0..n {
            let se = &src[i * ss..i * ss + VLEN_MEMORY_SIZE];
            let heap = ctx.heap.as_deref_mut().ok_or_else(no_heap)?;
            let (count, bytes) = heap.sequence_of(se)?;
            let need = count.checked_mul(self.src_base);
            if need.is_none_or(|b| b > bytes.len()) {
                return Err(Error::new(
                    ErrorKind::BufferSize,
                    format!(
                        "sequence of {count} elements has only {} bytes",
                        bytes.len()
                    ),
                ));
            }
            let input = bytes.to_vec();
            let out_len = count.checked_mul(self.dst_base).ok_or_else(|| {
                Error::new(
                    ErrorKind::BufferSize,
                    format!("sequence of {count} elements is too large"),
                )
            })?;
            let mut out = vec![0u8; out_len];
            ctx.base = super::compound::ctx_outer(b0, d0, i) * count.max(1);
            ctx.div = count.max(1);
            let r = self
                .base
                .run(&input, self.src_base, &mut out, self.dst_base, count, ctx);
            ctx.base = b0;
            ctx.div = d0;
            r?;
            let heap = ctx.heap.as_deref_mut().ok_or_else(no_heap)?;
            let elem = if read_word(se, WORD)? == 0 {
                [0u8; VLEN_MEMORY_SIZE]
            } else {
                heap.sequence_element(count, out)
            };
            dst[i * ds..i * ds + VLEN_MEMORY_SIZE].copy_from_slice(&elem);
        }
        Ok(())
    }
}
