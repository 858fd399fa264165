"""Files for the kerchunk reference interop test (`refs_interop.rs`), written by h5py:
groups with attributes, dimension scales, contiguous, compact and chunked datasets with
every chunk index, the filters numcodecs reads, fill values, strings, and what references
cannot express. Usage: python refs_fixtures.py OUTDIR"""

import os
import sys

import h5py
import numpy as np

try:
    import hdf5plugin
except ImportError:  # the plugin filters are then left out
    hdf5plugin = None

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def compact(group, name, data):
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    space = h5py.h5s.create_simple(data.shape)
    tid = h5py.h5t.py_create(data.dtype)
    d = h5py.h5d.create(group.id, name.encode(), tid, space, dcpl)
    d.write(h5py.h5s.ALL, h5py.h5s.ALL, data)


def common(f):
    f.attrs["title"] = "reference interop"
    f.attrs["version"] = np.int32(3)
    f.attrs["scale"] = np.float64(0.5)
    f.attrs["levels"] = np.arange(3, dtype="i2")
    f.attrs["fixed"] = np.bytes_(b"abc")
    f.attrs["names"] = ["x", "yz"]
    f.attrs["flag"] = np.bool_(True)
    # A group xarray opens: every dimension has its scale.
    c = f.create_group("climate")
    x = c.create_dataset("x", data=np.arange(40, dtype="f8") * 0.25)
    x.make_scale("x")
    y = c.create_dataset("y", data=np.arange(30, dtype="i4"))
    y.make_scale("y")
    m = c.create_dataset("mask", data=(np.arange(1200).reshape(40, 30) % 7).astype("u1"))
    m.dims[0].attach_scale(x)
    m.dims[1].attach_scale(y)
    t = c.create_dataset(
        "temp",
        data=np.arange(1200, dtype="f4").reshape(40, 30) / 7,
        chunks=(16, 8),
        compression="gzip",
        compression_opts=4,
        shuffle=True,
        fillvalue=np.float32(-9999),
    )
    t.dims[0].attach_scale(x)
    t.dims[1].attach_scale(y)
    t.attrs["units"] = "K"
    t.attrs["valid_range"] = np.array([0.0, 500.0])
    f.create_dataset("contig_be", data=np.arange(300, dtype=">i8"))
    f.create_dataset("small", data=np.arange(5, dtype="u2"))
    f.create_dataset("scalar", data=np.float64(2.5))
    f.create_dataset("flags", data=np.arange(20) % 3 == 0)
    f.create_dataset("strings", data=np.array([b"alpha", b"be", b"gamma"], dtype="S5"))
    f.create_dataset("vstrings", data=["one", "two", "three"], dtype=h5py.string_dtype())
    f.create_dataset("unwritten", shape=(10, 10), dtype="f8", chunks=(5, 5), fillvalue=np.nan)
    f.create_dataset("nanfill", data=np.arange(100.0), chunks=(30,), fillvalue=np.nan)
    e = f.create_dataset(
        "enum", data=np.array([0, 1, 2, 1], dtype="u1"),
        dtype=h5py.enum_dtype({"R": 0, "G": 1, "B": 2}, basetype="u1"))
    e.attrs["note"] = "an enum read as its integers"
    g = f.create_group("grp")
    g.attrs["count"] = np.uint16(7)
    sub = g.create_group("sub")
    sub.create_dataset("deep", data=np.arange(64, dtype="f8").reshape(8, 8), chunks=(4, 4))
    compact(g, "compact", np.arange(12, dtype="<i2"))
    compact(g, "compact_big", np.arange(400, dtype="<f4"))
    g.create_dataset("fletcher", data=np.arange(1000, dtype="f8"), chunks=(250,),
                     compression="gzip", fletcher32=True)
    g.create_dataset("zlib9", data=np.tile(np.arange(50, dtype="i8"), 20), chunks=(100,),
                     compression="gzip", compression_opts=9)
    # Filters numcodecs lacks.
    g.create_dataset("lzf", data=np.repeat(np.arange(10), 100).astype("i4"), chunks=(100,), compression="lzf")
    g.create_dataset("scaleoffset", data=np.arange(1000, dtype="i4"), chunks=(100,),
                     scaleoffset=0)
    if hdf5plugin is not None:
        p = f.create_group("plugins")
        data = np.sin(np.arange(4000, dtype="f8") / 50)
        p.create_dataset("zstd", data=data, chunks=(1000,), **hdf5plugin.Zstd(clevel=5))
        p.create_dataset("blosc_lz4", data=data, chunks=(1000,),
                         **hdf5plugin.Blosc(cname="lz4", clevel=5, shuffle=hdf5plugin.Blosc.SHUFFLE))
        p.create_dataset("blosc_zstd", data=data, chunks=(1000,),
                         **hdf5plugin.Blosc(cname="zstd", clevel=3, shuffle=hdf5plugin.Blosc.BITSHUFFLE))
        p.create_dataset("bzip2", data=data, chunks=(1000,), **hdf5plugin.BZip2(blocksize=9))
        p.create_dataset("lz4", data=data, chunks=(1000,), **hdf5plugin.LZ4())
        p.create_dataset("bitshuffle", data=data, chunks=(1000,), **hdf5plugin.Bitshuffle())


# Version 1 B-trees (the earliest format).
with h5py.File(os.path.join(out, "earliest.h5"), "w", libver="earliest") as f:
    common(f)

# The latest format: single chunk, implicit, fixed array, extensible array, version 2
# B-tree indexes.
with h5py.File(os.path.join(out, "latest.h5"), "w", libver="latest") as f:
    common(f)
    idx = f.create_group("index")
    data = np.arange(600, dtype="i4").reshape(20, 30)
    idx.create_dataset("single", data=data, chunks=(20, 30))
    idx.create_dataset("single_filtered", data=data, chunks=(20, 30), compression="gzip")
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((5, 10))
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    space = h5py.h5s.create_simple((20, 30))
    h5py.h5d.create(idx.id, b"implicit", h5py.h5t.STD_I32LE, space, dcpl).write(
        h5py.h5s.ALL, h5py.h5s.ALL, data)
    idx.create_dataset("fixed", data=data, chunks=(5, 10))
    idx.create_dataset("extensible", data=data, chunks=(5, 10), maxshape=(None, 30))
    idx.create_dataset("btree2", data=data, chunks=(5, 10), maxshape=(None, None),
                       compression="gzip", shuffle=True)
    sparse = idx.create_dataset("sparse", shape=(40, 40), dtype="u1", chunks=(10, 10),
                                fillvalue=255)
    sparse[0:10, 0:10] = 1
    sparse[30:40, 10:20] = 2

# A user block before the HDF5 data: offsets are absolute file positions.
with h5py.File(os.path.join(out, "userblock.h5"), "w", userblock_size=1024) as f:
    f.create_dataset("data", data=np.arange(500, dtype="f8"), chunks=(100,), compression="gzip")
    f.create_dataset("plain", data=np.arange(500, dtype="i4"))

# Data references cannot express (kerchunk 0.2.10 hangs on some of it, so this file is not
# given to it).
with h5py.File(os.path.join(out, "unsupported.h5"), "w") as f:
    x = f.create_dataset("x", data=np.arange(4.0))
    g = f.create_group("grp")
    g.create_dataset("compound", data=np.zeros(4, dtype=[("a", "<i4"), ("b", "<f8")]))
    g.create_dataset("vlen_ints", data=np.array([np.arange(2), np.arange(3)], dtype=object),
                     dtype=h5py.vlen_dtype("i4"))
    g.create_dataset("refs", data=[x.ref, x.ref], dtype=h5py.ref_dtype)
