"""Write values and a placeholder chosen by the Rust side as a BioC dataset with h5py.

Usage: python3 bioc_write.py FILE   (stdin: lines "name<TAB>dtype<TAB>placeholder<TAB>v1,v2,...";
dtype i4, f8 or str; floats as hex float64 bits, strings as hex bytes; placeholder "-" for none)
"""

import sys

import h5py
import numpy as np

with h5py.File(sys.argv[1], "w") as f:
    for line in sys.stdin:
        if not line.strip():
            continue
        name, dtype, placeholder, values = line.rstrip("\n").split("\t")
        items = values.split(",") if values else []
        if dtype == "i4":
            conv = lambda s: np.int32(int(s))
            data = np.array([conv(s) for s in items], dtype="i4")
            attr_dtype = "i4"
        elif dtype == "f8":
            conv = lambda s: np.array([int(s, 16)], dtype="u8").view("f8")[0]
            data = np.array([conv(s) for s in items], dtype="f8")
            attr_dtype = "f8"
        else:
            conv = lambda s: bytes.fromhex(s).decode()
            data = np.array([conv(s) for s in items], dtype=object)
            attr_dtype = h5py.string_dtype("utf-8")
        d = f.create_dataset(name, data=data, dtype=attr_dtype)
        if placeholder != "-":
            d.attrs.create("missing-value-placeholder", conv(placeholder), dtype=attr_dtype)
