"""The h5py files the h5-serve differential tests serve: every type class, chunked and
compressed data, groups, soft/external/dangling links, attributes, scalar and empty datasets."""
import sys

import h5py
import hdf5plugin
import numpy as np

out = sys.argv[1]

with h5py.File(f"{out}/target.h5", "w") as f:
    f["data"] = np.arange(6, dtype="<i2")
    f.create_group("g").attrs["who"] = "target"

with h5py.File(f"{out}/types.h5", "w") as f:
    f.attrs["title"] = "all types"
    f.attrs["version"] = np.int64(3)
    f.attrs["scale"] = np.float32(0.1)
    f.attrs["range"] = np.array([-1.5, 2.25])
    f.attrs["fixed"] = np.bytes_(b"fixed-ascii")
    f.attrs["names"] = np.array(["a", "bc"], dtype=h5py.string_dtype())
    f.attrs["empty"] = h5py.Empty("f4")
    f.attrs["flag"] = np.bool_(True)
    g = f.create_group("entry")
    g.attrs["NX_class"] = "NXentry"
    g.attrs["default"] = "data"
    d = g.create_group("data")
    d["image"] = np.arange(12 * 10, dtype="<f8").reshape(12, 10) / 7.0
    d["image"].attrs["units"] = "counts"
    d["f32"] = (np.arange(50, dtype="<f4") - 20.5) / 3
    d["f16"] = (np.arange(10, dtype="<f2") - 3) / 4
    d["be_f32"] = np.linspace(-1, 1, 9).astype(">f4")
    d["be_i32"] = np.arange(-4, 5, dtype=">i4")
    for t in ["i1", "u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8"]:
        d["int_" + t.strip("<")] = (np.arange(20) * 7 - 30).astype(t)
    d["nan"] = np.array([1.0, np.nan, np.inf, -np.inf, -2.5, 0.0])
    d["allnan"] = np.array([np.nan, np.nan])
    d["cube"] = np.arange(2 * 3 * 4, dtype="<i4").reshape(2, 3, 4)
    d["bool"] = np.array([True, False, True, True])
    d["scalar"] = 42.5
    d["scalar_int"] = np.int32(-7)
    d["scalar_str"] = "hello"
    d["empty"] = h5py.Empty("<i4")
    d["zero_len"] = np.zeros((0,), dtype="<f8")
    d["fixed_str"] = np.array([b"one", b"two", b"three"], dtype="S5")
    d["vlen_str"] = np.array(["alpha", "βeta", ""], dtype=h5py.string_dtype())
    d["ascii_vlen"] = np.array([b"x", b"yz"], dtype=h5py.string_dtype("ascii"))
    d["compound"] = np.array(
        [("Rex", 9, 81.0), ("Fido", 3, 27.5)],
        dtype=[("name", "S10"), ("age", "<i4"), ("weight", "<f4")],
    )
    d["enum"] = np.array([0, 1, 2, 1], dtype=h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 2}, basetype="u1"))
    d.create_dataset("array", shape=(2,), dtype=np.dtype(("<i4", (3,))))
    d["array"][...] = np.array([[1, 2, 3], [4, 5, 6]], dtype="<i4")
    d["opaque"] = np.void(b"abc")
    d.create_dataset("vlen_seq", shape=(2,), dtype=h5py.vlen_dtype("<i4"))
    d["vlen_seq"][0] = np.array([1, 2, 3], dtype="<i4")
    d["vlen_seq"][1] = np.array([4], dtype="<i4")
    d["complex"] = np.array([1 + 2j, -0.5 - 1j], dtype="<c16")
    d["ref"] = np.array([f["entry"].ref, d["image"].ref], dtype=h5py.ref_dtype)
    d.create_dataset("chunked", data=np.arange(400, dtype="<f4").reshape(20, 20), chunks=(5, 5), compression="gzip", shuffle=True)
    d.create_dataset("fletcher", data=np.arange(64, dtype="<i8"), chunks=(16,), fletcher32=True)
    d.create_dataset("lzf", data=np.arange(100, dtype="<u2"), chunks=(10,), compression="lzf")
    d.create_dataset("big_ints", data=np.arange(20000, dtype="<i4") * 3 - 7)
    d.create_dataset("big_f64", data=np.sin(np.arange(10000)) * 1000)
    d.create_dataset("big_f32", data=(np.cos(np.arange(5000)) * 10).astype("<f4"))
    d.create_dataset("zstd", data=np.arange(300, dtype="<i4").reshape(15, 20), chunks=(5, 20), **hdf5plugin.Zstd())
    d["be_image"] = (np.arange(24, dtype=">f8").reshape(4, 6) - 10) / 3
    d["bool_image"] = np.eye(3, dtype=bool)
    d["u8_image"] = np.arange(16, dtype="u1").reshape(4, 4)
    d["image"].attrs["matrix"] = np.arange(6, dtype="<i2").reshape(2, 3)
    d["image"].attrs["point"] = np.array((1, 2.5), dtype=[("x", "<i4"), ("y", "<f8")])
    d["image"].attrs["labels"] = np.array([b"ab", b"cde"], dtype="S3")
    d["image"].attrs["half"] = np.float16(0.1)
    d["image"].attrs["be"] = np.array([1, 2], dtype=">i4")
    o = f.create_group("ordered", track_order=True)
    o["z"] = 1
    o["a"] = 2
    o.attrs["z"] = 1
    o.attrs["a"] = 2
    f["cycle/inner"] = np.arange(3)
    f["cycle/back"] = f["cycle"]
    f["committed"] = np.dtype("<f8")
    f["links/soft"] = h5py.SoftLink("/entry/data/image")
    f["links/dangling"] = h5py.SoftLink("/nowhere")
    f["links/external"] = h5py.ExternalLink("target.h5", "/data")
    f["links/ext_missing"] = h5py.ExternalLink("target.h5", "/missing")
    f["links/hard"] = d["f32"]
    f.create_group("links/empty_group")

with h5py.File(f"{out}/simple.h5", "w") as f:
    f["x"] = np.arange(10, dtype="<f8")
