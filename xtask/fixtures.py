"""Write the interop fixtures that the reference corpus lacks, with h5py.

Usage: python3 fixtures.py OUTDIR

Every file is written with fixed contents and `track_times=False`, bounded to a library format
that the reference h5dump (1.10) reads, so that its dump is reproducible. `cargo xtask
gen-fixtures` runs this, then records `h5dump` of each file beside it as the expected output.
"""

import os
import sys

import h5py
import numpy as np

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)

# Format bounds: what the file format may use. "earliest" gives superblock 0, symbol-table
# groups and v1 B-tree chunk indexes; v108 gives superblock 2; v110 superblock 3 and the v4
# chunk indexes.
EARLIEST = ("earliest", "v110")
V108 = ("v108", "v108")
V110 = ("v110", "v110")


def path(name):
    return os.path.join(OUT, name)


def new(name, libver):
    return h5py.File(path(name), "w", libver=libver, track_order=False)


def ramp(shape, dtype="i4"):
    n = int(np.prod(shape))
    return (np.arange(n, dtype=np.int64) % 1000).astype(dtype).reshape(shape)


def dset(parent, name, data=None, **kw):
    kw.setdefault("track_times", False)
    return parent.create_dataset(name, data=data, **kw)


# --- Chunk indexes -------------------------------------------------------------------------

with new("chunk_index_v1_btree.h5", EARLIEST) as f:
    dset(f, "d", ramp((20, 30)), chunks=(7, 11), maxshape=(None, None))

with new("chunk_index_single.h5", V110) as f:
    dset(f, "d", ramp((12, 10)), chunks=(12, 10))
    dset(f, "filtered", ramp((12, 10)), chunks=(12, 10), compression="gzip")

with new("chunk_index_implicit.h5", V110) as f:
    space = h5py.h5s.create_simple((40, 30))
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((8, 10))
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    dcpl.set_obj_track_times(False)
    dsid = h5py.h5d.create(f.id, b"d", h5py.h5t.STD_I32LE, space, dcpl=dcpl)
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, ramp((40, 30)))

with new("chunk_index_fixed_array.h5", V110) as f:
    dset(f, "d", ramp((30, 40)), chunks=(10, 10))
    # More than 1024 chunks: the fixed array's data block is paged.
    dset(f, "paged", ramp((3, 1500), "i2"), chunks=(1, 3))
    dset(f, "filtered", ramp((30, 40)), chunks=(10, 10), compression="gzip", shuffle=True)

with new("chunk_index_extensible_array.h5", V110) as f:
    dset(f, "d", ramp((25, 8)), chunks=(4, 8), maxshape=(None, 8))
    # Enough chunks for secondary blocks and paged data blocks.
    dset(f, "many", ramp((6000,), "u2"), chunks=(1,), maxshape=(None,))
    dset(f, "filtered", ramp((50, 8)), chunks=(5, 8), maxshape=(None, 8), compression="gzip")
    dset(f, "sparse", shape=(100,), dtype="i4", chunks=(10,), maxshape=(None,), fillvalue=-7)
    f["sparse"][35:47] = np.arange(12)

with new("chunk_index_btree_v2.h5", V110) as f:
    dset(f, "d", ramp((21, 33)), chunks=(5, 6), maxshape=(None, None))
    dset(f, "filtered", ramp((21, 33), "f8"), chunks=(5, 6), maxshape=(None, None), compression="gzip", fletcher32=True)

# --- Superblocks and groups ----------------------------------------------------------------

for name, libver in [("superblock_v0.h5", EARLIEST), ("superblock_v2.h5", V108), ("superblock_v3.h5", V110)]:
    with new(name, libver) as f:
        g = f.create_group("group")
        dset(g, "ints", ramp((4, 5)))
        f["soft"] = h5py.SoftLink("/group/ints")
        f["external"] = h5py.ExternalLink("other.h5", "/x")
        g.attrs["note"] = np.bytes_(b"superblock test")

with new("groups_compact_and_dense.h5", V110) as f:
    compact = f.create_group("compact")
    for i in range(4):
        compact.create_group("g%d" % i)
    dense = f.create_group("dense")
    for i in range(40):
        dset(dense, "d%02d" % i, np.array([i], dtype="i4"))

with h5py.File(path("groups_creation_order.h5"), "w", libver=V110, track_order=True) as f:
    g = f.create_group("ordered", track_order=True)
    for name in ["zeta", "alpha", "mu", "beta"]:
        g.create_group(name)
    big = f.create_group("ordered_dense", track_order=True)
    for i in range(30):
        big.create_group("n%02d" % (29 - i))
    g.attrs.create("z_first", 1)
    g.attrs.create("a_second", 2)

with h5py.File(path("groups_old_style_many.h5"), "w", libver=EARLIEST) as f:
    for i in range(70):
        f.create_group("grp%03d" % i)

# --- Attributes ----------------------------------------------------------------------------

with new("attributes_compact_and_dense.h5", V110) as f:
    d = dset(f, "data", np.arange(5, dtype="i4"))
    for i in range(4):
        d.attrs["small%d" % i] = np.float64(i) / 4
    g = f.create_group("many")
    for i in range(30):
        g.attrs["a%02d" % i] = np.arange(i + 1, dtype="i2")
    big = f.create_group("large")
    big.attrs["big"] = np.arange(20000, dtype="f8")

with new("attributes_types.h5", EARLIEST) as f:
    a = f.attrs
    a["scalar_int"] = np.int32(-5)
    a["vector_float"] = np.array([1.5, 2.5], dtype="f4")
    a["fixed_string"] = np.bytes_(b"fixed")
    a["vlen_string"] = "variable length"
    a["utf8"] = "gr\u00fc\u00dfe"
    a.create("vlen_strings", data=["a", "bb", "ccc"], dtype=h5py.string_dtype())
    a["be_int"] = np.array([1, 2, 3], dtype=">i4")

# --- Byte order ----------------------------------------------------------------------------

with new("big_endian.h5", EARLIEST) as f:
    for code in [">i1", ">i2", ">i4", ">i8", ">u1", ">u2", ">u4", ">u8", ">f4", ">f8"]:
        name = "be_" + code[1:]
        data = ramp((3, 4), code.replace(">", "<"))
        if code.startswith(">f"):
            data = data.astype(code.replace(">", "<")) / 7
        dset(f, name, data.astype(code))
    ct = np.dtype([("a", ">i4"), ("b", ">f8"), ("c", "<i2")])
    rec = np.zeros(3, dtype=ct)
    rec["a"] = [1, -2, 3]
    rec["b"] = [0.5, -1.25, 1e10]
    rec["c"] = [7, 8, 9]
    dset(f, "compound_mixed", rec)
    dset(f, "chunked_be", ramp((16, 16), ">i4"), chunks=(4, 4), compression="gzip")

# --- Filters -------------------------------------------------------------------------------

with new("filters.h5", EARLIEST) as f:
    data = ramp((40, 50))
    for level in (1, 6, 9):
        dset(f, "gzip%d" % level, data, chunks=(10, 10), compression="gzip", compression_opts=level)
    dset(f, "shuffle_gzip", data, chunks=(10, 10), shuffle=True, compression="gzip")
    dset(f, "fletcher32", data, chunks=(10, 10), fletcher32=True)
    dset(f, "shuffle_gzip_fletcher32", data, chunks=(10, 10), shuffle=True, compression="gzip", fletcher32=True)
    dset(f, "scaleoffset_int", data, chunks=(10, 10), scaleoffset=0)
    dset(f, "scaleoffset_float", data.astype("f8") / 8, chunks=(10, 10), scaleoffset=3)
    dset(f, "szip", data, chunks=(10, 10), compression="szip", compression_opts=("nn", 8))
    # N-bit is left to the reference corpus: HDF5 2.0 refuses to create the reduced-precision
    # types it needs without relaxed integrity checks, which h5py does not expose.

# LZF is h5py's own filter: the reference h5dump cannot decode it, so it has a file of its own.
with new("filter_lzf.h5", EARLIEST) as f:
    dset(f, "lzf", ramp((40, 50)), chunks=(10, 10), compression="lzf")
    dset(f, "lzf_shuffle", ramp((40, 50), "f4") / 3, chunks=(10, 10), compression="lzf", shuffle=True)

# --- Layouts and fill values ---------------------------------------------------------------

with new("layouts.h5", EARLIEST) as f:
    space = h5py.h5s.create_simple((6,))
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    dcpl.set_obj_track_times(False)
    dsid = h5py.h5d.create(f.id, b"compact_layout", h5py.h5t.STD_I16LE, space, dcpl=dcpl)
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, np.arange(6, dtype="i2"))
    dset(f, "contiguous", ramp((5, 6), "f4"))
    dset(f, "fill_user", shape=(8,), dtype="i4", fillvalue=42)
    dset(f, "fill_chunked_partial", shape=(20,), dtype="f8", chunks=(5,), fillvalue=-1.5)
    f["fill_chunked_partial"][5:10] = np.arange(5)
    dset(f, "scalar", data=np.float64(3.25))
    f.create_dataset("empty", data=h5py.Empty("i4"), track_times=False)

# --- Datatypes -----------------------------------------------------------------------------

with new("datatypes.h5", EARLIEST) as f:
    dset(f, "bool", np.array([True, False, True]))
    enum_t = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 2, "WHITE": 3, "BLACK": 4}, basetype="i1")
    dset(f, "enum", np.array([0, 4, 2, 1], dtype="i1"), dtype=enum_t)
    arr_t = np.dtype(("i4", (3, 4)))
    arr = f.create_dataset("array", shape=(2,), dtype=arr_t, track_times=False)
    arr[...] = np.arange(24, dtype="i4").reshape(2, 3, 4)
    dset(f, "opaque", np.frombuffer(b"abcdefgh", dtype="V4"))
    utf8_t = h5py.string_dtype("utf-8", 6)
    dset(f, "fixed_utf8", np.array(["ab".encode(), "\u00e9t\u00e9".encode()], dtype=utf8_t))
    dset(f, "vlen_str", ["one", "two", "three"], dtype=h5py.string_dtype())
    dset(f, "vlen_int", np.array([np.arange(n, dtype="u4") for n in (1, 3, 2)], dtype=object),
         dtype=h5py.vlen_dtype("u4"))
    nested = np.dtype([("x", "f4"), ("pos", [("lat", "f8"), ("lon", "f8")]), ("tag", "S3"), ("v", "i2", (2,))])
    rec = np.zeros(2, dtype=nested)
    rec["x"] = [1.5, -2]
    rec["pos"]["lat"] = [10, 20]
    rec["pos"]["lon"] = [30, 40]
    rec["tag"] = [b"ab", b"cde"]
    rec["v"] = [[1, 2], [3, 4]]
    dset(f, "compound_nested", rec)
    dset(f, "complex_as_compound", np.array([1 + 2j, -3.5 - 0.25j], dtype="c16"))
    f["named_type"] = np.dtype([("a", "i4"), ("b", "f4")])
    dset(f, "uses_named", np.zeros(2, dtype=f["named_type"].dtype), dtype=f["named_type"])
    ref_target = dset(f, "ref_target", ramp((4, 4)))
    refs = np.array([f["array"].ref, f.ref, ref_target.ref], dtype=h5py.ref_dtype)
    dset(f, "object_refs", refs)
    regrefs = np.array([ref_target.regionref[1:3, 0:2], ref_target.regionref[0, :]], dtype=h5py.regionref_dtype)
    dset(f, "region_refs", regrefs)
    dset(f, "f16", np.array([0.5, -1, 65504], dtype="f2"))

# --- BioC conventions ----------------------------------------------------------------------
#
# Datasets of every integer, float and string kind, with and without the BioC
# `missing-value-placeholder` attribute, and files that break each rule of the policy.

PLACEHOLDER = "missing-value-placeholder"


def with_placeholder(parent, name, data, placeholder, attr=PLACEHOLDER, **kw):
    d = dset(parent, name, data, **kw)
    d.attrs.create(attr, np.array(placeholder, dtype=d.dtype))
    return d


def fixed_str_type(size, pad, cset=h5py.h5t.CSET_ASCII):
    t = h5py.h5t.C_S1.copy()
    t.set_size(size)
    t.set_strpad(pad)
    t.set_cset(cset)
    return t


def raw_string_dset(parent, name, tid, values, placeholder=None, ptid=None):
    """A fixed-string dataset holding `values` byte for byte (no padding applied)."""
    size = tid.get_size()
    arr = np.array(values, dtype="S%d" % size)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_obj_track_times(False)
    dsid = h5py.h5d.create(parent.id, name.encode(), tid, h5py.h5s.create_simple(arr.shape), dcpl=dcpl)
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, arr, mtype=tid)
    if placeholder is not None:
        ptid = ptid or tid
        parr = np.array(placeholder, dtype="S%d" % ptid.get_size())
        aid = h5py.h5a.create(dsid, PLACEHOLDER.encode(), ptid, h5py.h5s.create(h5py.h5s.SCALAR))
        aid.write(parr, mtype=ptid)


def nan64(payload):
    return np.array([payload], dtype="<u8").view("<f8")[0]


def nan32(payload):
    return np.array([payload], dtype="<u4").view("<f4")[0]


with new("bioc.h5", EARLIEST) as f:
    g = f.create_group("int")
    with_placeholder(g, "i8", np.array([1, -5, -128, 7, -128, 0], dtype="i1"), -128)
    with_placeholder(g, "u8", np.array([0, 255, 3, 255, 254], dtype="u1"), 255)
    with_placeholder(g, "i16", np.array([-32768, 12, 300, 12], dtype="i2"), 12)
    with_placeholder(g, "u16", np.array([65535, 0, 40000, 40000], dtype="u2"), 40000)
    with_placeholder(g, "i32", np.array([2147483647, -2147483648, 5, -2147483648], dtype="i4"), -2147483648)
    with_placeholder(g, "i32_be", np.array([1, -1, 99, -1], dtype=">i4"), -1)
    with_placeholder(g, "u32", np.array([4294967295, 0, 7, 4294967295], dtype="u4"), 4294967295)
    with_placeholder(g, "i64", np.array([2**40 + 1, 2**40, -3, 2**40 + 1], dtype="i8"), 2**40 + 1)
    with_placeholder(g, "u64", np.array([2**63 + 5, 1, 2**63 + 5], dtype="u8"), 2**63 + 5)
    dset(g, "i32_none", np.array([-2147483648, 0, 3], dtype="i4"))
    with_placeholder(g, "i32_2d", np.arange(12, dtype="i4").reshape(3, 4) % 5, 4)
    with_placeholder(g, "i16_other_name", np.array([1, 2, 3, 2], dtype="i2"), 2, attr="missing_placeholder")
    d = dset(g, "i16_wrong_type", np.array([1, 2, 3], dtype="i2"))
    d.attrs.create(PLACEHOLDER, np.int64(2))
    d = dset(g, "i16_float_placeholder", np.array([1, 2, 3], dtype="i2"))
    d.attrs.create(PLACEHOLDER, np.float64(2))
    d = dset(g, "i32_vector_placeholder", np.array([1, 2, 3], dtype="i4"))
    d.attrs.create(PLACEHOLDER, np.array([2, 3], dtype="i4"))

    g = f.create_group("float")
    with_placeholder(g, "f16", np.array([0.5, -1, 65504, 0.5], dtype="f2"), 0.5)
    with_placeholder(g, "f32", np.array([1.5, -2.25, 1e30, -2.25], dtype="f4"), -2.25)
    with_placeholder(g, "f64", np.array([1e300, -0.0, 2.5, 1e300], dtype="f8"), 1e300)
    # Every NaN is missing when the placeholder is a NaN, whatever the payloads.
    nans64 = [nan64(0x7FF8000000000000), nan64(0x7FF8000000000001), nan64(0xFFF80000DEADBEEF),
              nan64(0x7FF0000000000001), 1.0, -np.inf, nan64(0x7FFFFFFFFFFFFFFF), 3.0]
    with_placeholder(g, "f64_nan", np.array(nans64, dtype="f8"), nan64(0x7FF800000000ABCD))
    nans32 = [nan32(0x7FC00000), nan32(0x7FC00001), nan32(0xFFC0BEEF), nan32(0x7F800001), 2.0, np.inf]
    with_placeholder(g, "f32_nan", np.array(nans32, dtype="f4"), nan32(0x7FC01234))
    # A finite placeholder: NaNs are values, not missing.
    with_placeholder(g, "f64_nan_not_missing", np.array([np.nan, 4.0, nan64(0x7FF8000000000001), 4.0]), 4.0)
    # 0.1 and float32(0.1) differ in double precision and are equal after rounding to float.
    point_one = [0.1, float(np.float32(0.1)), 0.2, 0.1, 0.30000000000000004, 0.3]
    with_placeholder(g, "f64_point_one", np.array(point_one, dtype="f8"), 0.1)
    with_placeholder(g, "f64_zero", np.array([0.0, -0.0, 1.0], dtype="f8"), 0.0)
    with_placeholder(g, "f64_be", np.array([1.25, -7.5, 1.25], dtype=">f8"), 1.25)
    with_placeholder(g, "f64_2d", (np.arange(6, dtype="f8") / 4).reshape(2, 3), 0.25)
    dset(g, "f64_none", np.array([np.nan, 1.0]))
    # x87 80-bit values 1.0 and 2.0 in 16 bytes, built from bytes so the padding is zero.
    x87 = bytes.fromhex("0000000000000080ff3f000000000000" "00000000000000800040000000000000")
    dset(g, "longdouble", np.frombuffer(x87, dtype=np.longdouble))
    d = dset(g, "f64_int_placeholder", np.array([1.0, 2.0]))
    d.attrs.create(PLACEHOLDER, np.int32(2))

    g = f.create_group("str")
    nullpad = fixed_str_type(8, h5py.h5t.STR_NULLPAD)
    nullterm = fixed_str_type(8, h5py.h5t.STR_NULLTERM)
    spacepad = fixed_str_type(6, h5py.h5t.STR_SPACEPAD)
    utf8 = fixed_str_type(8, h5py.h5t.STR_NULLPAD, h5py.h5t.CSET_UTF8)
    # "full8chr" fills the whole size (no NUL); "ab\0cd" ends at the NUL.
    raw_string_dset(g, "fixed_nullpad", nullpad, [b"a", b"bb", b"NA", b"full8chr", b"ab\0cd", b"NA"], b"NA")
    raw_string_dset(g, "fixed_nullterm", nullterm, [b"NA", b"xyz", b"NA\0junk", b"NAB"], b"NA")
    # Space padding is part of the string: "NA    " is the placeholder, "NA" is not.
    raw_string_dset(g, "fixed_spacepad", spacepad, [b"NA    ", b"ab    ", b"NA", b"  x   "], b"NA    ")
    raw_string_dset(g, "fixed_utf8", utf8, ["\u00e9t\u00e9".encode(), b"NA", "na\u00efve".encode()], b"NA")
    # Declared ASCII, holding UTF-8 bytes: read as UTF-8 all the same.
    raw_string_dset(g, "fixed_ascii_holding_utf8", nullpad, ["gr\u00fc\u00dfe".encode(), b"plain"])
    raw_string_dset(g, "fixed_invalid_utf8", nullpad, [b"ok", b"\xff\xfebad"])
    # A placeholder of another string type (variable-length) is fine: same class.
    raw_string_dset(g, "fixed_vlen_placeholder", nullpad, [b"NA", b"b"])
    f["str/fixed_vlen_placeholder"].attrs.create(PLACEHOLDER, "NA", dtype=h5py.string_dtype("ascii"))
    d = dset(g, "vlen_utf8", np.array(["\u00e9", "NA", "", "NA", "\u65e5\u672c"], dtype=object),
             dtype=h5py.string_dtype("utf-8"))
    d.attrs.create(PLACEHOLDER, "NA", dtype=h5py.string_dtype("utf-8"))
    d = dset(g, "vlen_ascii", np.array([b"x", b"NA", b"NAN"], dtype=object), dtype=h5py.string_dtype("ascii"))
    d.attrs.create(PLACEHOLDER, np.bytes_(b"NA"))
    d = dset(g, "int_placeholder", np.array([b"1", b"2"], dtype=object), dtype=h5py.string_dtype("ascii"))
    d.attrs.create(PLACEHOLDER, np.int32(1))

    g = f.create_group("other")
    dset(g, "bool", np.array([True, False]))
    dset(g, "compound", np.zeros(2, dtype=[("a", "i4"), ("b", "f8")]))

# --- netCDF-4 conventions ------------------------------------------------------------------
#
# A netCDF-4-style file: dimensions as dimension scales (coordinate variables, and datasets
# standing for dimensions without a variable), an unlimited dimension, the 4-D variable
# temp(time, level, lat, lon) of the netCDF users' guide, netCDF chars, and ragged arrays.
#
# Ragged arrays, two conventions:
# * the guide's (section 3.4): the data variable has a `row_index` attribute naming an integer
#   variable holding each row's start; row i spans [start[i], start[i+1]) and the last row ends
#   at the data variable's length;
# * CF's contiguous ragged array: a count variable with a `sample_dimension` attribute naming
#   the data variables' dimension; row i has count[i] elements, rows stored one after another.

NOT_A_VARIABLE = "This is a netCDF dimension but not a netCDF variable.%10d"


def dimension(f, name, values=None, length=None, unlimited=False, dimid=0):
    if values is None:
        values = np.zeros(length, dtype="f4")
        maxshape = (None,) if unlimited else None
        d = dset(f, name, values, maxshape=maxshape, chunks=(max(len(values), 1),) if unlimited else None)
        d.make_scale(NOT_A_VARIABLE % len(values))
    else:
        maxshape = (None,) if unlimited else None
        d = dset(f, name, values, maxshape=maxshape, chunks=(max(len(values), 1),) if unlimited else None)
        d.make_scale(name)
    d.attrs.create("_Netcdf4Dimid", np.int32(dimid))
    return d


def variable(f, name, data, dims, **kw):
    d = dset(f, name, data, **kw)
    for k, dim in enumerate(dims):
        d.dims[k].attach_scale(f[dim])
    return d


with new("netcdf4.h5", EARLIEST) as f:
    dimension(f, "time", np.array([0.0, 6.0, 12.0]), unlimited=True, dimid=0)
    dimension(f, "level", np.array([1000, 850, 500, 250], dtype="i4"), dimid=1)
    dimension(f, "lat", np.linspace(-40, 40, 5).astype("f4"), dimid=2)
    dimension(f, "lon", np.linspace(0, 324, 10).astype("f4"), dimid=3)
    dimension(f, "bnds", length=2, dimid=4)
    # temp(time, level, lat, lon): values from -150 to ~250, so some are out of an i8's range.
    t, lv, la, lo = np.meshgrid(np.arange(3), np.arange(4), np.arange(5), np.arange(10), indexing="ij")
    temp = (t * 100.0 + lv * 17.25 + la * 3.5 - lo * 15.125 - 30.0).astype("f4")
    temp[1, 2, 3, 4] = np.nan
    temp[2, 0, 0, 9] = 1e20
    v = variable(f, "temp", temp, ["time", "level", "lat", "lon"], chunks=(1, 4, 5, 10),
                 maxshape=(None, 4, 5, 10))
    v.attrs["units"] = np.bytes_(b"celsius")
    elev = (np.arange(50, dtype="i2").reshape(5, 10) * 211 - 4000).astype("i2")
    variable(f, "elev", elev, ["lat", "lon"])
    variable(f, "time_bnds", np.array([[-3, 3], [3, 9], [9, 15]], dtype="f8"), ["time", "bnds"],
             chunks=(1, 2), maxshape=(None, 2))
    # The guide's ragged array: ragged_mat(max_elements), row_start(max_rows).
    dimension(f, "max_elements", length=33, dimid=5)
    dimension(f, "max_rows", length=6, dimid=6)
    rm = variable(f, "ragged_mat", (np.arange(33, dtype="i4") * 3 - 40), ["max_elements"])
    rm.attrs["row_index"] = np.bytes_(b"row_start")
    variable(f, "row_start", np.array([0, 12, 19, 25, 25, 30], dtype="i4"), ["max_rows"])
    # Broken ragged arrays: a missing index variable, decreasing starts.
    dimension(f, "n3", length=3, dimid=7)
    bad = variable(f, "ragged_missing_index", np.arange(3, dtype="i4"), ["n3"])
    bad.attrs["row_index"] = np.bytes_(b"no_such_variable")
    bad = variable(f, "ragged_decreasing", np.arange(3, dtype="i4"), ["n3"])
    bad.attrs["row_index"] = np.bytes_(b"bad_starts")
    variable(f, "bad_starts", np.array([0, 2, 1], dtype="i4"), ["n3"])
    # CF contiguous ragged array: humidity(obs) in rows of row_size(station).
    dimension(f, "station", length=4, dimid=8)
    dimension(f, "obs", length=10, dimid=9)
    rs = variable(f, "row_size", np.array([3, 0, 5, 2], dtype="i4"), ["station"])
    rs.attrs["sample_dimension"] = np.bytes_(b"obs")
    variable(f, "humidity", (np.arange(10, dtype="f4") * 0.5 + 40), ["obs"])
    # netCDF chars: a fixed string of one character per element.
    dimension(f, "name_strlen", length=5, dimid=10)
    chars = np.array([list(b"alpha"), list(b"beta\0"), list(b"gamma"), list(b"nu\0\0\0")], dtype="u1")
    char_t = fixed_str_type(1, h5py.h5t.STR_NULLTERM)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_obj_track_times(False)
    sid = h5py.h5d.create(f.id, b"station_name", char_t, h5py.h5s.create_simple((4, 5)), dcpl=dcpl)
    sid.write(h5py.h5s.ALL, h5py.h5s.ALL, chars.view("S1"), mtype=char_t)
    f["station_name"].dims[0].attach_scale(f["station"])
    f["station_name"].dims[1].attach_scale(f["name_strlen"])
    # A scalar variable.
    dset(f, "scale_factor_var", np.float64(0.5))
