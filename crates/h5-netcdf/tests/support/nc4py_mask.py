"""netCDF4-python's automatic masking and unpacking (the oracle of read_masked in
tests/netcdf_c.rs).

Usage: python3 nc4py_mask.py FILE   (stdin: "PATH MODE" a line, MODE mask, scale or both)
Prints the values in row-major order (repr of the double, "--" where masked).
"""

import sys

import netCDF4
import numpy as np

ds = netCDF4.Dataset(sys.argv[1])
for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    path, mode = parts
    v = ds[path]
    v.set_auto_mask(mode in ("mask", "both"))
    v.set_auto_scale(mode in ("scale", "both"))
    x = np.ma.asarray(v[...]).reshape(-1)
    mask = np.ma.getmaskarray(x)
    data = np.ma.getdata(x).astype(np.float64)
    print(",".join("--" if m else repr(float(d)) for d, m in zip(data, mask)))
