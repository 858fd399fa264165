//! Chunk references (feature `refs`): the bytes of a file's datasets described so that a
//! reader without HDF5 can fetch them, in kerchunk's version 1 JSON format, which fsspec's
//! `ReferenceFileSystem` serves to zarr, xarray and dask.
//!
//! [`kerchunk`] walks a file as kerchunk's `SingleHdf5ToZarr` does and returns
//! [`References`]: a zarr version 2 hierarchy (`.zgroup`, `.zarray`, `.zattrs`) whose chunk
//! keys point at byte ranges of the file (`[url, offset, length]`) or hold small chunks
//! inline. Groups become zarr groups, datasets zarr arrays:
//!
//! - contiguous datasets are one chunk, chunked datasets one key per allocated chunk (every
//!   chunk index), compact datasets and chunks smaller than the inline threshold are
//!   inlined (text when the bytes are UTF-8, else `base64:`, as kerchunk writes them);
//! - the filter pipeline becomes numcodecs codecs: deflate `zlib`, `shuffle`, `zstd`,
//!   `blosc`, bzip2 `bz2`; Fletcher-32 is dropped with its 4-byte checksum cut off each
//!   chunk's length; filters skipped for every chunk (the filter mask) are left out;
//! - integers, IEEE floats, booleans, enums (as their base integers) and fixed-length
//!   strings are referenced; variable-length strings are embedded (numcodecs `vlen-utf8`);
//! - the fill value, the attributes (into `.zattrs`, without the dimension-scale and
//!   netCDF bookkeeping ones) and `_ARRAY_DIMENSIONS` from the attached dimension scales
//!   (`phony_dim_N` where none is attached), which xarray needs.
//!
//! What the format cannot express is not written: a dataset of compound, opaque,
//! reference, variable-length sequence, array or complex data, one using a filter
//! numcodecs lacks (LZ4 and Bitshuffle as HDF5 frames them, szip, n-bit, scale-offset, LZF),
//! a virtual dataset or one with external raw data, chunks whose filter masks differ, or a
//! dimension with several scales attached, is listed in [`References::skipped`] with the
//! reason. Attributes of those kinds are skipped likewise.
//!
//! ```no_run
//! # fn main() -> h5::Result<()> {
//! let file = h5::File::open("data.h5")?;
//! let refs = h5::refs::kerchunk(&file, &h5::refs::RefsOptions::new("s3://bucket/data.h5"))?;
//! for s in &refs.skipped {
//!     eprintln!("{}: {}", s.path, s.reason);
//! }
//! std::fs::write("data.json", refs.to_json().to_string())?;
//! # Ok(()) }
//! ```

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use base64::Engine as _;
use h5_format::message::filter_pipeline::FilterId;
use h5_types::datatype::{ByteOrder, FloatType, StrPad, StringSize};
use h5_types::h5type::{ObjectRef, VarLenArray};
use h5_types::Datatype;
use serde_json::{json, Map, Value};

use crate::{Attribute, Dataset, Error, ErrorKind, File, Filter, Group, LayoutClass, ObjectKind};

/// The attributes kerchunk leaves out of `.zattrs` (h5netcdf's hidden ones).
const HIDDEN_ATTRS: &[&str] = &[
    "REFERENCE_LIST",
    "CLASS",
    "DIMENSION_LIST",
    "NAME",
    "_Netcdf4Dimid",
    "_Netcdf4Coordinates",
    "_nc3_strict",
    "_NCProperties",
];

/// What [`kerchunk`] writes.
#[derive(Clone, Debug)]
pub struct RefsOptions {
    url: String,
    inline_threshold: u64,
    objects: Vec<String>,
}

impl RefsOptions {
    /// References to the file at `url` (what every `[url, offset, length]` names: a path or
    /// a URL fsspec opens), inlining chunks under 500 bytes as kerchunk does by default.
    pub fn new(url: impl Into<String>) -> Self {
        RefsOptions {
            url: url.into(),
            inline_threshold: 500,
            objects: Vec::new(),
        }
    }

    /// Inline chunks (and contiguous data) stored in fewer than `bytes` bytes; 0 inlines
    /// nothing but compact datasets, whose data has no range of its own.
    pub fn inline_threshold(mut self, bytes: u64) -> Self {
        self.inline_threshold = bytes;
        self
    }

    /// Only these objects (absolute paths; a group stands for everything under it); all
    /// when empty. The groups above them are written too.
    pub fn objects<S: Into<String>>(mut self, paths: impl IntoIterator<Item = S>) -> Self {
        self.objects = paths
            .into_iter()
            .map(|p| {
                let p: String = p.into();
                let t = p.trim_end_matches('/');
                if t.starts_with('/') {
                    t.to_string()
                } else {
                    format!("/{t}")
                }
            })
            .collect();
        self
    }

    fn wants(&self, path: &str) -> bool {
        self.objects.is_empty()
            || self.objects.iter().any(|o| {
                o.is_empty()
                    || path == o
                    || path
                        .strip_prefix(o.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            })
    }

    /// Whether `path` is a group above a wanted object.
    fn above_wanted(&self, path: &str) -> bool {
        path == "/"
            || self.objects.iter().any(|o| {
                o.strip_prefix(path)
                    .is_some_and(|r| r.starts_with('/') || path.ends_with('/'))
            })
    }
}

/// One reference: a value held in the references themselves, or a byte range of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reference {
    /// Metadata (JSON text) or a chunk's bytes, inline.
    Inline(Vec<u8>),
    /// `length` bytes at `offset` of the file at `url`.
    Range {
        /// The file.
        url: String,
        /// Absolute byte offset.
        offset: u64,
        /// Bytes.
        length: u64,
    },
}

/// An object [`kerchunk`] left out, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The object's path (with `@name` for an attribute).
    pub path: String,
    /// Why it cannot be referenced.
    pub reason: String,
}

/// Kerchunk version 1 references to one file.
#[derive(Clone, Debug, Default)]
pub struct References {
    /// Every key (`.zgroup`, `x/.zarray`, `x/.zattrs`, `x/0.0`, ...) and its reference.
    pub refs: BTreeMap<String, Reference>,
    /// What was left out.
    pub skipped: Vec<Skipped>,
}

impl References {
    /// The JSON document: `{"version": 1, "refs": {...}}`, inline values as text when they
    /// are UTF-8 and `base64:...` otherwise, ranges as `[url, offset, length]`.
    pub fn to_json(&self) -> Value {
        let refs: Map<String, Value> = self
            .refs
            .iter()
            .map(|(k, r)| {
                let v = match r {
                    Reference::Inline(bytes) => match std::str::from_utf8(bytes) {
                        Ok(s) => Value::String(s.to_string()),
                        Err(_) => Value::String(format!(
                            "base64:{}",
                            base64::engine::general_purpose::STANDARD.encode(bytes)
                        )),
                    },
                    Reference::Range {
                        url,
                        offset,
                        length,
                    } => json!([url, offset, length]),
                };
                (k.clone(), v)
            })
            .collect();
        json!({"version": 1, "refs": refs})
    }

    /// Write [`References::to_json`] to `w`.
    pub fn write_json<W: std::io::Write>(&self, w: W) -> std::io::Result<()> {
        serde_json::to_writer(w, &self.to_json()).map_err(std::io::Error::other)
    }
}

/// Kerchunk references to every group and dataset of `file` (or those
/// [`RefsOptions::objects`] names). Errors reading the file are errors; what references
/// cannot express is listed in [`References::skipped`].
pub fn kerchunk(file: &File, options: &RefsOptions) -> crate::Result<References> {
    let objects = file.walk()?;
    let paths: HashMap<u64, String> = objects.iter().map(|(p, a, _)| (a.0, p.clone())).collect();
    let io = file.inner()?;
    let storage = io.raw().source().clone();
    let mut w = Writer {
        options,
        paths: &paths,
        storage: &*storage,
        out: References::default(),
    };
    for (path, _, kind) in &objects {
        match kind {
            ObjectKind::Group if options.wants(path) || options.above_wanted(path) => {
                let g = file.group(path)?;
                w.group(&g, options.wants(path))?;
            }
            ObjectKind::Dataset if options.wants(path) => {
                let d = file.dataset(path)?;
                match w.dataset(&d) {
                    Ok(()) => {}
                    Err(Why::Skip(reason)) => w.skip(path, reason),
                    Err(Why::Fail(e)) => return Err(e),
                }
            }
            _ => {}
        }
    }
    for o in &options.objects {
        if !objects.iter().any(|(p, _, _)| p == o) {
            return Err(Error::new(ErrorKind::NotFound, "no such object").at(o.as_str()));
        }
    }
    Ok(w.out)
}

/// Why a dataset was not written: it cannot be expressed, or reading it failed.
enum Why {
    Skip(String),
    Fail(Error),
}

impl From<Error> for Why {
    fn from(e: Error) -> Self {
        Why::Fail(e)
    }
}

fn skip<T>(reason: impl Into<String>) -> Result<T, Why> {
    Err(Why::Skip(reason.into()))
}

/// A zarr element type: numpy's dtype string and how to read one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Int {
        size: usize,
        signed: bool,
        big: bool,
    },
    Float {
        size: usize,
        big: bool,
    },
    Bool,
    /// Fixed-length byte strings (`|S<n>`).
    Bytes(usize),
    /// Variable-length strings, embedded.
    VlenStr,
}

impl Kind {
    fn of(dt: &Datatype) -> Result<Kind, String> {
        match dt {
            Datatype::Integer(t) => {
                if t.precision() != t.size() * 8 || t.offset() != 0 || t.size() > 8 {
                    return Err(format!(
                        "{}-bit integers at bit {}",
                        t.precision(),
                        t.offset()
                    ));
                }
                Ok(Kind::Int {
                    size: t.size(),
                    signed: t.is_signed(),
                    big: t.order() == ByteOrder::BigEndian,
                })
            }
            Datatype::Float(t) => {
                let ieee = |e, m| FloatType::ieee(t.size(), t.order(), e, m);
                let standard = match t.size() {
                    2 => *t == ieee(5, 10),
                    4 => *t == ieee(8, 23),
                    8 => *t == ieee(11, 52),
                    _ => false,
                };
                if !standard || t.order() == ByteOrder::Vax {
                    return Err(format!("a {}-byte float of a non-IEEE layout", t.size()));
                }
                Ok(Kind::Float {
                    size: t.size(),
                    big: t.order() == ByteOrder::BigEndian,
                })
            }
            Datatype::Enum(e) => {
                let b = e.base();
                let is_bool = b.size() == 1
                    && e.len() == 2
                    && e.members().iter().all(|m| {
                        (m.name() == "FALSE" && m.raw_value() == [0])
                            || (m.name() == "TRUE" && m.raw_value() == [1])
                    });
                if is_bool {
                    Ok(Kind::Bool)
                } else {
                    Kind::of(&Datatype::Integer(*b))
                }
            }
            Datatype::String(s) => match s.string_size() {
                StringSize::Fixed(n) => Ok(Kind::Bytes(n)),
                StringSize::Variable => Ok(Kind::VlenStr),
            },
            other => Err(format!("{} data", class_name(other))),
        }
    }

    /// numpy's dtype string (`<f8`, `|u1`, `|S3`, `|O`).
    fn dtype(self) -> String {
        let order = |size: usize, big: bool| match (size, big) {
            (1, _) => '|',
            (_, true) => '>',
            (_, false) => '<',
        };
        match self {
            Kind::Int { size, signed, big } => {
                format!(
                    "{}{}{size}",
                    order(size, big),
                    if signed { 'i' } else { 'u' }
                )
            }
            Kind::Float { size, big } => format!("{}f{size}", order(size, big)),
            Kind::Bool => "|b1".into(),
            Kind::Bytes(n) => format!("|S{n}"),
            Kind::VlenStr => "|O".into(),
        }
    }

    /// One value of this kind from its stored bytes, as zarr writes a fill value.
    fn value(self, bytes: &[u8]) -> Value {
        match self {
            Kind::Int { size, signed, big } => {
                let mut b = [0u8; 8];
                let n = size.min(bytes.len()).min(8);
                b[..n].copy_from_slice(&bytes[..n]);
                if big {
                    b[..n].reverse();
                }
                let u = u64::from_le_bytes(b);
                if signed && n > 0 && n < 8 && u >> (n * 8 - 1) & 1 == 1 {
                    json!((u | (!0u64 << (n * 8))) as i64)
                } else if signed {
                    json!(u as i64)
                } else {
                    json!(u)
                }
            }
            Kind::Float { size, big } => {
                let mut b = bytes.get(..size).map(<[u8]>::to_vec).unwrap_or_default();
                if big {
                    b.reverse();
                }
                let v = match (size, b.as_slice()) {
                    (8, s) => s.try_into().map(f64::from_le_bytes).unwrap_or(0.0),
                    (4, s) => s.try_into().map(f32::from_le_bytes).map_or(0.0, f64::from),
                    (2, &[lo, hi]) => f16_to_f64(u16::from_le_bytes([lo, hi])),
                    _ => 0.0,
                };
                float_json(v)
            }
            Kind::Bool => json!(bytes.first().is_some_and(|&b| b != 0)),
            Kind::Bytes(_) => {
                // numpy's bytes drop trailing NULs; an empty fill is written as a space.
                let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
                let v = if end == 0 { &b" "[..] } else { &bytes[..end] };
                json!(base64::engine::general_purpose::STANDARD.encode(v))
            }
            Kind::VlenStr => Value::Null,
        }
    }
}

fn f16_to_f64(h: u16) -> f64 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let exp = (h >> 10) & 0x1f;
    let mant = f64::from(h & 0x3ff);
    match exp {
        0 => sign * mant * 2f64.powi(-24),
        0x1f if mant == 0.0 => sign * f64::INFINITY,
        0x1f => f64::NAN,
        e => sign * (1.0 + mant / 1024.0) * 2f64.powi(i32::from(e) - 15),
    }
}

/// A float as zarr's JSON writes it: a number, or `"NaN"`, `"Infinity"`, `"-Infinity"`.
fn float_json(v: f64) -> Value {
    if v.is_nan() {
        json!("NaN")
    } else if v.is_infinite() {
        json!(if v > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        json!(v)
    }
}

fn class_name(dt: &Datatype) -> &'static str {
    match dt {
        Datatype::Integer(_) => "integer",
        Datatype::Float(_) => "float",
        Datatype::Time(_) => "time",
        Datatype::String(_) => "string",
        Datatype::Bitfield(_) => "bitfield",
        Datatype::Opaque(_) => "opaque",
        Datatype::Compound(_) => "compound",
        Datatype::Reference(_) => "reference",
        Datatype::Enum(_) => "enum",
        Datatype::VarLen(_) => "variable-length sequence",
        Datatype::Array(_) => "array",
        Datatype::Complex(_) => "complex",
    }
}

/// A dataset's chunk keys before they are written.
enum Chunk {
    /// Bytes held inline.
    Data(Vec<u8>),
    /// A range of the file, inlined if small.
    At(Range<u64>),
}

struct Writer<'a> {
    options: &'a RefsOptions,
    paths: &'a HashMap<u64, String>,
    storage: &'a dyn h5_format::storage::Storage,
    out: References,
}

/// The zarr key prefix of an HDF5 path (`/a/b` -> `a/b/`, `/` -> ``).
fn prefix(path: &str) -> String {
    let p = path.trim_start_matches('/');
    if p.is_empty() {
        String::new()
    } else {
        format!("{p}/")
    }
}

fn text(v: &Value) -> Reference {
    Reference::Inline(v.to_string().into_bytes())
}

impl Writer<'_> {
    fn skip(&mut self, path: &str, reason: impl Into<String>) {
        self.out.skipped.push(Skipped {
            path: path.to_string(),
            reason: reason.into(),
        });
    }

    fn group(&mut self, g: &Group, with_attrs: bool) -> crate::Result<()> {
        let p = prefix(g.path());
        self.out
            .refs
            .insert(format!("{p}.zgroup"), text(&json!({"zarr_format": 2})));
        if with_attrs {
            let attrs = self.attrs(g.path(), &g.attrs()?)?;
            self.out
                .refs
                .insert(format!("{p}.zattrs"), text(&Value::Object(attrs)));
        }
        Ok(())
    }

    /// `.zattrs` of an object, as kerchunk's `_transfer_attrs` writes it.
    fn attrs(&mut self, path: &str, attrs: &[Attribute]) -> crate::Result<Map<String, Value>> {
        let mut out = Map::new();
        for a in attrs {
            let name = a.name();
            if HIDDEN_ATTRS.contains(&name) || name == "_FillValue" {
                continue;
            }
            match attr_value(a)? {
                Ok(v) if v == json!("DIMENSION_SCALE") => {}
                Ok(v) => {
                    out.insert(name.to_string(), v);
                }
                Err(reason) => self.skip(&format!("{path}@{name}"), reason),
            }
        }
        Ok(out)
    }

    fn dataset(&mut self, d: &Dataset) -> Result<(), Why> {
        let path = d.path().to_string();
        let io = d.inner()?;
        let dt = d.datatype();
        let kind = Kind::of(&dt).or_else(skip)?;
        let space = d.dataspace();
        if matches!(space, crate::Dataspace::Null) {
            return skip("a null dataspace (no shape)");
        }
        if io.external_files().is_some() {
            return skip("raw data in external files");
        }
        let shape = d.shape();
        let esize = dt.size() as u64;
        let layout = d.layout()?;
        let filters = d.filters();
        let mut codecs = Vec::new();
        let mut chunks = BTreeMap::new();
        let mut chunk_shape = shape.clone();
        let mut inlined = false;
        let scalar_key = || {
            if shape.is_empty() {
                "0".to_string()
            } else {
                vec!["0"; shape.len()].join(".")
            }
        };
        if kind == Kind::VlenStr {
            // Embedded, as kerchunk's default `vlen_encode="embed"`: one chunk of the whole
            // array in numcodecs' `vlen-utf8` encoding.
            let values = d.read::<String>()?;
            chunks.insert(scalar_key(), Chunk::Data(vlen_utf8(&values)));
            codecs.push(json!({"id": "vlen-utf8"}));
            inlined = true;
        } else {
            match &layout.class {
                LayoutClass::Compact { data, .. } => {
                    chunks.insert(scalar_key(), Chunk::Data(data.clone()));
                    inlined = true;
                }
                LayoutClass::Contiguous { address, .. } => {
                    if let Some(a) = address.get() {
                        let base = io.file().raw().base();
                        let len = io.storage_size()?;
                        let start = a.saturating_add(base);
                        chunks.insert(scalar_key(), Chunk::At(span(start, len, &path)?));
                    }
                }
                LayoutClass::Chunked { .. } => {
                    chunk_shape = d.chunk_dims().unwrap_or_default();
                    let stored = io.chunks().map_err(|e| Why::Fail(e.into()))?;
                    let mut masks: Vec<u32> =
                        stored.iter().map(|c| c.location.filter_mask).collect();
                    masks.sort_unstable();
                    masks.dedup();
                    let mask = match masks.as_slice() {
                        [] => 0,
                        [m] => *m,
                        _ => return skip("chunks with different filter masks"),
                    };
                    let (list, trim) = numcodecs(&filters, mask, esize)?;
                    codecs = list;
                    for c in stored {
                        let key = c
                            .offset
                            .iter()
                            .zip(&chunk_shape)
                            .map(|(o, n)| (o / n).to_string())
                            .collect::<Vec<_>>()
                            .join(".");
                        let len = c.location.size.checked_sub(trim).ok_or_else(|| {
                            Why::Skip(format!(
                                "a chunk of {} bytes cannot hold a Fletcher-32 checksum",
                                c.location.size
                            ))
                        })?;
                        let key = if key.is_empty() { "0".into() } else { key };
                        chunks.insert(key, Chunk::At(span(c.file_offset, len, &path)?));
                    }
                }
                LayoutClass::Virtual { .. } => return skip("a virtual dataset"),
            }
        }
        let attrs = d.attrs()?;
        let fill = if inlined {
            Value::Null
        } else {
            fill_value(d, kind, &attrs)?
        };
        let dims = self.array_dimensions(d, &attrs)?;
        // kerchunk leaves out dimension scales with no data (netCDF's dimensions without a
        // coordinate variable).
        if chunks.is_empty() && is_scale(&attrs)? {
            return Ok(());
        }
        let p = prefix(&path);
        let zarray = json!({
            "shape": shape,
            "chunks": chunk_shape.iter().map(|&c| c.max(1)).collect::<Vec<_>>(),
            "dtype": kind.dtype(),
            "fill_value": fill,
            "order": "C",
            "filters": if codecs.is_empty() { Value::Null } else { Value::Array(codecs) },
            "dimension_separator": ".",
            "compressor": null,
            "zarr_format": 2,
        });
        let mut zattrs = self.attrs(&path, &attrs)?;
        zattrs.insert("_ARRAY_DIMENSIONS".into(), json!(dims));
        self.write_chunks(&p, chunks)?;
        self.out.refs.insert(format!("{p}.zarray"), text(&zarray));
        self.out
            .refs
            .insert(format!("{p}.zattrs"), text(&Value::Object(zattrs)));
        Ok(())
    }

    /// The chunk keys: small ranges fetched (in one batch) and inlined, the rest as ranges.
    fn write_chunks(&mut self, p: &str, chunks: BTreeMap<String, Chunk>) -> Result<(), Why> {
        let threshold = self.options.inline_threshold;
        let small: Vec<Range<u64>> = chunks
            .values()
            .filter_map(|c| match c {
                Chunk::At(r) if r.end - r.start < threshold => Some(r.clone()),
                _ => None,
            })
            .collect();
        let mut fetched = self
            .storage
            .read_ranges(&small)
            .map_err(|e| Why::Fail(e.into()))?
            .into_iter();
        for (key, c) in chunks {
            let r = match c {
                Chunk::Data(b) => Reference::Inline(b),
                Chunk::At(r) if r.end - r.start < threshold => {
                    Reference::Inline(fetched.next().unwrap_or_default())
                }
                Chunk::At(r) => Reference::Range {
                    url: self.options.url.clone(),
                    offset: r.start,
                    length: r.end - r.start,
                },
            };
            self.out.refs.insert(format!("{p}{key}"), r);
        }
        Ok(())
    }

    /// `_ARRAY_DIMENSIONS`: per dimension the path of the one scale attached, the dataset's
    /// own path if it is a scale, else `phony_dim_N`.
    fn array_dimensions(&self, d: &Dataset, attrs: &[Attribute]) -> Result<Vec<String>, Why> {
        let rank = d.ndim();
        let lists: Vec<Vec<ObjectRef>> = match attrs.iter().find(|a| a.name() == "DIMENSION_LIST") {
            Some(a) => a
                .read::<VarLenArray<ObjectRef>>()?
                .into_iter()
                .map(VarLenArray::into_vec)
                .collect(),
            None => Vec::new(),
        };
        let own = is_scale(attrs)?;
        (0..rank)
            .map(|n| {
                let scales = lists.get(n).map_or(&[][..], Vec::as_slice);
                match scales {
                    [one] => match self.paths.get(&one.addr()) {
                        Some(p) => Ok(p.trim_start_matches('/').to_string()),
                        None => skip(format!("dimension {n}: its scale is not reachable by name")),
                    },
                    _ if own => Ok(d.path().trim_start_matches('/').to_string()),
                    [] => Ok(format!("phony_dim_{n}")),
                    more => skip(format!(
                        "{} dimension scales attached to dimension {n}",
                        more.len()
                    )),
                }
            })
            .collect()
    }
}

/// The bytes `start..start + len`, an error if that passes the end of the address space.
fn span(start: u64, len: u64, path: &str) -> Result<Range<u64>, Why> {
    match start.checked_add(len) {
        Some(end) if start != u64::MAX => Ok(start..end),
        _ => Err(Why::Fail(
            Error::new(
                ErrorKind::Format,
                format!("{len} bytes at {start:#x} pass the end of the address space"),
            )
            .at(path),
        )),
    }
}

/// Whether the object is a dimension scale (`CLASS = "DIMENSION_SCALE"`).
fn is_scale(attrs: &[Attribute]) -> crate::Result<bool> {
    match attrs.iter().find(|a| a.name() == "CLASS") {
        Some(a) if matches!(a.datatype(), Datatype::String(_)) => Ok(a
            .read::<String>()?
            .first()
            .is_some_and(|s| s == "DIMENSION_SCALE")),
        _ => Ok(false),
    }
}

/// numcodecs' `vlen-utf8` encoding: the count, then each string's length and bytes (all
/// lengths 32-bit little-endian).
fn vlen_utf8(values: &[String]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + values.iter().map(|s| 4 + s.len()).sum::<usize>());
    out.extend_from_slice(&(values.len() as u32).to_le_bytes());
    for s in values {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    out
}

/// The numcodecs codecs of a filter pipeline (filters whose bit is set in `mask` left
/// out), in encoding order, and the bytes to cut off the end of each chunk (a trailing
/// Fletcher-32 checksum).
fn numcodecs(filters: &[Filter], mask: u32, esize: u64) -> Result<(Vec<Value>, u64), Why> {
    let mut out = Vec::new();
    let mut trim = 0;
    let active: Vec<&Filter> = filters
        .iter()
        .enumerate()
        .filter(|(i, _)| *i >= 32 || mask >> i & 1 == 0)
        .map(|(_, f)| f)
        .collect();
    for (i, f) in active.iter().enumerate() {
        let cd = &f.client_data;
        let codec = match f.id {
            FilterId::DEFLATE => json!({"id": "zlib", "level": cd.first().copied().unwrap_or(6)}),
            FilterId::SHUFFLE => json!({"id": "shuffle", "elementsize": esize}),
            FilterId::FLETCHER32 => {
                if i + 1 != active.len() {
                    return skip("Fletcher-32 before other filters (its checksum is not at the end of the stored chunk)");
                }
                trim = 4;
                continue;
            }
            FilterId::ZSTD => {
                json!({"id": "zstd", "level": cd.first().map_or(0, |&l| l as i32), "checksum": false})
            }
            FilterId::BZIP2 => {
                json!({"id": "bz2", "level": cd.first().copied().unwrap_or(9).clamp(1, 9)})
            }
            FilterId::BLOSC => {
                const CNAMES: [&str; 6] = ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"];
                let (Some(&total), Some(&clevel), Some(&shuffle), Some(&compressor)) =
                    (cd.get(3), cd.get(4), cd.get(5), cd.get(6))
                else {
                    return skip(format!("Blosc with {} parameters (7 needed)", cd.len()));
                };
                let Some(cname) = CNAMES.get(compressor as usize) else {
                    return skip(format!("Blosc compressor {compressor}"));
                };
                json!({"id": "blosc", "cname": cname, "clevel": clevel, "shuffle": shuffle, "blocksize": total})
            }
            FilterId::LZ4 => {
                return skip("the LZ4 filter (its HDF5 block framing has no numcodecs codec)")
            }
            FilterId::BITSHUFFLE => {
                return skip(
                    "the Bitshuffle filter (its HDF5 block framing has no numcodecs codec)",
                )
            }
            FilterId::SZIP => return skip("the szip filter (no numcodecs codec)"),
            FilterId::NBIT => return skip("the n-bit filter (no numcodecs codec)"),
            FilterId::SCALEOFFSET => return skip("the scale-offset filter (no numcodecs codec)"),
            FilterId::LZF => return skip("the LZF filter (no numcodecs codec)"),
            other => return skip(format!("filter {} (no numcodecs codec)", other.0)),
        };
        out.push(codec);
    }
    Ok((out, trim))
}

/// The fill value as kerchunk writes it: the dataset's (zeros when undefined), `_FillValue`
/// when that attribute is set, none for netCDF variables and times.
fn fill_value(d: &Dataset, kind: Kind, attrs: &[Attribute]) -> Result<Value, Why> {
    let esize = d.datatype().size();
    if let Some(a) = attrs.iter().find(|a| a.name() == "_FillValue") {
        let v = match kind {
            Kind::Float { .. } => a.read::<f64>()?.first().map(|&v| float_json(v)),
            Kind::Int { signed: true, .. } => a.read::<i64>()?.first().map(|&v| json!(v)),
            Kind::Int { signed: false, .. } => a.read::<u64>()?.first().map(|&v| json!(v)),
            Kind::Bool => a.read::<u8>()?.first().map(|&v| json!(v != 0)),
            Kind::Bytes(_) => {
                let (raw, _) = a.read_raw()?;
                Some(kind.value(&raw))
            }
            Kind::VlenStr => None,
        };
        return Ok(v.unwrap_or(Value::Null));
    }
    if !matches!(kind, Kind::Bytes(_)) {
        let netcdf = attrs.iter().any(|a| a.name().contains("_Netcdf4"));
        let time = match attrs.iter().find(|a| a.name() == "units") {
            Some(a) if matches!(a.datatype(), Datatype::String(_)) => a
                .read::<String>()?
                .first()
                .is_some_and(|u| u.contains("since")),
            _ => false,
        };
        if netcdf || time {
            return Ok(Value::Null);
        }
    }
    let fv = d.fill_value()?;
    let bytes = match fv.value {
        Some(v) if fv.defined && v.len() == esize => v,
        _ => vec![0; esize],
    };
    Ok(kind.value(&bytes))
}

/// An attribute's value as kerchunk's `_transfer_attrs` writes it: one element as a
/// scalar, more as a list (nested for several dimensions), strings decoded, an empty
/// dataspace as `""`; `Err` with a reason for the kinds it cannot carry.
fn attr_value(a: &Attribute) -> crate::Result<Result<Value, String>> {
    let space = a.dataspace();
    if matches!(space, crate::Dataspace::Null) {
        return Ok(Ok(json!("")));
    }
    let dt = a.datatype();
    let shape = a.shape();
    let values: Vec<Value> = match Kind::of(dt) {
        Ok(Kind::Int { signed: true, .. }) => {
            a.read::<i64>()?.into_iter().map(|v| json!(v)).collect()
        }
        Ok(Kind::Int { signed: false, .. }) => {
            a.read::<u64>()?.into_iter().map(|v| json!(v)).collect()
        }
        Ok(Kind::Float { .. }) => a.read::<f64>()?.into_iter().map(float_json).collect(),
        Ok(Kind::Bool) => a.read::<u8>()?.into_iter().map(|v| json!(v != 0)).collect(),
        Ok(Kind::Bytes(_)) | Ok(Kind::VlenStr) => {
            let fixed = matches!(dt, Datatype::String(s) if !s.is_variable());
            let space_padded = matches!(dt, Datatype::String(s) if s.pad() == StrPad::SpacePad);
            let strings = if fixed && space_padded {
                // h5py keeps the padding of space-padded strings.
                let (raw, _) = a.read_raw()?;
                raw.chunks(dt.size().max(1))
                    .map(|c| {
                        String::from_utf8_lossy(c)
                            .trim_end_matches('\0')
                            .to_string()
                    })
                    .collect()
            } else {
                a.read::<String>()?
            };
            strings
                .into_iter()
                .map(|s| {
                    // A fixed-length scalar decodes to " " when empty (kerchunk's `or " "`).
                    if s.is_empty() && fixed && shape.is_empty() {
                        json!(" ")
                    } else {
                        json!(s)
                    }
                })
                .collect()
        }
        Err(reason) => return Ok(Err(reason)),
    };
    if values.len() == 1 {
        return Ok(Ok(values.into_iter().next().unwrap_or(Value::Null)));
    }
    Ok(Ok(nest(&values, &shape)))
}

/// Row-major `values` as nested lists of `shape`.
fn nest(values: &[Value], shape: &[u64]) -> Value {
    match shape {
        [] | [_] => Value::Array(values.to_vec()),
        [n, rest @ ..] => {
            let step = values.len() / (*n as usize).max(1);
            Value::Array(values.chunks(step.max(1)).map(|c| nest(c, rest)).collect())
        }
    }
}

impl From<h5_io::Error> for Why {
    fn from(e: h5_io::Error) -> Self {
        Why::Fail(e.into())
    }
}
