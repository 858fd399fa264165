"""Write the plugin-filter interop fixtures with h5py and hdf5plugin.

Usage: python3 plugin_fixtures.py OUTDIR

One file per filter and option set, each holding small chunked datasets of several
datatypes and chunk shapes (a partial edge chunk included), with fixed contents and
`track_times=False` in the v108 format bounds (the reference h5dump 1.10 reads them), so that
h5dump's output (with HDF5_PLUGIN_PATH at hdf5plugin's plugin folder) is reproducible.
`cargo xtask gen-fixtures` runs this, then records that h5dump output beside each file.
"""

import os
import sys

import h5py
import hdf5plugin
import numpy as np

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)

# name -> h5py compression arguments
FILTERS = {
    "zstd_1": hdf5plugin.Zstd(clevel=1),
    "zstd_19": hdf5plugin.Zstd(clevel=19),
    "lz4": hdf5plugin.LZ4(),
    "lz4_block256": hdf5plugin.LZ4(nbytes=256),
    "bzip2_1": hdf5plugin.BZip2(blocksize=1),
    "bzip2_9": hdf5plugin.BZip2(blocksize=9),
    "bitshuffle_none": hdf5plugin.Bitshuffle(cname="none"),
    "bitshuffle_lz4": hdf5plugin.Bitshuffle(cname="lz4"),
    "bitshuffle_zstd": hdf5plugin.Bitshuffle(cname="zstd", clevel=5),
    "bitshuffle_lz4_nelems64": hdf5plugin.Bitshuffle(nelems=64, cname="lz4"),
}
for cname in ("blosclz", "lz4", "lz4hc", "zlib", "zstd"):
    for shuffle, sname in (
        (hdf5plugin.Blosc.NOSHUFFLE, "noshuffle"),
        (hdf5plugin.Blosc.SHUFFLE, "shuffle"),
        (hdf5plugin.Blosc.BITSHUFFLE, "bitshuffle"),
    ):
        FILTERS[f"blosc_{cname}_{sname}"] = hdf5plugin.Blosc(cname=cname, clevel=5, shuffle=shuffle)
FILTERS["blosc_lz4_level0"] = hdf5plugin.Blosc(cname="lz4", clevel=0)
FILTERS["blosc_zstd_level9"] = hdf5plugin.Blosc(cname="zstd", clevel=9)
for cname in ("blosclz", "lz4", "lz4hc", "zlib", "zstd"):
    for filters, fname in (
        (hdf5plugin.Blosc2.NOFILTER, "nofilter"),
        (hdf5plugin.Blosc2.SHUFFLE, "shuffle"),
        (hdf5plugin.Blosc2.BITSHUFFLE, "bitshuffle"),
        (hdf5plugin.Blosc2.DELTA, "delta"),
        (hdf5plugin.Blosc2.TRUNC_PREC, "truncprec"),
    ):
        FILTERS[f"blosc2_{cname}_{fname}"] = hdf5plugin.Blosc2(cname=cname, clevel=5, filters=filters)
FILTERS["blosc2_lz4_level0"] = hdf5plugin.Blosc2(cname="lz4", clevel=0)
FILTERS["blosc2_zstd_level9"] = hdf5plugin.Blosc2(cname="zstd", clevel=9)
FILTERS["blosc2_blosclz_level1"] = hdf5plugin.Blosc2(cname="blosclz", clevel=1)


def data(shape, dtype):
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.int64)
    if np.dtype(dtype).kind == "f":
        v = np.sin(i / 7.0) * 100.0
    else:
        v = (i * 7 // 3) % 251
    return v.astype(dtype).reshape(shape)


# (dataset name, shape, chunks, dtype)
DATASETS = [
    ("u1", (40,), (16,), "u1"),
    ("i4", (30, 20), (8, 8), "<i4"),
    ("f8", (12, 10), (5, 10), "<f8"),
    ("i2be", (6, 5, 7), (3, 5, 4), ">i2"),
]

for name, comp in FILTERS.items():
    with h5py.File(os.path.join(OUT, f"{name}.h5"), "w", libver=("v108", "v108")) as f:
        for dname, shape, chunks, dtype in DATASETS:
            f.create_dataset(
                dname,
                data=data(shape, dtype),
                chunks=chunks,
                track_times=False,
                **comp,
            )
