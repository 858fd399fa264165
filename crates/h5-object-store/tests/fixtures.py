# HDF5 files for the object-store tests, written by h5py into the folder argv[1]: every
# chunk index, filters, groups, strings, compounds, and an external link into the same bucket.
import sys, os
import numpy as np
import h5py

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

# The 1.10 format (superblock 3, every version 4 chunk index): what h5dump 1.10.8 reads.
with h5py.File(os.path.join(out, "latest.h5"), "w", libver=("v110", "v110")) as f:
    g = f.create_group("g/sub")
    f.create_dataset("single", data=np.arange(12, dtype="i4").reshape(3, 4), chunks=(3, 4))
    f.create_dataset("fixed", data=np.arange(1000, dtype="f8"), chunks=(100,))
    f.create_dataset("fixed_gzip", data=np.arange(1000, dtype="i8") % 7, chunks=(128,),
                     compression="gzip", shuffle=True)
    e = f.create_dataset("earray", shape=(50, 4), maxshape=(None, 4), chunks=(8, 4), dtype="u2")
    e[...] = np.arange(200, dtype="u2").reshape(50, 4)
    b = f.create_dataset("btree2", shape=(20, 20), maxshape=(None, None), chunks=(6, 6), dtype="i2",
                         compression="gzip")
    b[...] = np.arange(400, dtype="i2").reshape(20, 20)
    i = f.create_dataset("implicit", shape=(64,), chunks=(16,), dtype="f4",
                         dcpl=None)
    i[...] = np.linspace(0, 1, 64, dtype="f4")
    g.create_dataset("strings", data=np.array([b"alpha", b"beta", b"gamma"], dtype=object),
                     dtype=h5py.string_dtype("ascii"))
    ct = np.dtype([("a", "i4"), ("b", "f8")])
    g.create_dataset("compound", data=np.array([(1, 0.5), (2, 1.5)], dtype=ct))
    g.attrs["title"] = "remote"
    # 8 MiB in 32 chunks, far from the head: range batches, merged and fetched concurrently.
    f.create_dataset("big", data=np.arange(1 << 21, dtype="i4"), chunks=(1 << 16,))
    for k in range(30):
        f.create_group(f"many/m{k:02}")

with h5py.File(os.path.join(out, "earliest.h5"), "w", libver="earliest") as f:
    f.create_dataset("btree1", data=np.arange(5000, dtype="i4").reshape(50, 100), chunks=(10, 25),
                     compression="gzip")
    f.create_dataset("contiguous", data=np.arange(100, dtype="f8"))
    for k in range(40):
        f.create_group(f"groups/g{k:02}")
    f["link"] = h5py.ExternalLink("latest.h5", "/g/sub")
