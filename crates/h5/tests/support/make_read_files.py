#!/usr/bin/env python3
"""Write the files the facade's read tests read (h5py, i.e. the reference library, writes them).

Usage: make_read_files.py DIR
"""
import os
import sys

import h5py
import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)

with h5py.File(os.path.join(d, "other.h5"), "w") as f:
    f["x"] = np.arange(5, dtype="<i2")

with h5py.File(os.path.join(d, "userblock.h5"), "w", userblock_size=1024) as f:
    f["x"] = np.arange(7, dtype="<u4")
with open(os.path.join(d, "userblock.h5"), "r+b") as f:
    f.write(b"a user block")

with h5py.File(os.path.join(d, "latest.h5"), "w", libver="latest") as f:
    f.create_dataset("ea", data=np.arange(50, dtype="<i4"), chunks=(4,), maxshape=(None,))
    f.create_dataset("bt2", data=np.arange(60, dtype="<i4").reshape(6, 10), chunks=(2, 3),
                     maxshape=(None, None), compression="gzip")
    f.create_dataset("fa", data=np.arange(30, dtype="<i4"), chunks=(7,))
    g = f.create_group("dense")
    for i in range(40):
        g.create_group("child%02d" % i)

with h5py.File(os.path.join(d, "main.h5"), "w", track_order=True) as f:
    cmp = np.dtype([("a", "<i4"), ("b", ">f8"), ("c", "S8"), ("d", "<u2")])
    v = np.zeros(10, dtype=cmp)
    v["a"] = np.arange(10) * -3
    v["b"] = np.arange(10) / 4.0
    v["c"] = [b"s%d" % i for i in range(10)]
    v["d"] = np.arange(10) + 1000
    f["cmp"] = v
    big = (np.arange(100)[:, None] * 200 + np.arange(200)[None, :]).astype("<f4")
    f.create_dataset("big", data=big, chunks=(10, 20), compression="gzip", shuffle=True,
                     fletcher32=True)
    f.create_dataset("be", data=np.arange(12, dtype=">i8").reshape(3, 4))
    sdt = h5py.string_dtype("utf-8")
    f.create_dataset("vstr", data=np.array(["alpha", "", "gamma delta", "\u00e9t\u00e9"], dtype=object),
                     dtype=sdt)
    vi = h5py.vlen_dtype(np.dtype("<i4"))
    ds = f.create_dataset("vint", (3,), dtype=vi)
    ds[0] = [1, 2, 3]
    ds[1] = []
    ds[2] = [7]
    fill = f.create_dataset("fill", (40,), dtype="<i4", chunks=(10,), fillvalue=-7)
    fill[10:20] = np.arange(10)
    g = f.create_group("g", track_order=True)
    for name in ["zeta", "alpha", "mid"]:
        g.create_group(name)
    g["loop"] = f["/"]  # a hard link back to the root: a cycle
    f["soft"] = h5py.SoftLink("/big")
    f["dangling"] = h5py.SoftLink("/nowhere")
    f["ext"] = h5py.ExternalLink("other.h5", "/x")
    refs = f.create_dataset("refs", (2,), dtype=h5py.ref_dtype)
    refs[0] = f["big"].ref
    refs[1] = f["g"].ref
    rr = f.create_dataset("regrefs", (1,), dtype=h5py.regionref_dtype)
    rr[0] = f["big"].regionref[2:4, 5:8]
    sp = f.create_dataset("sparse", shape=(10**6, 10**6), dtype="<i2", chunks=(100, 100),
                          fillvalue=3, compression="gzip")
    sp[500000:500100, 700000:700100] = np.arange(10000, dtype="<i2").reshape(100, 100)
    f.attrs["title"] = "read tests"
    f["big"].attrs["scale"] = np.float32(0.5)
    for i in range(20):
        f["g"].attrs["a%02d" % i] = np.arange(i + 1, dtype="<i8")

# Groups whose names are listed (`member_names`): old-style ones whose links were made in
# shuffled order (their symbol table nodes lie in the file out of B-tree order) or in order,
# with soft links among them, and new-style compact and dense ones; beside them, h5py's
# listing of each, one "GROUP<TAB>NAME" line per link, sorted by name bytes.
rng = np.random.default_rng(7)
with h5py.File(os.path.join(d, "names.h5"), "w", libver="earliest") as f:
    g = f.create_group("shuffled")
    for i in rng.permutation(3000):
        if i % 7 == 0:
            g["n%04d" % i] = h5py.SoftLink("/nowhere/%d" % i)
        else:
            g.create_group("n%04d" % i)
    g = f.create_group("ordered")
    for i in range(500):
        g.create_group("m%03d" % i)
with h5py.File(os.path.join(d, "names_new.h5"), "w", libver="latest") as f:
    g = f.create_group("compact")
    for i in rng.permutation(6):
        g.create_group("c%d" % i)
    g = f.create_group("dense")
    for i in rng.permutation(300):
        g.create_group("d%03d" % i)
with open(os.path.join(d, "names.txt"), "w") as out:
    for file, groups in [("names.h5", ["shuffled", "ordered"]),
                         ("names_new.h5", ["compact", "dense"])]:
        with h5py.File(os.path.join(d, file), "r") as f:
            for group in groups:
                for name in sorted(list(f[group]), key=lambda n: n.encode()):
                    out.write("%s/%s\t%s\n" % (file, group, name))
