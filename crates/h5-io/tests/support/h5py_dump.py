#!/usr/bin/env python3
"""Oracle for the reader tests: every dataset and attribute of HDF5 files as h5py reads them.

Usage: h5py_dump.py FILE...   (one JSON object per file on stdout, one per line)

For each object: its path, the attribute name (for attributes), numpy's dtype string, the
shape, and either the CRC-32 and length of the raw bytes in the file datatype (fixed-size
types: h5py reads them with the file's own byte order and layout), or the values of
variable-length strings, or an error string when h5py cannot read it.
"""
import json
import sys
import zlib

import h5py
import numpy as np


def describe(value, dtype, shape=None):
    out = {"dtype": str(dtype)}
    if isinstance(value, h5py.Empty):
        return {"null": True}
    try:
        # h5py hands back scalars in native byte order and strips NULs from fixed strings:
        # back to the file's dtype.
        arr = np.asarray(value)
        want = dtype
        while want.subdtype is not None:
            want = want.subdtype[0]
        if not dtype.hasobject and arr.dtype != want:
            arr = arr.astype(want)
    except Exception as e:  # noqa: BLE001
        return {"error": repr(e)}
    out["shape"] = list(arr.shape)
    sdt = h5py.check_string_dtype(dtype)
    if sdt is not None and sdt.length is None:
        flat = arr.reshape(-1)
        out["strings"] = [
            (v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)) for v in flat
        ]
        return out
    vdt = h5py.check_vlen_dtype(dtype)
    if vdt is not None and vdt.kind in "iuf":
        elems = [value] if shape == () else list(arr.reshape(-1))
        out["vlen"] = [[float(x) for x in np.asarray(v).reshape(-1)] for v in elems]
        return out
    if dtype.hasobject:
        out["skip"] = "object dtype"
        return out
    raw = np.ascontiguousarray(arr).tobytes()
    if arr.dtype.kind in "iuf" and arr.dtype.subdtype is None and arr.dtype.names is None:
        # Typed values: the elements as float64 (exact for every integer below 2**53).
        out["f64crc"] = zlib.crc32(np.ascontiguousarray(arr.astype("<f8")).tobytes())
    out["len"] = len(raw)
    out["crc"] = zlib.crc32(raw)
    return out


def raw_read(obj, is_attr):
    """The bytes in the file datatype, read with the file type as the memory type."""
    tid = obj.get_type()
    size = tid.get_size()
    shape = obj.shape if is_attr else obj.shape
    arr = np.empty(shape if shape is not None else (), dtype="V%d" % size)
    if is_attr:
        obj.read(arr, mtype=tid)
    else:
        obj.read(h5py.h5s.ALL, h5py.h5s.ALL, arr, mtype=tid)
    raw = arr.tobytes()
    return {"dtype": "raw", "shape": list(arr.shape), "len": len(raw), "crc": zlib.crc32(raw)}


def opaque(tid):
    return tid.get_class() == h5py.h5t.OPAQUE


def dump(path):
    res = {"file": path, "objects": []}
    try:
        f = h5py.File(path, "r")
    except Exception as e:  # noqa: BLE001
        res["error"] = repr(e)
        return res
    objs = res["objects"]

    def attrs(name, obj):
        try:
            names = list(obj.attrs.keys())
        except Exception as e:  # noqa: BLE001
            objs.append({"path": name, "attr": None, "error": repr(e)})
            return
        for a in names:
            rec = {"path": name, "attr": a}
            try:
                aid = obj.attrs.get_id(a)
                if opaque(aid.get_type()):
                    rec.update(raw_read(aid, True))
                else:
                    v = obj.attrs[a]
                    rec.update(describe(v, aid.dtype, aid.shape))
            except Exception as e:  # noqa: BLE001
                rec["error"] = repr(e)
            objs.append(rec)

    def visit(name, obj):
        full = "/" + name
        if isinstance(obj, h5py.Dataset):
            rec = {"path": full, "attr": None}
            try:
                if obj.shape is None:
                    rec["null"] = True
                elif obj.size * obj.dtype.itemsize > (1 << 28):
                    rec["skip"] = "larger than 256 MiB"
                elif opaque(obj.id.get_type()):
                    rec.update(raw_read(obj.id, False))
                else:
                    rec.update(describe(obj[()], obj.dtype, obj.shape))
            except Exception as e:  # noqa: BLE001
                rec["error"] = repr(e)
            objs.append(rec)
        attrs(full, obj)

    try:
        attrs("/", f)
        f.visititems(visit)
    except Exception as e:  # noqa: BLE001
        res["error"] = repr(e)
    return res


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(json.dumps(dump(p)), flush=True)
