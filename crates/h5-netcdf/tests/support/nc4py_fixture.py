"""Write the netCDF4-python fixture of tests/netcdf_c.rs (at test time).

Usage: python3 nc4py_fixture.py OUT.nc

Every external type, an unlimited dimension whose variables have unequal lengths, _FillValue
and packing attributes, a non-coordinate variable with a dimension's name (stored by netcdf-c
as _nc4_non_coord_y), groups using their parents' dimensions, a scalar, text and strings, and
user types (enum, compound, vlen, opaque) that do not read as numbers.
"""

import sys

import netCDF4
import numpy as np

out = sys.argv[1]
ds = netCDF4.Dataset(out, "w", format="NETCDF4")
ds.title = "h5-netcdf differential fixture"
ds.history = "written by nc4py_fixture.py"
ds.version = np.int32(3)
ds.createDimension("time", None)
ds.createDimension("x", 4)
ds.createDimension("y", 3)
ds.createDimension("strlen", 5)

t = ds.createVariable("time", "f8", ("time",))
t.units = "days since 2000-01-01"
t[:] = np.arange(6) * 1.5

nan, inf = np.nan, np.inf
# Doubles that probe every bound netcdf-c compares against.
dvals = [
    0.0, -0.0, 1.5, -1.5, 127.0, 127.5, 128.0, -128.0, -128.5, -129.0,
    255.0, 255.5, 256.0, -0.5, -1.0, 32767.0, 32767.5, 32768.0, -32768.0, -32769.0,
    65535.0, 65535.5, 65536.0, 2147483647.0, 2147483647.5, 2147483648.0, -2147483648.0,
    -2147483649.0, 4294967295.0, 4294967295.5, 4294967296.0, 9.223372036854775807e18,
    2.0 ** 63, -(2.0 ** 63), 2.0 ** 64, 1.8446744073709552e19 * 2, -1e19, 3.4028234663852886e38,
    3.4028235677973366e38, 1e39, -1e39, 1e300, -1e300, inf, -inf, nan, 1e-300, 5e-324,
]
n = len(dvals)
ds.createDimension("probe", n)
d = ds.createVariable("probe_double", "f8", ("probe",))
d[:] = np.array(dvals)
with np.errstate(over="ignore"):
    fvals = np.array(dvals).astype(np.float32)
f = ds.createVariable("probe_float", "f4", ("probe",))
f[:] = fvals

ints = {
    "i1": [-128, -127, -1, 0, 1, 127],
    "u1": [0, 1, 127, 128, 254, 255],
    "i2": [-32768, -129, -128, 127, 128, 255, 256, 32767],
    "u2": [0, 127, 128, 255, 256, 32767, 32768, 65535],
    "i4": [-2147483648, -32769, -32768, -129, 65535, 65536, 2147483647],
    "u4": [0, 255, 65535, 65536, 2147483647, 2147483648, 4294967295],
    "i8": [-(2**63), -(2**31) - 1, -1, 2**31, 2**32, 2**53 + 1, 2**63 - 1],
    "u8": [0, 2**31, 2**32, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1],
}
for code, vals in ints.items():
    ds.createDimension("n_" + code, len(vals))
    v = ds.createVariable("probe_" + code, code, ("n_" + code,))
    v[:] = np.array(vals, dtype=code)

# Record variables of unequal lengths along the shared unlimited dimension.
rec = {
    "rec_short": ("i2", 6, None),
    "rec_int": ("i4", 2, -999),
    "rec_float": ("f4", 4, None),
    "rec_ubyte": ("u1", 3, 7),
    "rec_byte": ("i1", 1, None),
    "rec_double": ("f8", 5, 1e20),
    "rec_int64": ("i8", 3, None),
    "rec_uint64": ("u8", 2, None),
    "rec_ushort": ("u2", 4, None),
    "rec_uint": ("u4", 3, 4000000000),
}
for name, (code, rows, fill) in rec.items():
    v = ds.createVariable(name, code, ("time", "x"), fill_value=fill)
    base = np.arange(rows * 4).reshape(rows, 4)
    v[:rows, :] = (base * 3 + 1).astype(code)

# The unlimited dimension second: shorter than the shared length along it.
late = ds.createVariable("late", "i2", ("x", "time"), fill_value=-5)
late[:, 0:2] = np.arange(8, dtype="i2").reshape(4, 2)

# Packing and masking attributes (raw values are written with auto scaling off).
p = ds.createVariable("packed", "i2", ("time", "x"), fill_value=-32767)
p.set_auto_maskandscale(False)
p.scale_factor = 0.01
p.add_offset = 20.0
p.missing_value = np.int16(-9999)
p.valid_range = np.array([-2000, 3000], dtype="i2")
p[:3, :] = np.array([[0, 100, -9999, 2500], [3001, -2001, 5, -32767], [1, 2, 3, 4]], dtype="i2")
m = ds.createVariable("masked", "f4", ("x",))
m.set_auto_maskandscale(False)
m.missing_value = np.array([1e20, -1.0], dtype="f4")
m.valid_min = np.float32(-5.0)
m[:] = np.array([1e20, -1.0, -6.0, 2.5], dtype="f4")

# A variable with a dimension's name that is not its coordinate variable.
yv = ds.createVariable("y", "f4", ("x",))
yv.long_name = "not the coordinate of y"
yv[:] = [10.0, 20.0, 30.0, 40.0]
grid = ds.createVariable("grid", "f8", ("y", "x"), zlib=True, complevel=5, shuffle=True, chunksizes=(2, 2))
grid[:] = np.arange(12.0).reshape(3, 4) / 4
grid.coordinates = "y x"

sc = ds.createVariable("scalar", "f8", ())
sc[...] = 42.25
c = ds.createVariable("chars", "S1", ("y", "strlen"))
c[:] = netCDF4.stringtochar(np.array(["alpha", "beta", "gamma"], dtype="S5"))
s = ds.createVariable("strings", str, ("y",))
s[0] = "one"
s[1] = "two"
s[2] = "\u00e9t\u00e9"

# Text and strings shorter than the unlimited dimension.
rc = ds.createVariable("rec_chars", "S1", ("time", "strlen"))
rc[0:2, :] = netCDF4.stringtochar(np.array(["ab", "cdefg"], dtype="S5"))
rs = ds.createVariable("rec_strings", str, ("time",))
rs[0] = "first"
rs[1] = ""
rs[2] = "third"

# User types.
et = ds.createEnumType(np.uint8, "cloud_t", {"clear": 0, "cumulus": 1, "stratus": 2, "missing": 255})
e = ds.createVariable("cloud", et, ("x",), fill_value=255)
e[:] = np.array([0, 1, 2, 255], dtype=np.uint8)
ct = ds.createCompoundType(np.dtype([("a", "i4"), ("b", "f8")]), "pair_t")
cv = ds.createVariable("pairs", ct, ("y",))
cv[:] = np.array([(1, 1.5), (2, 2.5), (3, 3.5)], dtype=[("a", "i4"), ("b", "f8")])
vt = ds.createVLType(np.int32, "ragged_t")
vv = ds.createVariable("ragged", vt, ("y",))
vv[0] = np.array([1], dtype="i4")
vv[1] = np.array([1, 2], dtype="i4")
vv[2] = np.array([1, 2, 3], dtype="i4")

# Groups: dimensions inherited from the parents.
g1 = ds.createGroup("g1")
g1.createDimension("z", 2)
g1.comment = "first group"
w = g1.createVariable("w", "i4", ("time", "z"))
w[:2, :] = [[1, 2], [3, 4]]
g2 = g1.createGroup("g2")
u = g2.createVariable("u", "f4", ("x", "z"), fill_value=-1.0)
u[:] = np.arange(8.0).reshape(4, 2)
zv = g2.createVariable("z", "i2", ("z",))
zv[:] = [5, 6]
ds.close()
