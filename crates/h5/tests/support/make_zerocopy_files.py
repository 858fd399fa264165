#!/usr/bin/env python3
"""Write the files the zerocopy read tests read (h5py, i.e. the reference library, writes them).

Usage: make_zerocopy_files.py DIR

Every dataset holds records k = 0..N-1 with t = k / 4, id = 3k + 1, value = k mod 1000 - 0.5,
n = -7k (N = 1000), in different layouts of the same four members.
"""
import os
import sys

import h5py
import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
N = 1000
k = np.arange(N)


def records(dtype):
    v = np.zeros(N, dtype=dtype)
    v["t"] = k / 4.0
    v["id"] = 3 * k + 1
    v["value"] = (k % 1000) - 0.5
    v["n"] = -7 * k
    return v


# The Rust struct's own layout: t@0 (f8), id@8 (u4), value@12 (f4), n@16 (i8), 24 bytes.
native = np.dtype([("t", "<f8"), ("id", "<u4"), ("value", "<f4"), ("n", "<i8")])
# The same members big-endian.
big = np.dtype([("t", ">f8"), ("id", ">u4"), ("value", ">f4"), ("n", ">i8")])
# The same members with padding between and after them (32 bytes).
padded = np.dtype({"names": ["t", "id", "value", "n"],
                   "formats": ["<f8", "<u4", "<f4", "<i8"],
                   "offsets": [0, 8, 16, 24], "itemsize": 40})
# The same members in another order (packed).
reordered = np.dtype([("n", "<i8"), ("value", "<f4"), ("t", "<f8"), ("id", "<u4")])
# Five members, packed (as in the benchmark): the field read picks some of them.
five = np.dtype([("a", "<i4"), ("t", "<f8"), ("c", "<i2"), ("value", "<f4"), ("e", "<i8")])

with h5py.File(os.path.join(d, "records.h5"), "w") as f:
    f["native"] = records(native)
    f.create_dataset("native_chunked", data=records(native), chunks=(64,), compression="gzip")
    # Only the first half written: the rest is the fill value.
    fill = np.zeros((), dtype=native)
    fill["t"], fill["id"], fill["value"], fill["n"] = -1.0, 9, 2.5, -3
    half = f.create_dataset("native_fill", (N,), dtype=native, chunks=(100,), fillvalue=fill)
    half[: N // 2] = records(native)[: N // 2]
    f["big"] = records(big)
    f.create_dataset("big_chunked", data=records(big), chunks=(64,), compression="gzip")
    f["padded"] = records(padded)
    f["reordered"] = records(reordered)
    v = np.zeros(N, dtype=five)
    v["a"] = k
    v["t"] = k / 4.0
    v["c"] = k % 32768
    v["value"] = (k % 1000) - 0.5
    v["e"] = 3 * k
    f["five"] = v
    f.create_dataset("five_chunked", data=v, chunks=(100,), compression="gzip", shuffle=True)
