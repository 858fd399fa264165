//! [`H5Type`]: the HDF5 datatype of a Rust type, and a safe codec between Rust values and the
//! bytes of that datatype.
//!
//! `#[derive(H5Type)]` (crate `h5-derive`, re-exported by `h5`) implements the trait for
//! `repr(C)` structs and `repr(int)` enums; this module implements it for the primitives,
//! arrays, strings, variable-length sequences and references.
//!
//! # The contract
//!
//! For every implementation, `T::h5_type().size() == T::IMAGE_SIZE`, which is
//! `size_of::<T>()` for every type but `String` and `&str` (and arrays of them), and the
//! datatype's members sit where Rust puts the fields (offsets come from
//! `core::mem::offset_of!`). The datatype is therefore exactly what the reference library
//! builds for the equivalent C type with `H5Tcreate` and `H5Tinsert(.., HOFFSET(..), ..)`.
//!
//! `String` and `&str` are variable-length UTF-8 strings, as h5py writes `str`: their image
//! is a `char *` ([`VLEN_STRING_MEMORY_SIZE`] bytes), narrower than the Rust value, so
//! [`H5Type::IMAGE_SIZE`] says how far apart their images lie in a buffer. As a struct
//! member a `String` takes the first bytes of its field. Reading `String` accepts every
//! string datatype (see [`H5Type::read_type`]).
//!
//! # Moving values: the memory image
//!
//! This project never hands memory to C, and it has no `unsafe`: a value never becomes bytes
//! by a cast. Instead every type encodes itself into, and decodes itself from, the *memory
//! image* of its datatype: [`H5Type::encode`] writes the `size_of::<T>()` bytes that the C
//! library would hold for the equivalent C value, and [`H5Type::decode`] reads them back,
//! checking every value (enum discriminants, booleans, UTF-8...). Converting that image to and
//! from a file's datatype is the converter's job.
//!
//! Variable-length data cannot live inside the image. A variable-length slot holds a handle
//! into a [`VarLenHeap`] that travels with the image:
//!
//! * a sequence ([`VarLenArray`], `H5T_VLEN`, [`VLEN_MEMORY_SIZE`] bytes, shaped as `hvl_t`)
//!   holds the element count as a native `usize`, then the handle as a native `usize`; the
//!   heap entry holds the elements' own memory images back to back (which may hold further
//!   handles into the same heap, so sequences nest);
//! * a string ([`VarLenUnicode`], [`VarLenAscii`], [`VLEN_STRING_MEMORY_SIZE`] bytes, shaped as
//!   `char *`) holds the handle as a native `usize`; the heap entry holds the string's bytes
//!   without a terminator.
//!
//! Handle 0 is the null pointer: an empty sequence or a null string (read as empty).
//!
//! Types without variable-length parts have [`H5Type::IS_POD`] set: their image is
//! self-contained and equals their Rust memory layout (up to padding bytes), so a reader may
//! copy it directly when it can do so safely, and never needs a heap.
//!
//! # Byte images: no encoding at all
//!
//! Some types can be viewed as bytes safely, so that a reader fills a `Vec<T>`'s memory
//! straight from the file's bytes and a writer writes the values' memory as it is
//! ([`H5Type::image_bytes_mut`], [`H5Type::image_bytes`], [`H5Type::zeroed_vec`];
//! [`H5Type::has_byte_image`] says whether a type has them): the primitive integers and
//! floats (through `bytemuck`), and derived `#[repr(C)]` structs marked `#[h5(zerocopy)]`,
//! which also derive [`zerocopy`]'s `FromBytes`, `IntoBytes` and `Immutable` (every bit
//! pattern a valid value, no padding byte, no interior mutability). Their memory is their
//! image, so whenever the file's datatype equals the memory type byte for byte the read is
//! a copy; when it does not, the file's bytes are converted inside the vector's memory.

use core::fmt;
use core::marker::PhantomData;
use core::mem::size_of;

use crate::compose::MAX_ARRAY_RANK;
use crate::datatype::*;
use crate::{Error, ErrorKind, Result};

/// A Rust type with an HDF5 datatype, and a codec to and from that datatype's memory image.
///
/// Implemented for `i8`..`i128`, `u8`..`u128`, `isize`, `usize`, `f32`, `f64`, `bool`,
/// `[T; N]`, the fixed-size strings [`FixedAscii`] and [`FixedUnicode`], the variable-length
/// types [`VarLenAscii`], [`VarLenUnicode`] and [`VarLenArray`], the references
/// [`ObjectRef`] and [`RegionRef`], `half::f16` (feature `half`) and
/// `num_complex::Complex<f32 | f64>` (feature `num-complex`); and by `#[derive(H5Type)]`.
///
/// See the [module documentation](self) for the contract and the memory image.
pub trait H5Type: Sized {
    /// Whether the type has no variable-length part. Its memory image is then self-contained:
    /// encoding never touches the heap, and the image equals the Rust layout.
    const IS_POD: bool;

    /// The size of the memory image of one value, which is `h5_type().size()`: elements of a
    /// buffer of images lie this many bytes apart. `size_of::<Self>()`, the default, for
    /// every type whose image is its Rust layout; smaller for `String` and `&str`.
    const IMAGE_SIZE: usize = size_of::<Self>();

    /// The in-memory datatype: native byte order, members at the offsets Rust gives the
    /// fields, total size `size_of::<Self>()`.
    fn h5_type() -> Datatype;

    /// The packed variant of [`h5_type`](H5Type::h5_type), as `H5Tpack` makes it: compound
    /// members placed one after the other without padding, recursively. Use it for compact
    /// storage in files.
    fn h5_type_packed() -> Datatype {
        pack(&Self::h5_type())
    }

    /// Write the memory image of `self` into the first [`IMAGE_SIZE`](H5Type::IMAGE_SIZE)
    /// bytes of `out`;
    /// variable-length parts go to `heap`. Padding bytes are left as they are. Fails only when
    /// `out` is too short.
    fn encode(&self, out: &mut [u8], heap: &mut VarLenHeap) -> Result<()>;

    /// Read a value from the memory image in the first [`IMAGE_SIZE`](H5Type::IMAGE_SIZE)
    /// bytes of `bytes`,
    /// resolving variable-length handles in `heap`. Fails when `bytes` is too short, a handle
    /// is unknown, or a value is not valid for the type (an enum value with no variant, a
    /// boolean other than 0 or 1, a string that is not ASCII or UTF-8 as declared).
    fn decode(bytes: &[u8], heap: &VarLenHeap) -> Result<Self>;

    /// The memory type a reader converts elements of the file's datatype `file` into before
    /// decoding them: [`h5_type`](H5Type::h5_type), the default, for every type but those
    /// that read several datatypes (`String` reads every string datatype, fixed or variable
    /// length, ASCII or UTF-8). The result has size [`IMAGE_SIZE`](H5Type::IMAGE_SIZE) and
    /// [`decode`](H5Type::decode) accepts its image.
    fn read_type(file: &Datatype) -> Datatype {
        let _ = file;
        Self::h5_type()
    }

    /// For types whose memory is their memory image and whose every bit pattern is a valid
    /// value (the primitive integers and floats, which are `bytemuck::Pod`, and the derived
    /// structs marked `#[h5(zerocopy)]`, through [`zerocopy`]): the bytes of `values`, so
    /// that a reader can fill (and convert) them in place instead of decoding value by value.
    /// `None`, the default, for every other type. A type that has it has
    /// [`image_bytes`](H5Type::image_bytes) and [`zeroed_vec`](H5Type::zeroed_vec) too.
    fn image_bytes_mut(values: &mut [Self]) -> Option<&mut [u8]> {
        let _ = values;
        None
    }

    /// The bytes of `values`, for the types that have [`H5Type::image_bytes_mut`]: their
    /// memory image without encoding them one by one. `None`, the default, for the others.
    fn image_bytes(values: &[Self]) -> Option<&[u8]> {
        let _ = values;
        None
    }

    /// `n` zero values, for the types that have [`H5Type::image_bytes_mut`] (`None`, the
    /// default, for the others). The memory comes zeroed from the allocator, so pages
    /// nothing writes cost nothing.
    fn zeroed_vec(n: usize) -> Option<Vec<Self>> {
        let _ = n;
        None
    }

    /// Whether the type's memory is its byte image ([`image_bytes_mut`](H5Type::image_bytes_mut)
    /// and the others give `Some`): reads fill a `Vec<Self>` straight from the file's bytes
    /// and writes take the values' memory as it is, with no encoding or decoding per value.
    fn has_byte_image() -> bool {
        Self::image_bytes(&[]).is_some()
    }
}

/// Encode a slice of values into one memory image (elements
/// [`T::IMAGE_SIZE`](H5Type::IMAGE_SIZE) bytes apart) and the heap their variable-length
/// parts refer to.
pub fn encode_slice<T: H5Type>(values: &[T]) -> Result<(Vec<u8>, VarLenHeap)> {
    let mut heap = VarLenHeap::new();
    let stride = T::IMAGE_SIZE;
    let mut out = vec![0u8; stride * values.len()];
    for (i, (v, chunk)) in values
        .iter()
        .zip(out.chunks_exact_mut(stride.max(1)))
        .enumerate()
    {
        v.encode(chunk, &mut heap).map_err(|e| e.with_element(i))?;
    }
    Ok((out, heap))
}

/// Decode a memory image holding a whole number of `T` (elements
/// [`T::IMAGE_SIZE`](H5Type::IMAGE_SIZE) bytes apart), resolving variable-length handles in
/// `heap`. An error names the element ([`Error::element`]).
pub fn decode_slice<T: H5Type>(bytes: &[u8], heap: &VarLenHeap) -> Result<Vec<T>> {
    let stride = T::IMAGE_SIZE.max(1);
    if !bytes.len().is_multiple_of(stride) {
        return Err(Error::new(
            ErrorKind::BufferSize,
            format!(
                "{} bytes is not a whole number of {}-byte elements",
                bytes.len(),
                stride
            ),
        ));
    }
    bytes
        .chunks_exact(stride)
        .enumerate()
        .map(|(i, c)| T::decode(c, heap).map_err(|e| e.with_element(i)))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The variable-length heap

pub use crate::convert::VarLenHeap;

// ---------------------------------------------------------------------------------------------
// Byte helpers

#[cold]
fn short(what: &str, need: usize, have: usize) -> Error {
    Error::new(
        ErrorKind::BufferSize,
        format!("{what} needs {need} bytes, the buffer has {have}"),
    )
}

fn take<const N: usize>(bytes: &[u8]) -> Result<[u8; N]> {
    bytes
        .get(..N)
        .and_then(|s| <[u8; N]>::try_from(s).ok())
        .ok_or_else(|| short("a value", N, bytes.len()))
}

fn put(out: &mut [u8], bytes: &[u8]) -> Result<()> {
    let have = out.len();
    out.get_mut(..bytes.len())
        .ok_or_else(|| short("a value", bytes.len(), have))?
        .copy_from_slice(bytes);
    Ok(())
}

fn sub(bytes: &[u8], offset: usize, size: usize) -> Result<&[u8]> {
    offset
        .checked_add(size)
        .and_then(|end| bytes.get(offset..end))
        .ok_or_else(|| short("a member", offset.saturating_add(size), bytes.len()))
}

fn sub_mut(out: &mut [u8], offset: usize, size: usize) -> Result<&mut [u8]> {
    let have = out.len();
    offset
        .checked_add(size)
        .and_then(|end| out.get_mut(offset..end))
        .ok_or_else(|| short("a member", offset.saturating_add(size), have))
}

fn read_usize(bytes: &[u8], offset: usize) -> Result<usize> {
    let b = sub(bytes, offset, size_of::<usize>())?;
    Ok(usize::from_ne_bytes(take(b)?))
}

fn write_usize(out: &mut [u8], offset: usize, v: usize) -> Result<()> {
    put(sub_mut(out, offset, size_of::<usize>())?, &v.to_ne_bytes())
}

#[cold]
fn invalid(message: String) -> Error {
    Error::new(ErrorKind::ConversionException, message)
}

// ---------------------------------------------------------------------------------------------
// Primitives

macro_rules! impl_int {
    ($($t:ty => $sign:ident),* $(,)?) => {$(
        impl H5Type for $t {
            const IS_POD: bool = true;

            fn h5_type() -> Datatype {
                IntegerType::new(size_of::<$t>(), ByteOrder::NATIVE, Sign::$sign).into()
            }

            fn encode(&self, out: &mut [u8], _heap: &mut VarLenHeap) -> Result<()> {
                put(out, &self.to_ne_bytes())
            }

            fn decode(bytes: &[u8], _heap: &VarLenHeap) -> Result<Self> {
                Ok(<$t>::from_ne_bytes(take(bytes)?))
            }

            fn image_bytes_mut(values: &mut [Self]) -> Option<&mut [u8]> {
                Some(bytemuck::cast_slice_mut(values))
            }

            fn image_bytes(values: &[Self]) -> Option<&[u8]> {
                Some(bytemuck::cast_slice(values))
            }

            fn zeroed_vec(n: usize) -> Option<Vec<Self>> {
                Some(vec![0 as $t; n])
            }
        }
    )*};
}

impl_int! {
    i8 => TwosComplement, i16 => TwosComplement, i32 => TwosComplement,
    i64 => TwosComplement, i128 => TwosComplement, isize => TwosComplement,
    u8 => None, u16 => None, u32 => None, u64 => None, u128 => None, usize => None,
}

macro_rules! impl_float {
    ($($t:ty => $exp:expr, $mant:expr);* $(;)?) => {$(
        impl H5Type for $t {
            const IS_POD: bool = true;

            fn h5_type() -> Datatype {
                FloatType::ieee(size_of::<$t>(), ByteOrder::NATIVE, $exp, $mant).into()
            }

            fn encode(&self, out: &mut [u8], _heap: &mut VarLenHeap) -> Result<()> {
                put(out, &self.to_ne_bytes())
            }

            fn decode(bytes: &[u8], _heap: &VarLenHeap) -> Result<Self> {
                Ok(<$t>::from_ne_bytes(take(bytes)?))
            }

            fn image_bytes_mut(values: &mut [Self]) -> Option<&mut [u8]> {
                Some(bytemuck::cast_slice_mut(values))
            }

            fn image_bytes(values: &[Self]) -> Option<&[u8]> {
                Some(bytemuck::cast_slice(values))
            }

            fn zeroed_vec(n: usize) -> Option<Vec<Self>> {
                Some(vec![<$t>::from_bits(0); n])
            }
        }
    )*};
}

impl_float! { f32 => 8, 23; f64 => 11, 52 }

#[cfg(feature = "half")]
impl_float! { half::f16 => 5, 10 }

/// `bool` is an enum over a 1-byte signed integer with `FALSE = 0` and `TRUE = 1`, as h5py
/// and hdf5-rust write it.
impl H5Type for bool {
    const IS_POD: bool = true;

    fn h5_type() -> Datatype {
        let mut e = EnumType::new(IntegerType::new(1, ByteOrder::NATIVE, Sign::TwosComplement));
        for (name, value) in [("FALSE", 0), ("TRUE", 1)] {
            if let Err(e) = e.insert(name, value) {
                unreachable!("bool enum member {name}: {e}");
            }
        }
        e.into()
    }

    fn encode(&self, out: &mut [u8], _heap: &mut VarLenHeap) -> Result<()> {
        put(out, &[u8::from(*self)])
    }

    fn decode(bytes: &[u8], _heap: &VarLenHeap) -> Result<Self> {
        match take::<1>(bytes)? {
            [0] => Ok(false),
            [1] => Ok(true),
            [v] => Err(invalid(format!(
                "value {v} is neither FALSE (0) nor TRUE (1) of bool"
            ))),
        }
    }
}

#[cfg(feature = "num-complex")]
macro_rules! impl_complex {
    ($($t:ty),*) => {$(
        /// A complex number is a compound of its real part `r` and imaginary part `i`, the
        /// layout h5py reads and writes as a complex number.
        impl H5Type for num_complex::Complex<$t> {
            const IS_POD: bool = true;

            fn h5_type() -> Datatype {
                __private::compound(
                    "Complex",
                    size_of::<Self>(),
                    [
                        ("r", 0, <$t as H5Type>::h5_type()),
                        ("i", size_of::<$t>(), <$t as H5Type>::h5_type()),
                    ],
                )
            }

            fn encode(&self, out: &mut [u8], heap: &mut VarLenHeap) -> Result<()> {
                let n = size_of::<$t>();
                self.re.encode(sub_mut(out, 0, n)?, heap)?;
                self.im.encode(sub_mut(out, n, n)?, heap)
            }

            fn decode(bytes: &[u8], heap: &VarLenHeap) -> Result<Self> {
                let n = size_of::<$t>();
                Ok(num_complex::Complex::new(
                    <$t>::decode(sub(bytes, 0, n)?, heap)?,
                    <$t>::decode(sub(bytes, n, n)?, heap)?,
                ))
            }
        }
    )*};
}

#[cfg(feature = "num-complex")]
impl_complex!(f32, f64);

// ---------------------------------------------------------------------------------------------
// Arrays

/// Compile-time checks of an array type, evaluated wherever `[T; N]`'s `IS_POD` or `h5_type`
/// is used (so a derived non-generic struct with a `[T; 0]` member fails `cargo check`).
struct ArrayCheck<T, const N: usize>(PhantomData<T>);

impl<T, const N: usize> ArrayCheck<T, N> {
    const OK: () = {
        assert!(N > 0, "an HDF5 array type needs at least one element");
        assert!(
            size_of::<[T; N]>() <= u32::MAX as usize,
            "an HDF5 array type is at most 4 GiB"
        );
    };
}

/// The same for fixed-size strings.
struct StringCheck<const N: usize>;

impl<const N: usize> StringCheck<N> {
    const OK: () = assert!(N > 0, "an HDF5 fixed-size string needs at least one byte");
}

/// `[T; N]` is an array type of rank 1; nested arrays (`[[T; 3]; 2]`) flatten into one array
/// type of higher rank (dimensions `[2, 3]`), as a C `T x[2][3]` is usually described.
/// `N` must be positive (checked at compile time).
impl<T: H5Type, const N: usize> H5Type for [T; N] {
    const IS_POD: bool = {
        let () = ArrayCheck::<T, N>::OK;
        T::IS_POD
    };
    const IMAGE_SIZE: usize = N * T::IMAGE_SIZE;

    fn h5_type() -> Datatype {
        let () = ArrayCheck::<T, N>::OK;
        let (base, dims) = match T::h5_type() {
            Datatype::Array(inner) if inner.rank() < MAX_ARRAY_RANK => {
                let mut dims = Vec::with_capacity(inner.rank() + 1);
                dims.push(N as u64);
                dims.extend_from_slice(inner.dims());
                (*inner.base, dims)
            }
            other => (other, vec![N as u64]),
        };
        match ArrayType::new(base, &dims) {
            Ok(a) => a.into(),
            // Rank, dimensions and size were checked above.
            Err(e) => unreachable!("array type [_; {N}]: {e}"),
        }
    }

    fn encode(&self, out: &mut [u8], heap: &mut VarLenHeap) -> Result<()> {
        let stride = T::IMAGE_SIZE;
        for (i, v) in self.iter().enumerate() {
            v.encode(sub_mut(out, i * stride, stride)?, heap)?;
        }
        Ok(())
    }

    fn decode(bytes: &[u8], heap: &VarLenHeap) -> Result<Self> {
        let stride = T::IMAGE_SIZE;
        let v = (0..N)
            .map(|i| T::decode(sub(bytes, i * stride, stride)?, heap))
            .collect::<Result<Vec<T>>>()?;
        <[T; N]>::try_from(v).map_err(|v| short("an array", N, v.len()))
    }
}

// ---------------------------------------------------------------------------------------------
// Fixed-size strings

mod sealed {
    pub trait Sealed {}
}

/// The padding of a fixed-size string, as a type: [`NullTerm`], [`NullPad`] or [`SpacePad`].
pub trait PadKind: sealed::Sealed + Copy + Default + fmt::Debug + Eq + core::hash::Hash {
    /// The datatype's padding.
    const PAD: StrPad;
    /// The byte that fills the unused tail.
    const FILL: u8;
}

macro_rules! pad_kind {
    ($($(#[$m:meta])* $name:ident => $pad:ident, $fill:expr;)*) => {$(
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl PadKind for $name {
            const PAD: StrPad = StrPad::$pad;
            const FILL: u8 = $fill;
        }
    )*};
}

pad_kind! {
    /// `H5T_STR_NULLTERM`: the text ends at the first NUL; the tail is NULs.
    NullTerm => NullTerm, 0;
    /// `H5T_STR_NULLPAD`: the tail is NULs, with no terminator needed.
    NullPad => NullPad, 0;
    /// `H5T_STR_SPACEPAD`: the tail is spaces (Fortran); trailing spaces are not text.
    SpacePad => SpacePad, b' ';
}

macro_rules! fixed_string {
    ($(#[$m:meta])* $name:ident, $cset:ident, $what:literal, $valid:expr) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $name<const N: usize, P: PadKind = NullTerm> {
            bytes: [u8; N],
            pad: PhantomData<P>,
        }

        impl<const N: usize, P: PadKind> $name<N, P> {
            /// The empty string.
            pub fn new() -> Self {
                $name { bytes: [P::FILL; N], pad: PhantomData }
            }

            /// The string `s`, padded to `N` bytes. Fails when `s` is longer than `N` bytes,
            /// holds a NUL, or is not
            #[doc = $what]
            pub fn from_str_padded(s: &str) -> Result<Self> {
                Self::from_text(s.as_bytes())
            }

            fn from_text(text: &[u8]) -> Result<Self> {
                let valid: fn(&[u8]) -> bool = $valid;
                if !valid(text) {
                    return Err(invalid(format!(concat!("string is not ", $what, ": {:?}"),
                        String::from_utf8_lossy(text))));
                }
                if text.contains(&0) {
                    return Err(invalid(format!("string holds a NUL byte: {:?}",
                        String::from_utf8_lossy(text))));
                }
                if text.len() > N {
                    return Err(Error::new(ErrorKind::InvalidArgument, format!(
                        "string of {} bytes does not fit in {} bytes", text.len(), N)));
                }
                let mut bytes = [P::FILL; N];
                bytes[..text.len()].copy_from_slice(text);
                Ok($name { bytes, pad: PhantomData })
            }

            fn text_len(bytes: &[u8]) -> usize {
                match P::PAD {
                    StrPad::NullTerm | StrPad::NullPad => {
                        bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len())
                    }
                    StrPad::SpacePad => {
                        bytes.iter().rposition(|&b| b != b' ' && b != 0).map_or(0, |p| p + 1)
                    }
                }
            }

            /// The text, without padding.
            pub fn as_str(&self) -> &str {
                // The text was checked when the value was built.
                core::str::from_utf8(self.as_bytes()).unwrap_or_default()
            }

            /// The text's bytes, without padding.
            pub fn as_bytes(&self) -> &[u8] {
                &self.bytes[..Self::text_len(&self.bytes)]
            }

            /// All `N` bytes, padding included, as stored.
            pub fn as_padded_bytes(&self) -> &[u8; N] {
                &self.bytes
            }

            /// The text's length in bytes.
            pub fn len(&self) -> usize {
                Self::text_len(&self.bytes)
            }

            /// Whether the text is empty.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            /// The capacity in bytes, `N`.
            pub const fn capacity() -> usize {
                N
            }
        }

        impl<const N: usize, P: PadKind> Default for $name<N, P> {
            fn default() -> Self {
                Self::new()
            }
        }

        impl<const N: usize, P: PadKind> core::ops::Deref for $name<N, P> {
            type Target = str;
            fn deref(&self) -> &str {
                self.as_str()
            }
        }

        impl<const N: usize, P: PadKind> AsRef<str> for $name<N, P> {
            fn as_ref(&self) -> &str {
                self.as_str()
            }
        }

        impl<const N: usize, P: PadKind> fmt::Debug for $name<N, P> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(self.as_str(), f)
            }
        }

        impl<const N: usize, P: PadKind> fmt::Display for $name<N, P> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl<const N: usize, P: PadKind> core::str::FromStr for $name<N, P> {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self> {
                Self::from_str_padded(s)
            }
        }

        impl<const N: usize, P: PadKind> TryFrom<&str> for $name<N, P> {
            type Error = Error;
            fn try_from(s: &str) -> Result<Self> {
                Self::from_str_padded(s)
            }
        }

        impl<const N: usize, P: PadKind> H5Type for $name<N, P> {
            const IS_POD: bool = {
                let () = StringCheck::<N>::OK;
                true
            };

            fn h5_type() -> Datatype {
                let () = StringCheck::<N>::OK;
                StringType::fixed(N, P::PAD, CharSet::$cset).into()
            }

            fn encode(&self, out: &mut [u8], _heap: &mut VarLenHeap) -> Result<()> {
                put(out, &self.bytes)
            }

            fn decode(bytes: &[u8], _heap: &VarLenHeap) -> Result<Self> {
                let raw = take::<N>(bytes)?;
                let text = &raw[..Self::text_len(&raw)];
                Self::from_text(text)
            }
        }
    };
}

fixed_string!(
    /// A fixed-size ASCII string of `N` bytes (`H5T_STRING`, `H5T_CSET_ASCII`) with padding
    /// `P` (default [`NullTerm`]); laid out as a C `char[N]`. Decoding rejects non-ASCII
    /// bytes.
    FixedAscii,
    Ascii,
    "ASCII",
    |b: &[u8]| b.is_ascii()
);

fixed_string!(
    /// A fixed-size UTF-8 string of `N` bytes (`H5T_STRING`, `H5T_CSET_UTF8`) with padding
    /// `P` (default [`NullTerm`]); laid out as a C `char[N]`. Decoding rejects invalid UTF-8.
    FixedUnicode,
    Utf8,
    "UTF-8",
    |b: &[u8]| core::str::from_utf8(b).is_ok()
);

// ---------------------------------------------------------------------------------------------
// Variable-length strings and sequences

macro_rules! varlen_string {
    ($(#[$m:meta])* $name:ident, $cset:ident, $what:literal, $valid:expr) => {
        $(#[$m])*
        #[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(Box<String>);

        impl $name {
            /// The empty string.
            pub fn new() -> Self {
                Self::default()
            }

            /// The string `s`; fails when it holds a NUL or is not
            #[doc = $what]
            pub fn from_string(s: String) -> Result<Self> {
                let valid: fn(&str) -> bool = $valid;
                if !valid(&s) {
                    return Err(invalid(format!(concat!("string is not ", $what, ": {:?}"), s)));
                }
                if s.contains('\0') {
                    return Err(invalid(format!("string holds a NUL byte: {s:?}")));
                }
                Ok($name(Box::new(s)))
            }

            /// The text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The text as an owned string.
            pub fn into_string(self) -> String {
                *self.0
            }
        }

        impl core::ops::Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(self.as_str(), f)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl core::str::FromStr for $name {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self> {
                Self::from_string(s.to_owned())
            }
        }

        impl TryFrom<&str> for $name {
            type Error = Error;
            fn try_from(s: &str) -> Result<Self> {
                Self::from_string(s.to_owned())
            }
        }

        impl TryFrom<String> for $name {
            type Error = Error;
            fn try_from(s: String) -> Result<Self> {
                Self::from_string(s)
            }
        }

        impl H5Type for $name {
            const IS_POD: bool = false;

            fn h5_type() -> Datatype {
                StringType::variable(StrPad::NullTerm, CharSet::$cset).into()
            }

            fn encode(&self, out: &mut [u8], heap: &mut VarLenHeap) -> Result<()> {
                let handle = heap.insert(self.0.as_bytes().to_vec());
                write_usize(out, 0, handle)
            }

            fn decode(bytes: &[u8], heap: &VarLenHeap) -> Result<Self> {
                match read_usize(bytes, 0)? {
                    0 => Ok(Self::new()),
                    h => {
                        let text = heap.entry(h)?;
                        let s = String::from_utf8(text.to_vec()).map_err(|e| {
                            invalid(format!(concat!("string is not ", $what, ": {}"), e))
                        })?;
                        Self::from_string(s)
                    }
                }
            }
        }
    };
}

varlen_string!(
    /// A variable-length ASCII string (`H5T_STRING`, `H5T_VARIABLE`, `H5T_CSET_ASCII`,
    /// `H5T_STR_NULLTERM`). Owned; one pointer wide, like the C `char *` it stands for.
    VarLenAscii,
    Ascii,
    "ASCII",
    |s: &str| s.is_ascii()
);

varlen_string!(
    /// A variable-length UTF-8 string (`H5T_STRING`, `H5T_VARIABLE`, `H5T_CSET_UTF8`,
    /// `H5T_STR_NULLTERM`), as h5py writes `str`. Owned; one pointer wide, like the C `char *`
    /// it stands for.
    VarLenUnicode,
    Utf8,
    "UTF-8",
    |_: &str| true
);

/// `String` is a variable-length UTF-8 string (`H5T_STRING`, `H5T_VARIABLE`,
/// `H5T_CSET_UTF8`, `H5T_STR_NULLTERM`), as h5py writes `str`; its image is a `char *`
/// ([`VLEN_STRING_MEMORY_SIZE`] bytes). Encoding fails on a string holding a NUL byte.
///
/// Reading `String` accepts every string datatype, as h5py's `.asstr()` does: fixed or
/// variable length, ASCII or UTF-8, any padding. The text ends at the first NUL of a
/// null-terminated or null-padded string (and of a variable-length one); a space-padded
/// string loses its trailing spaces. Text that is not UTF-8 is an error
/// ([`ErrorKind::ConversionException`]) naming the element, never replaced. Two
/// differences from h5py, both on bytes h5py itself treats unevenly: ASCII-tagged text is
/// decoded as UTF-8 (h5py's `.asstr()` raises on bytes above 127), and a null-padded or
/// space-padded string ends at an embedded NUL (h5py keeps what follows it).
impl H5Type for String {
    const IS_POD: bool = false;
    const IMAGE_SIZE: usize = VLEN_STRING_MEMORY_SIZE;

    fn h5_type() -> Datatype {
        StringType::variable(StrPad::NullTerm, CharSet::Utf8).into()
    }

    fn read_type(file: &Datatype) -> Datatype {
        match file {
            // Any string converts to a variable-length one of its own character set.
            Datatype::String(s) => StringType::variable(StrPad::NullTerm, s.cset).into(),
            _ => Self::h5_type(),
        }
    }

    fn encode(&self, out: &mut [u8], heap: &mut VarLenHeap) -> Result<()> {
        encode_str(self, out, heap)
    }

    fn decode(bytes: &[u8], heap: &VarLenHeap) -> Result<Self> {
        let text = match read_usize(bytes, 0)? {
            0 => return Ok(String::new()),
            h => heap.entry(h)?,
        };
        let end = text.iter().position(|&c| c == 0).unwrap_or(text.len());
        String::from_utf8(text[..end].to_vec()).map_err(|e| {
            invalid(format!(
                "string is not UTF-8: {e} (bytes {:?})",
                String::from_utf8_lossy(&text[..end])
            ))
        })
    }
}

/// `&str` writes as [`String`] does (a variable-length UTF-8 string). It cannot be read,
/// since decoded text needs an owner: read `String` instead ([`H5Type::decode`] fails with
/// [`ErrorKind::Unsupported`]).
impl H5Type for &str {
    const IS_POD: bool = false;
    const IMAGE_SIZE: usize = VLEN_STRING_MEMORY_SIZE;

    fn h5_type() -> Datatype {
        String::h5_type()
    }

    fn encode(&self, out: &mut [u8], heap: &mut VarLenHeap) -> Result<()> {
        encode_str(self, out, heap)
    }

    fn decode(_bytes: &[u8], _heap: &VarLenHeap) -> Result<Self> {
        Err(Error::new(
            ErrorKind::Unsupported,
            "text cannot be read into a borrowed &str: read String",
        ))
    }
}

/// The image of a variable-length string: a handle to its bytes in the heap.
fn encode_str(s: &str, out: &mut [u8], heap: &mut VarLenHeap) -> Result<()> {
    if s.contains('\0') {
        return Err(invalid(format!(
            "a variable-length string cannot hold a NUL byte: {s:?}"
        )));
    }
    let handle = heap.insert(s.as_bytes().to_vec());
    write_usize(out, 0, handle)
}

/// A variable-length sequence of `T` (`H5T_VLEN`). Owned; two words wide, like the C `hvl_t`
/// it stands for, so it nests freely: in structs, in arrays, and in other sequences.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarLenArray<T>(Box<[T]>);

impl<T> VarLenArray<T> {
    /// The empty sequence.
    pub fn new() -> Self {
        VarLenArray(Box::new([]))
    }

    /// The elements.
    pub fn as_slice(&self) -> &[T] {
        &self.0
    }

    /// The elements, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.0
    }

    /// The elements as a vector.
    pub fn into_vec(self) -> Vec<T> {
        self.0.into_vec()
    }
}

impl<T> From<Vec<T>> for VarLenArray<T> {
    fn from(v: Vec<T>) -> Self {
        VarLenArray(v.into_boxed_slice())
    }
}

impl<T: Clone> From<&[T]> for VarLenArray<T> {
    fn from(v: &[T]) -> Self {
        VarLenArray(v.into())
    }
}

impl<T> FromIterator<T> for VarLenArray<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        VarLenArray(iter.into_iter().collect())
    }
}

impl<T> core::ops::Deref for VarLenArray<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T> core::ops::DerefMut for VarLenArray<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

impl<T: H5Type> H5Type for VarLenArray<T> {
    const IS_POD: bool = false;

    fn h5_type() -> Datatype {
        VarLenType::new(T::h5_type()).into()
    }

    fn encode(&self, out: &mut [u8], heap: &mut VarLenHeap) -> Result<()> {
        let handle = if self.0.is_empty() {
            0
        } else {
            let stride = T::IMAGE_SIZE;
            let mut payload = vec![0u8; stride * self.0.len()];
            for (i, v) in self.0.iter().enumerate() {
                v.encode(sub_mut(&mut payload, i * stride, stride)?, heap)?;
            }
            heap.insert(payload)
        };
        write_usize(out, 0, self.0.len())?;
        write_usize(out, size_of::<usize>(), handle)
    }

    fn decode(bytes: &[u8], heap: &VarLenHeap) -> Result<Self> {
        let len = read_usize(bytes, 0)?;
        let handle = read_usize(bytes, size_of::<usize>())?;
        if len == 0 {
            return Ok(Self::new());
        }
        let payload = heap.entry(handle)?;
        let stride = T::IMAGE_SIZE;
        if len.checked_mul(stride) != Some(payload.len()) {
            return Err(Error::new(
                ErrorKind::BufferSize,
                format!(
                    "variable-length sequence of {len} elements of {stride} bytes has a payload of {} bytes",
                    payload.len()
                ),
            ));
        }
        (0..len)
            .map(|i| T::decode(sub(payload, i * stride, stride)?, heap))
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// References

/// An object reference (`H5T_STD_REF_OBJ`, C `hobj_ref_t`): the address of an object header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectRef {
    addr: u64,
}

impl ObjectRef {
    /// A reference to the object header at `addr`.
    pub const fn new(addr: u64) -> Self {
        ObjectRef { addr }
    }

    /// The object header's address.
    pub const fn addr(&self) -> u64 {
        self.addr
    }
}

impl H5Type for ObjectRef {
    const IS_POD: bool = true;

    fn h5_type() -> Datatype {
        ReferenceType::new(ReferenceKind::Object).into()
    }

    fn encode(&self, out: &mut [u8], _heap: &mut VarLenHeap) -> Result<()> {
        put(out, &self.addr.to_ne_bytes())
    }

    fn decode(bytes: &[u8], _heap: &VarLenHeap) -> Result<Self> {
        Ok(ObjectRef::new(u64::from_ne_bytes(take(bytes)?)))
    }
}

/// A dataset region reference (`H5T_STD_REF_DSETREG`, C `hdset_reg_ref_t`): 12 bytes naming
/// a selection stored in the global heap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegionRef {
    bytes: [u8; 12],
}

impl RegionRef {
    /// A region reference from its 12 stored bytes (global heap collection address and
    /// object index).
    pub const fn from_bytes(bytes: [u8; 12]) -> Self {
        RegionRef { bytes }
    }

    /// The 12 stored bytes.
    pub const fn as_bytes(&self) -> &[u8; 12] {
        &self.bytes
    }
}

impl H5Type for RegionRef {
    const IS_POD: bool = true;

    fn h5_type() -> Datatype {
        ReferenceType::new(ReferenceKind::DatasetRegion).into()
    }

    fn encode(&self, out: &mut [u8], _heap: &mut VarLenHeap) -> Result<()> {
        put(out, &self.bytes)
    }

    fn decode(bytes: &[u8], _heap: &VarLenHeap) -> Result<Self> {
        Ok(RegionRef::from_bytes(take(bytes)?))
    }
}

// ---------------------------------------------------------------------------------------------
// Packing

/// The packed variant of a datatype, as `H5Tpack` makes it ([`Datatype::packed`]). Types
/// without a compound part are returned unchanged.
pub fn pack(t: &Datatype) -> Datatype {
    t.packed()
}

// ---------------------------------------------------------------------------------------------
// What the derive's output names

/// Items named by the code `#[derive(H5Type)]` generates. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use super::{H5Type, VarLenHeap};
    pub use crate::{Datatype, Error, Result};
    pub use ::std::vec::Vec;
    pub use zerocopy;

    /// The compound datatype of a derived struct. The derive checks names at compile time
    /// and offsets and sizes come from the compiler, so a failure means a hand-written
    /// `H5Type` implementation of a member breaks the size contract.
    pub fn compound<const K: usize>(
        type_name: &str,
        size: usize,
        members: [(&str, usize, Datatype); K],
    ) -> Datatype {
        let mut c = match crate::CompoundType::new(size) {
            Ok(c) => c,
            Err(e) => panic!("H5Type for {type_name}: {e}"),
        };
        for (name, offset, t) in members {
            if let Err(e) = c.insert(name, offset, t) {
                panic!(
                    "H5Type for {type_name}: {e} (does a member's H5Type implementation \
                     report a size other than its size_of?)"
                );
            }
        }
        c.into()
    }

    /// The enum datatype of a derived enum with representation `R`.
    pub fn enumeration<R: H5Type, const K: usize>(
        type_name: &str,
        members: [(&str, R); K],
    ) -> Datatype {
        let base = match R::h5_type() {
            Datatype::Integer(i) => i,
            other => panic!("H5Type for {type_name}: repr type is {other:?}, not an integer"),
        };
        let mut e = crate::EnumType::new(base);
        let mut heap = VarLenHeap::new();
        for (name, value) in members {
            let mut raw = ::std::vec![0u8; core::mem::size_of::<R>()];
            let r = value
                .encode(&mut raw, &mut heap)
                .and_then(|()| e.insert_raw(name, raw));
            if let Err(err) = r {
                panic!("H5Type for {type_name}: variant {name}: {err}");
            }
        }
        e.into()
    }

    /// The bytes of a member inside a value's memory image.
    pub fn field(bytes: &[u8], offset: usize, size: usize) -> Result<&[u8]> {
        super::sub(bytes, offset, size)
    }

    /// The bytes of a member inside a value's memory image, for writing.
    pub fn field_mut(out: &mut [u8], offset: usize, size: usize) -> Result<&mut [u8]> {
        super::sub_mut(out, offset, size)
    }

    /// The error for an enum value that names no variant.
    #[cold]
    pub fn unknown_variant<R: core::fmt::Debug>(type_name: &str, value: R) -> Error {
        super::invalid(::std::format!(
            "value {value:?} is not a variant of enum {type_name}"
        ))
    }
}

#[cfg(test)]
mod tests;
