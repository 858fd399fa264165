"""Files for the tests of chunks decoded straight into the caller's buffer
(tests/chunk_in_place.rs), written with h5py: usage `chunk_in_place.py DIR`.

In DIR, for each of the formats "earliest" and "latest" (the chunk indexes of each),
`in_place-FORMAT.h5` holds the datasets below, and `in_place-FORMAT/NAME.bin` what h5py reads
back for dataset NAME (its bytes in C order, the file's byte order) where h5py reads it:

  d1          f64 (10000,) in 1024 chunks, shuffle + deflate + fletcher32 (a partial edge chunk)
  d1_deflate  i32 (5000,) in 512 chunks, deflate
  d1_shuffle  u16 (3000,) in 256 chunks, shuffle
  d1_fletcher i64 (3000,) in 1000 chunks, fletcher32
  d2_rows     f32 (40, 64) in (8, 64) chunks, shuffle + deflate (chunks span the rows)
  d2_tiles    f32 (40, 64) in (8, 16) chunks, shuffle + deflate
  d3          i16 (6, 10, 12) in (2, 10, 12) chunks, deflate
  masked      f32 (4096,) in 1024 chunks, shuffle + deflate; chunk 1 stored with filter mask
              0b10 (deflate skipped), chunk 2 with 0b01 (shuffle skipped), chunk 3 with 0b11
              (h5py reads the data written: checked here)
  bad_sum     f64 (2048,) in 1024 chunks, deflate + fletcher32; chunk 1's checksum is wrong
  short       f64 (2048,) in 1024 chunks, deflate; chunk 1 inflates to 4000 bytes, not 8192
  long        the same, chunk 1 inflating to 9000 bytes
  short_shuffle  u32 (2048,) in 1024 chunks, shuffle; chunk 1 stores 4000 bytes, not 4096
(h5py reads the last three without an error, whatever the chunk's buffer held; bad_sum.bin is
its first chunk, which h5py reads, while the second fails in h5py too.)
"""
import os
import sys
import zlib

import h5py
import numpy as np


def shuffle(raw, size):
    a = np.frombuffer(raw, dtype=np.uint8)
    n = len(a) // size
    return a[: n * size].reshape(n, size).T.copy().tobytes() + raw[n * size :]


def fletcher32(raw):
    # The reference library's H5_checksum_fletcher32 (16-bit words, big-endian pairs).
    data = raw
    sum1 = sum2 = 0
    n = len(data) // 2
    for i in range(n):
        sum1 = (sum1 + ((data[2 * i] << 8) | data[2 * i + 1])) % 65535
        sum2 = (sum2 + sum1) % 65535
    if len(data) % 2:
        sum1 = (sum1 + (data[-1] << 8)) % 65535
        sum2 = (sum2 + sum1) % 65535
    return ((sum2 << 16) | sum1).to_bytes(4, "little")


def make(path, libver, bins):
    os.makedirs(bins, exist_ok=True)
    x = np.arange(10000, dtype=np.float64)
    with h5py.File(path, "w", libver=libver) as f:
        f.create_dataset("d1", data=np.sin(x / 50.0) * 1000.0, chunks=(1024,),
                         shuffle=True, compression="gzip", compression_opts=4, fletcher32=True)
        f.create_dataset("d1_deflate", data=(np.arange(5000, dtype=np.int32) * 7919) % 100003,
                         chunks=(512,), compression="gzip", compression_opts=6)
        f.create_dataset("d1_shuffle", data=(np.arange(3000, dtype=np.uint16) * 31) % 4099,
                         chunks=(256,), shuffle=True)
        f.create_dataset("d1_fletcher", data=np.arange(3000, dtype=np.int64) ** 2,
                         chunks=(1000,), fletcher32=True)
        grid = np.arange(40 * 64, dtype=np.float32).reshape(40, 64) / 3.0
        f.create_dataset("d2_rows", data=grid, chunks=(8, 64), shuffle=True, compression="gzip")
        f.create_dataset("d2_tiles", data=grid, chunks=(8, 16), shuffle=True, compression="gzip")
        cube = (np.arange(6 * 10 * 12, dtype=np.int16) * 13).reshape(6, 10, 12)
        f.create_dataset("d3", data=cube, chunks=(2, 10, 12), compression="gzip")

        # Chunks stored directly with filter masks.
        m = (np.arange(4096, dtype=np.float32) * 0.25).astype("<f4")
        d = f.create_dataset("masked", shape=(4096,), dtype="<f4", chunks=(1024,),
                             shuffle=True, compression="gzip")
        d[:1024] = m[:1024]
        raw = [m[i * 1024:(i + 1) * 1024].tobytes() for i in range(4)]
        d.id.write_direct_chunk((1024,), shuffle(raw[1], 4), filter_mask=0b10)
        d.id.write_direct_chunk((2048,), zlib.compress(raw[2]), filter_mask=0b01)
        d.id.write_direct_chunk((3072,), raw[3], filter_mask=0b11)

        v = np.arange(2048, dtype="<f8")
        d = f.create_dataset("bad_sum", data=v, chunks=(1024,), compression="gzip",
                             fletcher32=True)
        c = zlib.compress(v[1024:].tobytes())
        s = bytearray(fletcher32(c))
        s[0] ^= 0xFF
        d.id.write_direct_chunk((1024,), c + bytes(s))
        # (The good chunk checks: the checksum computed here is the library's.)
        d.id.write_direct_chunk((0,), zlib.compress(v[:1024].tobytes())
                                + fletcher32(zlib.compress(v[:1024].tobytes())))

        for name, n in [("short", 4000), ("long", 9000)]:
            d = f.create_dataset(name, data=v, chunks=(1024,), compression="gzip")
            d.id.write_direct_chunk((1024,), zlib.compress(bytes(range(256)) * (n // 256)
                                                           + bytes(n % 256)))
        d = f.create_dataset("short_shuffle", data=np.arange(2048, dtype="<u4"),
                             chunks=(1024,), shuffle=True)
        d.id.write_direct_chunk((1024,), bytes(4000))

    with h5py.File(path, "r") as f:
        if not (f["masked"][()] == m).all():
            raise SystemExit("h5py reads the masked chunks differently")
        for name in ["d1", "d1_deflate", "d1_shuffle", "d1_fletcher", "d2_rows", "d2_tiles",
                     "d3", "masked"]:
            f[name][()].tofile(os.path.join(bins, name + ".bin"))
        # The good chunk of bad_sum reads; the bad one does not.
        f["bad_sum"][:1024].tofile(os.path.join(bins, "bad_sum.bin"))
        try:
            f["bad_sum"][1024:]
            raise SystemExit("h5py read the chunk with a wrong checksum")
        except OSError:
            pass


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for libver in ["earliest", "latest"]:
        make(os.path.join(out, "in_place-%s.h5" % libver), libver,
             os.path.join(out, "in_place-%s" % libver))


main()
