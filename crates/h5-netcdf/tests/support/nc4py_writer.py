"""The file tests/netcdf_write.rs also writes with h5-netcdf's writer, written here by
netCDF4-python; and the comparison of two files as netCDF4-python reads them.

Usage: python3 nc4py_writer.py write OUT.nc   (or write2: the second file)
       python3 nc4py_writer.py compare A.nc B.nc   (prints "equal" or the differences)
"""

import sys

import netCDF4
import numpy as np


def write(out):
    ds = netCDF4.Dataset(out, "w", format="NETCDF4")
    ds.title = "writer test"
    ds.version = np.int32(2)
    ds.factors = np.array([1.5, -2.25], dtype="f8")
    ds.setncattr_string("tags", ["alpha", "\u00e9t\u00e9"])
    ds.createDimension("time", None)
    ds.createDimension("y", 3)
    ds.createDimension("x", 4)
    ds.createDimension("nchar", 6)
    t = ds.createVariable("time", "f8", ("time",))
    t.units = "hours since 2020-01-01"
    t.set_auto_maskandscale(False)
    t[:] = [0.0, 6.0, 12.0]
    lat = ds.createVariable("y", "f4", ("y",))
    lat.units = "degrees_north"
    lat[:] = [10.0, 20.0, 30.0]
    temp = ds.createVariable("temp", "f4", ("time", "y", "x"), fill_value=-999.0,
                             zlib=True, complevel=4, shuffle=True, chunksizes=(1, 3, 4))
    temp.long_name = "temperature"
    temp.valid_range = np.array([-50.0, 50.0], dtype="f4")
    temp.set_auto_maskandscale(False)
    temp[0:3, :, :] = (np.arange(36, dtype="f4").reshape(3, 3, 4) - 10) / 2
    count = ds.createVariable("count", "i4", ("time", "x"))
    count.set_auto_maskandscale(False)
    count[0:2, :] = [[1, 2, 3, 4], [5, 6, 7, 8]]
    packed = ds.createVariable("packed", "i2", ("time", "y"), zlib=True)
    packed.scale_factor = 0.1
    packed.add_offset = 5.0
    packed.missing_value = np.int16(-1)
    packed.set_auto_maskandscale(False)
    packed[0:1, :] = [[10, -1, 30]]
    # A variable with a dimension's name that is not its coordinate variable.
    xv = ds.createVariable("x", "f8", ("y",))
    xv.set_auto_maskandscale(False)
    xv[:] = [0.5, 1.5, 2.5]
    for code, vals in {
        "i1": [-128, -1, 0, 127], "u1": [0, 1, 254, 255], "i2": [-32768, 0, 1, 32767],
        "u2": [0, 1, 65534, 65535], "u4": [0, 1, 4294967294, 4294967295],
        "i8": [-(2**63), -1, 0, 2**63 - 1], "u8": [0, 1, 2**64 - 2, 2**64 - 1],
    }.items():
        v = ds.createVariable("v_" + code, code, ("x",))
        v.set_auto_maskandscale(False)
        v[:] = np.array(vals, dtype=code)
    nf = ds.createVariable("nofill", "i2", ("x",), fill_value=False)
    nf.set_auto_maskandscale(False)
    nf[:] = [1, 2, 3, 4]
    name = ds.createVariable("name", "S1", ("y", "nchar"))
    name[:] = netCDF4.stringtochar(np.array(["north", "centre", "south"], dtype="S6"))
    label = ds.createVariable("label", str, ("y",))
    label[0] = "one"
    label[1] = "\u00e9t\u00e9"
    label[2] = ""
    sc = ds.createVariable("scalar", "f8", ())
    sc.comment = "a scalar"
    sc[...] = 3.25
    obs = ds.createGroup("obs")
    obs.source = "station network"
    obs.createDimension("station", 2)
    p = obs.createVariable("pressure", "f8", ("time", "station"))
    p.units = "hPa"
    p.set_auto_maskandscale(False)
    p[0:3, :] = [[1000.0, 1001.5], [999.0, 998.5], [1002.0, 1003.0]]
    detail = obs.createGroup("detail")
    flag = detail.createVariable("flag", "i1", ("station", "x"))
    flag.set_auto_maskandscale(False)
    flag[:] = np.array([[1, 0, 1, 0], [0, 1, 0, 1]], dtype="i1")
    ds.close()


def write2(out):
    """Default chunk sizes, every attribute type, explicit fill values of every type, two
    unlimited dimensions, a coordinate variable in a group, an empty text attribute, and
    variables never written."""
    ds = netCDF4.Dataset(out, "w", format="NETCDF4")
    ds.empty = ""
    for code in ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8"]:
        ds.setncattr("a_" + code, np.array([1, 2, 3], dtype=code))
    ds.createDimension("rec", None)
    ds.createDimension("rec2", None)
    ds.createDimension("n", 1000)
    ds.createDimension("m", 7)
    big = ds.createVariable("big", "f8", ("n", "m"), zlib=True, complevel=1)
    big.set_auto_maskandscale(False)
    big[:] = np.arange(7000.0).reshape(1000, 7)
    both = ds.createVariable("both", "f4", ("rec", "rec2"))
    both.set_auto_maskandscale(False)
    both[0:2, 0:3] = np.arange(6.0).reshape(2, 3)
    r1 = ds.createVariable("r1", "u2", ("rec",))
    r1.set_auto_maskandscale(False)
    r1[0:2] = [1, 2]  # no longer than "both" (netcdf-c misreads past a second unlimited dimension)
    fills = {"i1": -3, "u1": 3, "i2": -300, "u2": 300, "i4": -70000, "u4": 70000,
             "i8": -(2**40), "u8": 2**40, "f4": 1.5, "f8": -2.5}
    for code, f in fills.items():
        v = ds.createVariable("f_" + code, code, ("m",), fill_value=f)
        v.set_auto_maskandscale(False)
        v[0:2] = np.array([7, 8], dtype=code)
    # A multidimensional variable with its first dimension's name (netcdf-c: a scale).
    mm = ds.createVariable("m", "i1", ("m", "m"))
    mm.set_auto_maskandscale(False)
    mm[:] = np.arange(49, dtype="i1").reshape(7, 7)
    unwritten = ds.createVariable("unwritten", "i4", ("m",))
    unwritten.note = "never written"
    g = ds.createGroup("sub")
    g.createDimension("k", 3)
    k = g.createVariable("k", "i4", ("k",))
    k.set_auto_maskandscale(False)
    k[:] = [10, 20, 30]
    gv = g.createVariable("gv", "f8", ("rec", "k"), zlib=True)
    gv.set_auto_maskandscale(False)
    gv[0:1, :] = [[1.0, 2.0, 3.0]]
    ds.close()


def compare(a, b):
    A = netCDF4.Dataset(a)
    B = netCDF4.Dataset(b)
    diffs = []

    def walk(ga, gb, path):
        if list(ga.dimensions) != list(gb.dimensions):
            diffs.append(f"{path}: dimensions {list(ga.dimensions)} vs {list(gb.dimensions)}")
        for n in ga.dimensions:
            da, db = ga.dimensions[n], gb.dimensions.get(n)
            if db is None or len(da) != len(db) or da.isunlimited() != db.isunlimited():
                diffs.append(f"{path}: dimension {n}")
        if ga.ncattrs() != gb.ncattrs():
            diffs.append(f"{path}: attributes {ga.ncattrs()} vs {gb.ncattrs()}")
        for n in ga.ncattrs():
            if n in gb.ncattrs() and not np.array_equal(np.asarray(ga.getncattr(n)), np.asarray(gb.getncattr(n))):
                diffs.append(f"{path}: attribute {n}")
        if list(ga.variables) != list(gb.variables):
            diffs.append(f"{path}: variables {list(ga.variables)} vs {list(gb.variables)}")
        for n, va in ga.variables.items():
            vb = gb.variables.get(n)
            if vb is None:
                continue
            if va.dimensions != vb.dimensions or va.dtype != vb.dtype:
                diffs.append(f"{path}/{n}: {va.dimensions} {va.dtype} vs {vb.dimensions} {vb.dtype}")
                continue
            if va.ncattrs() != vb.ncattrs():
                diffs.append(f"{path}/{n}: attributes {va.ncattrs()} vs {vb.ncattrs()}")
            for k in va.ncattrs():
                if k in vb.ncattrs() and not np.array_equal(np.asarray(va.getncattr(k)), np.asarray(vb.getncattr(k))):
                    diffs.append(f"{path}/{n}: attribute {k}")
            if va.chunking() != vb.chunking() or va.filters() != vb.filters():
                diffs.append(f"{path}/{n}: storage {va.chunking()} {va.filters()} vs {vb.chunking()} {vb.filters()}")
            for auto in (False, True):
                va.set_auto_maskandscale(auto)
                vb.set_auto_maskandscale(auto)
                xa, xb = va[...], vb[...]
                ma = np.ma.getmaskarray(xa)
                mb = np.ma.getmaskarray(xb)
                if not np.array_equal(ma, mb):
                    diffs.append(f"{path}/{n}: mask (auto={auto})")
                    continue
                fa = np.ma.getdata(xa)[~ma]
                fb = np.ma.getdata(xb)[~mb]
                same = np.array_equal(fa, fb, equal_nan=True) if fa.dtype.kind == "f" else np.array_equal(fa, fb)
                if not same:
                    diffs.append(f"{path}/{n}: values (auto={auto}) {fa!r} vs {fb!r}")
        if list(ga.groups) != list(gb.groups):
            diffs.append(f"{path}: groups {list(ga.groups)} vs {list(gb.groups)}")
        for n in ga.groups:
            if n in gb.groups:
                walk(ga.groups[n], gb.groups[n], f"{path}/{n}")

    walk(A, B, "")
    print("equal" if not diffs else "\n".join(diffs))


if sys.argv[1] == "write":
    write(sys.argv[2])
elif sys.argv[1] == "write2":
    write2(sys.argv[2])
else:
    compare(sys.argv[2], sys.argv[3])
