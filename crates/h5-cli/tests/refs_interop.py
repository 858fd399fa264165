"""The readers' side of `refs_interop.rs`: for each (HDF5 file, our references) pair,
1. read every array of our references through fsspec's ReferenceFileSystem and zarr, and
   the root group's arrays through xarray with dask, and compare them with h5py's values;
2. make kerchunk's own references (SingleHdf5ToZarr) to the same file and compare them with
   ours key by key, after normalisation (metadata parsed as JSON; an inline chunk equals a
   range holding the same bytes).
Prints one JSON report on standard output.

Usage: python refs_interop.py MODE PAIRS.json
  MODE local: PAIRS is [[h5 path, refs path], ...]
  MODE s3:    the same, the references naming s3:// URLs; AWS_ENDPOINT_URL names the server
"""

import base64
import json
import os
import sys
import warnings

import fsspec
import h5py
import numpy as np
import zarr

try:
    import hdf5plugin  # noqa: F401  (h5py reads the plugin filters)
except ImportError:
    pass

warnings.simplefilter("ignore")

mode, pairs_path = sys.argv[1], sys.argv[2]
pairs = json.load(open(pairs_path))

remote = {}
if mode == "s3":
    remote = dict(
        remote_protocol="s3",
        remote_options=dict(
            key="test",
            secret="test",
            client_kwargs=dict(endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1"),
        ),
    )


def h5_values(f, path):
    d = f[path]
    if h5py.check_string_dtype(d.dtype) is not None and d.dtype.kind == "O":
        return np.array(d.asstr()[()], dtype=object)
    return d[()]


def same(a, b):
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        return False, f"shape {a.shape} != {b.shape}"
    if a.dtype.kind == "O" or b.dtype.kind in "OTU":
        ok = [str(x) for x in a.ravel()] == [str(x) for x in b.ravel()]
        return ok, "" if ok else f"{a.ravel()[:5]} != {b.ravel()[:5]}"
    if a.dtype.kind == "f":
        ok = np.array_equal(a, b, equal_nan=True)
    else:
        ok = np.array_equal(a, b)
    if ok and a.dtype != b.dtype and a.dtype.kind != "b":
        return False, f"dtype {a.dtype} != {b.dtype}"
    return ok, "" if ok else f"values differ: {a.ravel()[:5]} != {b.ravel()[:5]}"


def arrays_of(refs):
    return sorted(k[: -len("/.zarray")] for k in refs["refs"] if k.endswith(".zarray"))


def store_of(refs, path=""):
    """A zarr store over fsspec's ReferenceFileSystem (zarr lists a subgroup's members
    only from a store rooted at it)."""
    from fsspec.implementations.asyn_wrapper import AsyncFileSystemWrapper

    fs = fsspec.filesystem("reference", fo=refs, **remote)
    return zarr.storage.FsspecStore(AsyncFileSystemWrapper(fs), read_only=True, path=path)


def read_with_zarr(refs, h5, report):
    root = zarr.open_group(store_of(refs), mode="r", zarr_format=2)
    for name in arrays_of(refs):
        got = root[name][()]
        ok, why = same(got, h5_values(h5, name))
        report["zarr_checked"] += 1
        if not ok:
            report["mismatches"].append(f"zarr {name}: {why}")


def read_with_xarray(refs, h5, report):
    import xarray as xr

    ds = xr.open_dataset(
        store_of(refs, "climate"),
        engine="zarr",
        chunks={},
        consolidated=False,
        zarr_format=2,
        mask_and_scale=False,
        decode_times=False,
    )
    for name, var in ds.variables.items():
        got = var.values
        ok, why = same(got, h5_values(h5, "climate/" + name))
        report["xarray_checked"] += 1
        if not ok:
            report["mismatches"].append(f"xarray {name}: {why}")
    if "temp" in ds:
        dims = list(ds["temp"].dims)
        if dims != ["climate/x", "climate/y"]:
            report["mismatches"].append(f"xarray temp dims {dims}")


def chunk_bytes(v, fs_bytes):
    if isinstance(v, list):
        url, off, length = v
        return fs_bytes[off : off + length]
    if v.startswith("base64:"):
        return base64.b64decode(v[len("base64:"):])
    return v.encode("utf-8", "surrogatepass")


def compare_with_kerchunk(h5path, ours, report):
    from kerchunk.hdf import SingleHdf5ToZarr

    theirs = SingleHdf5ToZarr(h5path, url=h5path, inline_threshold=500, error="ignore").translate()
    raw = open(h5path, "rb").read()
    o, t = ours["refs"], theirs["refs"]
    objects = set(k.rsplit("/", 1)[0] if "/" in k else "" for k in list(o) + list(t))
    for obj in sorted(objects):
        pre = obj + "/" if obj else ""
        ok_keys = {k for k in o if k.startswith(pre) and "/" not in k[len(pre):]}
        tk_keys = {k for k in t if k.startswith(pre) and "/" not in k[len(pre):]}
        if not ok_keys and not tk_keys:
            continue
        diffs = []
        if ok_keys != tk_keys:
            only_o = sorted(ok_keys - tk_keys)[:3]
            only_t = sorted(tk_keys - ok_keys)[:3]
            diffs.append(f"keys: only ours {only_o}, only kerchunk {only_t}")
        for k in sorted(ok_keys & tk_keys):
            a, b = o[k], t[k]
            name = k[len(pre):]
            if name.startswith(".z"):
                ja, jb = json.loads(a), json.loads(b)
                if ja != jb:
                    diffs.append(f"{name}: ours {ja} kerchunk {jb}")
            elif isinstance(a, list) and isinstance(b, list):
                if a[1:] != b[1:]:
                    diffs.append(f"{name}: ours {a[1:]} kerchunk {b[1:]}")
            elif chunk_bytes(a, raw) != chunk_bytes(b, raw):
                diffs.append(f"{name}: bytes differ")
        if diffs:
            report["kerchunk_diffs"]["/" + obj] = diffs[:4]
        report["kerchunk_compared"] += 1


result = {}
for h5path, refs_path in pairs:
    refs = json.load(open(refs_path))
    report = dict(zarr_checked=0, xarray_checked=0, kerchunk_compared=0, mismatches=[], kerchunk_diffs={})
    with h5py.File(h5path, "r") as h5:
        try:
            read_with_zarr(refs, h5, report)
        except Exception as e:  # reported, the test fails on it
            report["mismatches"].append(f"zarr: {type(e).__name__}: {e}")
        try:
            if "climate" in h5:
                read_with_xarray(refs, h5, report)
        except Exception as e:
            report["mismatches"].append(f"xarray: {type(e).__name__}: {e}")
    if mode == "local":
        compare_with_kerchunk(h5path, refs, report)
    result[os.path.basename(h5path)] = report
print(json.dumps(result))
