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
