"""netCDF access forms and conversions computed with h5py and numpy (the oracle of
tests/netcdf.rs).

Usage: python3 netcdf_oracle.py FILE   (stdin: requests, one a line)

Request "get VAR START COUNT STRIDE IMAP TYPE": START, COUNT, STRIDE, IMAP comma-separated
("-" for IMAP: packed row-major; "all" for START: the whole variable), TYPE a numpy type.
Prints "values<TAB>oor" where values are the converted values in memory order (repr, "x" for
elements out of range or not reached by the map) and oor the positions out of range.
Request "dims VAR": prints "name:len:unlimited" for each dimension.
Request "rows VAR": the guide's ragged rows (row_index), one row a line group "|"-separated.
Request "cfrows VAR COUNTVAR": CF contiguous ragged rows.
Request "text VAR": the bytes of a char variable in hex.
"""

import sys

import h5py
import numpy as np

f = h5py.File(sys.argv[1], "r")


def ints(s):
    return [int(x) for x in s.split(",")] if s else []


def convert(values, t):
    t = np.dtype(t)
    x = values.astype(np.float64) if values.dtype.kind == "f" else values
    if t.kind in "iu":
        info = np.iinfo(t)
        xf = x.astype(np.float64) if x.dtype.kind == "f" else x
        if xf.dtype.kind == "f":
            # As netCDF's C library: the value itself against the bounds (before truncation).
            with np.errstate(invalid="ignore"):
                bad = np.isnan(xf) | np.isinf(xf) | (xf < info.min) | (xf > info.max)
        else:
            bad = (xf.astype(object) < info.min) | (xf.astype(object) > info.max)
        out = []
        for v, b in zip(xf, bad):
            out.append("x" if b else repr(int(np.trunc(v)) if xf.dtype.kind == "f" else int(v)))
        return out, [i for i, b in enumerate(bad) if b]
    if t == np.float32:
        xf = x.astype(np.float64)
        big = np.finfo(np.float32).max
        bad = np.isfinite(xf) & (np.abs(xf) > big)
        out = ["x" if b else repr(float(np.float32(v))) for v, b in zip(xf, bad)]
        return out, [i for i, b in enumerate(bad) if b]
    return [repr(float(v)) for v in x.astype(np.float64)], []


for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    if parts[0] == "get":
        _, var, start, count, stride, imap, t = parts
        data = f[var][()]
        if start == "all":
            sub = np.asarray(data).reshape(-1)
            vals, oor = convert(sub, t)
            print(",".join(vals) + "\t" + ",".join(map(str, oor)))
            continue
        start, count, stride = ints(start), ints(count), ints(stride)
        idx = [s + st * np.arange(c) for s, c, st in zip(start, count, stride)]
        sub = data[np.ix_(*idx)]
        vals, oor = convert(sub.reshape(-1), t)
        if imap != "-":
            m = ints(imap)
            extent = sum((c - 1) * mm for c, mm in zip(count, m)) + 1
            placed = ["x"] * extent
            placed_oor = []
            for seq, ix in enumerate(np.ndindex(*count)):
                pos = sum(i * mm for i, mm in zip(ix, m))
                placed[pos] = vals[seq]
                if seq in oor:
                    placed_oor.append(pos)
            vals, oor = placed, sorted(placed_oor)
        print(",".join(vals) + "\t" + ",".join(map(str, oor)))
    elif parts[0] == "dims":
        ds = f[parts[1]]
        out = []
        for k, d in enumerate(ds.dims):
            if len(d):
                name = d[0].name.rsplit("/", 1)[-1]
            elif ds.ndim == 1 and h5py.h5ds.is_scale(ds.id):
                name = ds.name.rsplit("/", 1)[-1]  # a coordinate variable: its own dimension
            else:
                name = "phony_dim_%d" % k
            out.append("%s:%d:%d" % (name, ds.shape[k], 1 if ds.maxshape[k] is None else 0))
        print(" ".join(out))
    elif parts[0] == "rows":
        ds = f[parts[1]]
        starts = list(f[ds.attrs["row_index"].decode()][()]) + [len(ds)]
        data = ds[()]
        print("|".join(",".join(str(v) for v in data[starts[i]:starts[i + 1]]) for i in range(len(starts) - 1)))
    elif parts[0] == "cfrows":
        data = f[parts[1]][()]
        counts = f[parts[2]][()]
        ends = np.cumsum(counts)
        print("|".join(",".join(repr(float(v)) for v in data[e - c:e]) for c, e in zip(counts, ends)))
    elif parts[0] == "text":
        print(f[parts[1]][()].tobytes().hex())
    sys.stdout.flush()
