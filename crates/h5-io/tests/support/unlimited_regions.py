"""Writes FILE with revised region references (HDF5 2.x H5R_ref_t) to unlimited hyperslabs,
through the HDF5 2.0 library h5py bundles (h5py itself makes only the old references):
/d is 20 ints (0..19, extendible), /m 6x8 ints (0..47); /refs holds references to
  0: /d, start 1, stride 5, count unlimited, block 2
  1: /d, start 3, block unlimited
  2: /m, start (1,2), stride (2,3), count (2, unlimited), block (1,2)
  3: /m, start (0,0), count (2,2) (limited)
Then prints, as the library reads them back (H5Ropen_region, H5Sget_regular_hyperslab),
one line per reference: start, stride, count, block, with U for H5S_UNLIMITED.
Usage: python3 unlimited_regions.py FILE"""
import sys, ctypes, glob, os, h5py, numpy as np
lib = ctypes.CDLL(glob.glob(os.path.join(os.path.dirname(h5py.__file__), os.pardir, "h5py.libs", "libhdf5-*.so*"))[0])
hid = ctypes.c_int64
hsize = ctypes.c_uint64
lib.H5open()
for name in ["H5Fcreate","H5Screate_simple","H5Dcreate2","H5Dopen2"]:
    getattr(lib,name).restype = hid
lib.H5Fcreate.argtypes=[ctypes.c_char_p, ctypes.c_uint, hid, hid]
lib.H5Screate_simple.argtypes=[ctypes.c_int, ctypes.POINTER(hsize), ctypes.POINTER(hsize)]
lib.H5Dcreate2.argtypes=[hid, ctypes.c_char_p, hid, hid, hid, hid, hid]
lib.H5Sselect_hyperslab.argtypes=[hid, ctypes.c_int, ctypes.POINTER(hsize), ctypes.POINTER(hsize), ctypes.POINTER(hsize), ctypes.POINTER(hsize)]
lib.H5Rcreate_region.argtypes=[hid, ctypes.c_char_p, hid, hid, ctypes.c_void_p]
lib.H5Dwrite.argtypes=[hid, hid, hid, hid, hid, ctypes.c_void_p]
lib.H5Dget_space.restype=hid; lib.H5Dget_space.argtypes=[hid]
lib.H5Pcreate.restype=hid; lib.H5Pcreate.argtypes=[hid]
lib.H5Pset_chunk.argtypes=[hid, ctypes.c_int, ctypes.POINTER(hsize)]
for x in ["H5Dclose","H5Sclose","H5Fclose","H5Pclose"]: getattr(lib,x).argtypes=[hid]
lib.H5Rdestroy.argtypes=[ctypes.c_void_p]
g = lambda n: hid.in_dll(lib, n).value
T_INT=g("H5T_NATIVE_INT_g"); T_REF=g("H5T_STD_REF_g"); P_DCREATE=g("H5P_CLS_DATASET_CREATE_ID_g")
U = 0xffffffffffffffff
f = lib.H5Fcreate(sys.argv[1].encode(), 2, 0, 0)
def arr(*v): return (hsize*len(v))(*v)
# /d: 20 ints, extendible; /m: 6x8 ints
pl = lib.H5Pcreate(P_DCREATE); lib.H5Pset_chunk(pl, 1, arr(4))
s = lib.H5Screate_simple(1, arr(20), arr(U))
d = lib.H5Dcreate2(f, b"d", T_INT, s, 0, pl, 0)
buf = np.arange(20, dtype=np.int32); lib.H5Dwrite(d, T_INT, 0, 0, 0, buf.ctypes.data)
s2 = lib.H5Screate_simple(2, arr(6, 8), None)
m = lib.H5Dcreate2(f, b"m", T_INT, s2, 0, 0, 0)
buf2 = np.arange(48, dtype=np.int32); lib.H5Dwrite(m, T_INT, 0, 0, 0, buf2.ctypes.data)
refs = (ctypes.c_uint8 * (64*4))()
sp = lib.H5Dget_space(d)
lib.H5Sselect_hyperslab(sp, 0, arr(1), arr(5), arr(U), arr(2))     # count unlimited
lib.H5Rcreate_region(f, b"d", sp, 0, ctypes.byref(refs, 0))
sp = lib.H5Dget_space(d)
lib.H5Sselect_hyperslab(sp, 0, arr(3), arr(1), arr(1), arr(U))     # block unlimited
lib.H5Rcreate_region(f, b"d", sp, 0, ctypes.byref(refs, 64))
sp = lib.H5Dget_space(m)
lib.H5Sselect_hyperslab(sp, 0, arr(1, 2), arr(2, 3), arr(2, U), arr(1, 2))  # 2-D, count unlimited in dim 1
lib.H5Rcreate_region(f, b"m", sp, 0, ctypes.byref(refs, 128))
sp = lib.H5Dget_space(m)
lib.H5Sselect_hyperslab(sp, 0, arr(0, 0), arr(1, 1), arr(2, 2), arr(1, 1))  # a limited one
lib.H5Rcreate_region(f, b"m", sp, 0, ctypes.byref(refs, 192))
rs = lib.H5Screate_simple(1, arr(4), None)
r = lib.H5Dcreate2(f, b"refs", T_REF, rs, 0, 0, 0)
assert lib.H5Dwrite(r, T_REF, 0, 0, 0, refs) >= 0
for i in range(4): lib.H5Rdestroy(ctypes.byref(refs, 64*i))
lib.H5Dclose(r); lib.H5Dclose(d); lib.H5Dclose(m); lib.H5Fclose(f)

# Read back with the library.
lib.H5Fopen.restype = hid; lib.H5Fopen.argtypes = [ctypes.c_char_p, ctypes.c_uint, hid]
lib.H5Dopen2.argtypes = [hid, ctypes.c_char_p, hid]
lib.H5Dread.argtypes = [hid, hid, hid, hid, hid, ctypes.c_void_p]
lib.H5Ropen_region.restype = hid; lib.H5Ropen_region.argtypes = [ctypes.c_void_p, hid, hid]
lib.H5Sget_regular_hyperslab.argtypes = [hid] + [ctypes.POINTER(hsize)] * 4
lib.H5Sget_simple_extent_ndims.argtypes = [hid]
f = lib.H5Fopen(sys.argv[1].encode(), 0, 0)
r = lib.H5Dopen2(f, b"refs", 0)
back = (ctypes.c_uint8 * (64*4))()
assert lib.H5Dread(r, T_REF, 0, 0, 0, back) >= 0
for i in range(4):
    sp = lib.H5Ropen_region(ctypes.byref(back, 64*i), 0, 0)
    assert sp >= 0
    n = lib.H5Sget_simple_extent_ndims(sp)
    v = [(hsize*n)() for _ in range(4)]
    assert lib.H5Sget_regular_hyperslab(sp, *v) >= 0
    print(" ".join(",".join("U" if x == U else str(x) for x in a) for a in v))
    lib.H5Sclose(sp)
    lib.H5Rdestroy(ctypes.byref(back, 64*i))
lib.H5Dclose(r); lib.H5Fclose(f)
