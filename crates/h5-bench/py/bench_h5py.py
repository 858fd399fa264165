"""The h5py side of `cargo xtask bench read` and `cargo xtask bench write`.

The Rust side is crates/h5-bench/src/read.rs and write.rs; both sides make the same data
(crates/h5-bench/src/data.rs has the same formulas) and print one line per timed call:

    NAME<TAB>BYTES<TAB>SECONDS<TAB>DIGEST

where SECONDS is the time.perf_counter() time of the operation and DIGEST (16 hex digits)
is the digest of what it produced: the data read, or the data of the written file as read
back (untimed, after the timed calls). Usage:

    bench_h5py.py setup DIR MIB                     make the input files of the read group
    bench_h5py.py read DIR MIB REPS NAME|all [DUMP]
    bench_h5py.py write DIR MIB REPS NAME|all [DUMP]
    bench_h5py.py readback DIR MIB NAME FILE        digest of a written file, read by h5py
"""

import os
import sys
import time

import h5py
import hdf5plugin
import numpy as np

# Fixed counts (the sizes); only the big datasets follow MIB.
OBJECTS = 10_000
ATTR_GROUPS = 1_000
ATTRS_PER_GROUP = 100
RECORDS = 1_000_000
RECORDS_PER_CHUNK = 1_000
CHUNK = 131_072  # f64 elements per chunk: 1 MiB
DEFLATE_LEVEL = 4
SLAB_SIDE = 8192  # the hyperslab benchmark's f32 dataset: SLAB_SIDE^2 in SLAB_CHUNK^2 chunks
SLAB_CHUNK = 64
SLAB_SELECTION = ((4000, 100), (3000, 100))  # (start, count) per dimension
ROOT_ATTRS = 100
READ_ATTR = "a042"

MASK = (1 << 64) - 1
K0 = 0x9E3779B97F4A7C15
K1 = 0xC2B2AE3D27D4EB4F

# The plugin-filter rows: file/benchmark suffix -> h5py compression arguments (1 MiB chunks).
PLUGINS = {
    "zstd": lambda: hdf5plugin.Zstd(clevel=3),
    "lz4": lambda: hdf5plugin.LZ4(),
    "bitshuffle_lz4": lambda: hdf5plugin.Bitshuffle(cname="lz4"),
    "blosc_lz4": lambda: hdf5plugin.Blosc(cname="lz4", clevel=5, shuffle=hdf5plugin.Blosc.SHUFFLE),
    "blosc2_lz4": lambda: hdf5plugin.Blosc2(cname="lz4", clevel=5, filters=hdf5plugin.Blosc2.SHUFFLE),
}

REC = np.dtype([("a", "<i4"), ("b", "<f8"), ("c", "<i2"), ("d", "<f4"), ("e", "<i8")])


def series(start, count):
    """f64 element i: i/2 plus a fraction of 16 pseudo-random bits (a 64-bit mix of i)."""
    i = np.arange(start, start + count, dtype=np.uint64)
    z = i * np.uint64(0x9E3779B97F4A7C15)
    z ^= z >> np.uint64(32)
    z *= np.uint64(0xD6E8FEB86659FD93)
    z ^= z >> np.uint64(32)
    return i.astype(np.float64) * 0.5 + (z >> np.uint64(48)).astype(np.float64) * (1.0 / 65536.0)


def records(start, count):
    """Compound record k: a = k, b = k/4, c = k mod 32768, d = (k mod 1000)/2, e = 3k."""
    k = np.arange(start, start + count, dtype=np.int64)
    r = np.empty(count, dtype=REC)
    r["a"] = k.astype(np.int32)
    r["b"] = k.astype(np.float64) * 0.25
    r["c"] = (k % 32768).astype(np.int16)
    r["d"] = (k % 1000).astype(np.float32) * np.float32(0.5)
    r["e"] = k * 3
    return r


def digest(data):
    """The digest of a byte string (see data.rs): the length times K0 plus, over the
    little-endian 64-bit words w_i (a short tail zero-padded), (w_i ^ (w_i >> 31)) times
    ((2i + 1) K1), modulo 2^64."""
    b = memoryview(data).cast("B")
    n = len(b)
    h = (n * K0) & MASK
    whole = n // 8
    words = np.frombuffer(b, dtype="<u8", count=whole)
    step = 1 << 20
    for o in range(0, whole, step):
        w = words[o : o + step]
        idx = np.arange(o, o + len(w), dtype=np.uint64)
        m = (idx * np.uint64(2) + np.uint64(1)) * np.uint64(K1)
        x = w ^ (w >> np.uint64(31))
        h = (h + int(np.sum(x * m, dtype=np.uint64))) & MASK
    if n % 8:
        t = int.from_bytes(bytes(b[whole * 8 :]) + bytes(8 - n % 8), "little")
        h = (h + ((t ^ (t >> 31)) * (((2 * whole + 1) * K1) & MASK))) & MASK
    return h


def f64_count(mib):
    return (mib << 20) // 8


def record_count(mib):
    return (mib << 20) // REC.itemsize


def setup(d, mib):
    with h5py.File(os.path.join(d, "list.h5"), "w") as f:
        for k in range(OBJECTS):
            if k % 2:
                f.create_dataset("d%05d" % k, data=np.int32(k))
            else:
                f.create_group("g%05d" % k)
    x = series(0, f64_count(mib))
    with h5py.File(os.path.join(d, "contiguous.h5"), "w") as f:
        f.create_dataset("data", data=x)
    with h5py.File(os.path.join(d, "deflate.h5"), "w") as f:
        f.create_dataset(
            "data", data=x, chunks=(CHUNK,), shuffle=True,
            compression="gzip", compression_opts=DEFLATE_LEVEL,
        )
    for k, comp in PLUGINS.items():
        with h5py.File(os.path.join(d, k + ".h5"), "w") as f:
            f.create_dataset("data", data=x, chunks=(CHUNK,), **comp())
    del x
    with h5py.File(os.path.join(d, "compound.h5"), "w") as f:
        f.create_dataset("records", data=records(0, record_count(mib)))
    with h5py.File(os.path.join(d, "attrs.h5"), "w") as f:
        for k in range(ROOT_ATTRS):
            f.attrs["a%03d" % k] = np.float64(attr_value(0, k))
    with h5py.File(os.path.join(d, "slab.h5"), "w") as f:
        ds = f.create_dataset(
            "data", shape=(SLAB_SIDE, SLAB_SIDE), dtype="<f4",
            chunks=(SLAB_CHUNK, SLAB_CHUNK), compression="gzip", compression_opts=DEFLATE_LEVEL,
        )
        rows = 512
        for r in range(0, SLAB_SIDE, rows):
            ds[r : r + rows] = series(r * SLAB_SIDE, rows * SLAB_SIDE).astype(np.float32).reshape(rows, SLAB_SIDE)


class Clock:
    """Time one call and the peak resident memory during it (Linux: the high-water mark is
    reset through /proc/self/clear_refs and read from VmHWM); as data.rs's Clock."""

    def __init__(self):
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            self.peak_known = True
        except OSError:
            self.peak_known = False
        self.t0 = time.perf_counter()

    def stop(self):
        t = time.perf_counter() - self.t0
        peak = None
        if self.peak_known:
            with open("/proc/self/status") as f:
                for l in f:
                    if l.startswith("VmHWM:"):
                        peak = int(l.split()[1])
        return t, peak


# ---- read benchmarks: each returns (bytes, (seconds, peak KiB), output)

def read_list(d, mib):
    c = Clock()
    with h5py.File(os.path.join(d, "list.h5"), "r") as f:
        names = list(f)
    t = c.stop()
    return 0, t, "\n".join(sorted(names)).encode()


def read_attr(d, mib):
    c = Clock()
    with h5py.File(os.path.join(d, "attrs.h5"), "r") as f:
        v = f.attrs[READ_ATTR]
    t = c.stop()
    return 0, t, np.float64(v).tobytes()


def read_data(name):
    def run(d, mib):
        c = Clock()
        with h5py.File(os.path.join(d, name), "r") as f:
            x = f["data"][...]
        return mib << 20, c.stop(), x
    return run


# The touched buffer of the read_direct and pread rows: allocated and written before the
# clock starts, kept from one call of those rows to the next (they run last, so it is never
# resident during another row; as read.rs's `touched`).
TOUCHED = {}


def touched(mib):
    n = f64_count(mib)
    buf = TOUCHED.get(n)
    if buf is None:
        buf = TOUCHED[n] = np.ones(n, dtype="<f8")
    return buf


def read_direct(d, mib):
    buf = touched(mib)
    c = Clock()
    with h5py.File(os.path.join(d, "contiguous.h5"), "r") as f:
        f["data"].read_direct(buf)
    return mib << 20, c.stop(), buf


def read_pread(d, mib):
    """The limit: one pread of the dataset's bytes into touched memory."""
    path = os.path.join(d, "contiguous.h5")
    with h5py.File(path, "r") as f:
        at = f["data"].id.get_offset()
    buf = touched(mib)
    view = memoryview(buf).cast("B")
    c = Clock()
    fd = os.open(path, os.O_RDONLY)
    try:
        got = 0
        while got < len(view):
            n = os.preadv(fd, [view[got:]], at + got)
            if n <= 0:
                raise SystemExit("%s: short read" % path)
            got += n
    finally:
        os.close(fd)
    return mib << 20, c.stop(), buf


def read_field(d, mib):
    c = Clock()
    with h5py.File(os.path.join(d, "compound.h5"), "r") as f:
        x = f["records"]["b"]
    return mib << 20, c.stop(), x


def read_slab(d, mib):
    (r0, nr), (c0, nc) = SLAB_SELECTION
    c = Clock()
    with h5py.File(os.path.join(d, "slab.h5"), "r") as f:
        x = f["data"][r0 : r0 + nr, c0 : c0 + nc]
    return nr * nc * 4, c.stop(), np.ascontiguousarray(x)


READS = [
    ("open_list", read_list),
    ("open_attr", read_attr),
    ("contiguous", read_data("contiguous.h5")),
    ("chunked_deflate", read_data("deflate.h5")),
    ("compound_field", read_field),
    ("hyperslab", read_slab),
] + [("chunked_" + k, read_data(k + ".h5")) for k in PLUGINS] + [
    # Last, as in read.rs (the touched buffer's rows: see there).
    ("contiguous_into", read_direct),
    ("contiguous_pread", read_pread),
]


# ---- write benchmarks: each returns (bytes, seconds); readback gives the output

def write_data(chunked, plugin=None):
    def run(path, mib, inputs):
        x = inputs.get("x")
        if x is None:
            x = inputs["x"] = series(0, f64_count(mib))
        t0 = time.perf_counter()
        with h5py.File(path, "w") as f:
            if plugin:
                f.create_dataset("data", data=x, chunks=(CHUNK,), **PLUGINS[plugin]())
            elif chunked:
                f.create_dataset(
                    "data", data=x, chunks=(CHUNK,), shuffle=True,
                    compression="gzip", compression_opts=DEFLATE_LEVEL,
                )
            else:
                f.create_dataset("data", data=x)
        return mib << 20, time.perf_counter() - t0
    return run


def attr_value(g, k):
    return float(g * ATTRS_PER_GROUP + k) * 0.5


def write_attrs(path, mib, inputs):
    t0 = time.perf_counter()
    with h5py.File(path, "w") as f:
        for g in range(ATTR_GROUPS):
            a = f.create_group("g%04d" % g).attrs
            for k in range(ATTRS_PER_GROUP):
                a["a%03d" % k] = attr_value(g, k)
    return 0, time.perf_counter() - t0


def write_append(path, mib, inputs):
    r = inputs.get("r")
    if r is None:
        r = inputs["r"] = records(0, RECORDS)
    c = RECORDS_PER_CHUNK
    t0 = time.perf_counter()
    with h5py.File(path, "w") as f:
        d = f.create_dataset("records", shape=(0,), maxshape=(None,), chunks=(c,), dtype=REC)
        for k in range(RECORDS // c):
            d.resize(((k + 1) * c,))
            d[k * c : (k + 1) * c] = r[k * c : (k + 1) * c]
    return RECORDS * REC.itemsize, time.perf_counter() - t0


def readback(name, path):
    """What a written file holds, as the bytes the digest is taken of."""
    with h5py.File(path, "r") as f:
        if name in ("contiguous", "chunked_deflate") or name[len("chunked_"):] in PLUGINS:
            return f["data"][...]
        if name == "attributes":
            out = bytearray()
            for g in sorted(f):
                attrs = f[g].attrs
                for a in sorted(attrs):
                    out += ("%s/%s=" % (g, a)).encode()
                    out += np.float64(attrs[a]).tobytes()
            return bytes(out)
        if name == "append_records":
            return f["records"][...].tobytes()
    raise SystemExit("unknown write benchmark %r" % name)


WRITES = [
    ("contiguous", write_data(False)),
    ("chunked_deflate", write_data(True)),
    ("attributes", write_attrs),
    ("append_records", write_append),
] + [("chunked_" + k, write_data(True, k)) for k in PLUGINS]


def line(name, nbytes, seconds, h, peak=None):
    tail = "" if peak is None else "\t%d" % peak
    print("%s\t%d\t%.9f\t%016x%s" % (name, nbytes, seconds, h, tail), flush=True)


def dump_to(path, data):
    with open(path, "wb") as f:
        f.write(memoryview(data).cast("B"))


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    cmd, d = argv[1], argv[2]
    if cmd == "setup":
        setup(d, int(argv[3]))
        return
    if cmd == "readback":
        mib, name, path = int(argv[3]), argv[4], argv[5]
        print("%016x" % digest(readback(name, path)))
        return
    mib, reps, only = int(argv[3]), int(argv[4]), argv[5]
    dump = argv[6] if len(argv) > 6 else None
    print("# reference h5py %s, libhdf5 %s" % (h5py.__version__, h5py.version.hdf5_version))
    table = READS if cmd == "read" else WRITES if cmd == "write" else None
    if table is None:
        raise SystemExit("unknown command %r" % cmd)
    found = False
    inputs = {}
    for name, fn in table:
        if only not in ("all", name):
            continue
        found = True
        times = []
        if cmd == "read":
            for _ in range(reps):
                nbytes, t, out = fn(d, mib)
                times.append(t)
        else:
            path = os.path.join(d, "h5py-%s.h5" % name)
            for _ in range(reps):
                nbytes, t = fn(path, mib, inputs)
                times.append(t)
            out = readback(name, path)
        h = digest(out)
        for t in times:
            if isinstance(t, tuple):
                line(name, nbytes, t[0], h, t[1])
            else:
                line(name, nbytes, t, h)
        if dump:
            dump_to(dump, out)
        del out
    if not found:
        raise SystemExit("unknown benchmark %r" % only)


if __name__ == "__main__":
    main(sys.argv)
