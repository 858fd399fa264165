#!/usr/bin/env python3
"""Oracle for the onion tests: each revision of an onion-driver file as HDF5 2.x presents it.

Usage: onion_oracle.py FILE.h5 OUTDIR

h5py has no onion driver of its own, but the libhdf5 it bundles (2.x) has one: this script
calls that library through ctypes (H5Pset_driver_by_name "onion" with a revision number),
opens revision 0, 1, 2, ... until the library refuses one, and also the latest revision. For
each it writes the logical file image (H5Fget_file_image: the bytes the driver presents, up
to the end of allocated space) to OUTDIR/rev-N.img and prints one JSON line:
{"revision": N or "latest", "image": path, "length": bytes, "datasets": {path: values}}
where values are the datasets' elements (flattened) as h5py reads them from the image. The
last line is {"refused": N}: the first revision number the library would not open.
"""
import ctypes
import glob
import json
import os
import sys

import h5py
import h5py.h5p  # noqa: F401  (loads the bundled library)

libdir = os.path.join(os.path.dirname(os.path.dirname(h5py.__file__)), "h5py.libs")
cands = glob.glob(os.path.join(libdir, "libhdf5-*.so*")) or glob.glob(
    os.path.join(os.path.dirname(h5py.__file__), ".dylibs", "libhdf5*.dylib")
)
if not cands:
    print("no bundled libhdf5 found beside h5py", file=sys.stderr)
    sys.exit(2)
lib = ctypes.CDLL(cands[0])
hid = ctypes.c_int64
lib.H5Pcreate.restype = hid
lib.H5Pcreate.argtypes = [hid]
lib.H5Pclose.argtypes = [hid]
lib.H5Pset_driver_by_name.argtypes = [hid, ctypes.c_char_p, ctypes.c_char_p]
lib.H5Fopen.restype = hid
lib.H5Fopen.argtypes = [ctypes.c_char_p, ctypes.c_uint, hid]
lib.H5Fclose.argtypes = [hid]
lib.H5Fget_file_image.restype = ctypes.c_ssize_t
lib.H5Fget_file_image.argtypes = [hid, ctypes.c_void_p, ctypes.c_size_t]
lib.H5Eset_auto2.argtypes = [hid, ctypes.c_void_p, ctypes.c_void_p]
lib.H5Eset_auto2(0, None, None)  # H5E_DEFAULT: no error stack printing
FAPL = hid.in_dll(lib, "H5P_CLS_FILE_ACCESS_ID_g").value


def image(name, rev):
    fapl = lib.H5Pcreate(FAPL)
    conf = "{revision_num: %s; page_size: 32;}" % rev
    if lib.H5Pset_driver_by_name(fapl, b"onion", conf.encode()) < 0:
        raise SystemExit("the bundled library has no onion driver")
    fid = lib.H5Fopen(name.encode(), 0, fapl)
    lib.H5Pclose(fapl)
    if fid < 0:
        return None
    n = lib.H5Fget_file_image(fid, None, 0)
    buf = ctypes.create_string_buffer(n)
    got = lib.H5Fget_file_image(fid, buf, n)
    lib.H5Fclose(fid)
    if got != n:
        raise SystemExit("H5Fget_file_image failed")
    return buf.raw


def datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                out["/" + name] = obj[()].flatten().tolist()
        f.visititems(visit)
    return out


def emit(name, outdir, rev, label):
    img = image(name, rev)
    if img is None:
        return False
    p = os.path.join(outdir, "rev-%s.img" % label)
    with open(p, "wb") as fh:
        fh.write(img)
    rec = {"revision": label, "image": p, "length": len(img), "datasets": datasets(p)}
    print(json.dumps(rec))
    return True


name, outdir = sys.argv[1], sys.argv[2]
emit(name, outdir, "H5FD_ONION_FAPL_INFO_REVISION_ID_LATEST", "latest")
for rev in range(0, 64):
    if not emit(name, outdir, rev, rev):
        print(json.dumps({"refused": rev}))
        break
