"""The BioC policy's missing values, computed with h5py and numpy (the oracle of tests/bioc.rs).

Usage: python3 bioc_oracle.py FILE [ATTR]   (dataset paths on stdin, one a line)

For each dataset prints one line, tab-separated:
  path, kind (int/float/str), the mask as 0/1 characters ("-" without placeholder), the
  mask when the comparison is done after rounding to float32 ("-" unless float64), and the
  values: integers in decimal, floats as the hex bits of their float64 value ("nan" for
  NaN), strings as hex of their bytes up to the first NUL.
"""

import sys

import h5py
import numpy as np

attr = sys.argv[2] if len(sys.argv) > 2 else "missing-value-placeholder"
f = h5py.File(sys.argv[1], "r")


def cstr(b):
    return bytes(b).split(b"\0")[0]


def raw_fixed(obj_id, shape, read):
    """Fixed-length strings as stored (no padding conversion: spaces stay)."""
    t = obj_id.get_type()
    arr = np.zeros(shape, dtype="S%d" % t.get_size())
    read(arr, t)
    return arr


def is_fixed_string(t):
    return isinstance(t, h5py.h5t.TypeStringID) and not t.is_variable_str()


for line in sys.stdin:
    name = line.strip()
    if not name:
        continue
    ds = f[name]
    data = ds[()]
    p = ds.attrs[attr] if attr in ds.attrs else None
    flat = np.asarray(data).reshape(-1)
    mask32 = "-"
    if ds.dtype.kind in "iu":
        kind = "int"
        mask = "-" if p is None else "".join("1" if x == p else "0" for x in flat)
        vals = [str(int(x)) for x in flat]
    elif ds.dtype.kind == "f":
        kind = "float"
        if p is None:
            mask = "-"
        elif np.isnan(p):
            mask = "".join("1" if np.isnan(x) else "0" for x in flat)
        else:
            mask = "".join("1" if x == p else "0" for x in flat)
            if ds.dtype == np.float64:
                mask32 = "".join("1" if np.float32(x) == np.float32(p) else "0" for x in flat)
        vals = ["nan" if np.isnan(x) else "%016x" % np.float64(x).view(np.uint64) for x in flat]
    else:
        kind = "str"
        if is_fixed_string(ds.id.get_type()):
            flat = raw_fixed(ds.id, ds.shape, lambda a, t: ds.id.read(h5py.h5s.ALL, h5py.h5s.ALL, a, mtype=t)).reshape(-1)
        items = [cstr(x) for x in flat]
        if p is None:
            mask = "-"
        else:
            aid = h5py.h5a.open(ds.id, attr.encode())
            if is_fixed_string(aid.get_type()):
                p = raw_fixed(aid, (), lambda a, t: aid.read(a, mtype=t))[()]
            pb = cstr(p if isinstance(p, bytes) else (p.encode() if isinstance(p, str) else p.tobytes()))
            mask = "".join("1" if x == pb else "0" for x in items)
        vals = [x.hex() for x in items]
    print("\t".join([name, kind, mask, mask32, ",".join(vals)]))
