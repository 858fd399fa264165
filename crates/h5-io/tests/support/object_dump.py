"""Print what h5py sees below one group of a file, as JSON: every link (hard links with
the object's kind, data, dtype, shape and attributes; soft and external links with their
values) and the group's attributes; with `keys`, the group's link names in h5py's order.

Usage: object_dump.py FILE GROUP [keys]
"""
import json
import sys

import h5py
import numpy as np


def val(x):
    if isinstance(x, np.ndarray):
        return val(x.tolist())
    if isinstance(x, bytes):
        return x.decode('utf-8', 'replace')
    if isinstance(x, (list, tuple)):
        return [val(v) for v in x]
    if isinstance(x, np.generic):
        return val(x.item())
    if isinstance(x, (h5py.Reference, h5py.RegionReference)):
        return 'ref' if x else 'null'
    if isinstance(x, float) and x != x:
        return 'nan'
    return x


def attrs(o):
    return {k: val(o.attrs[k]) for k in o.attrs.keys()}


def dump(g):
    out = {}
    for k in g.keys():
        link = g.get(k, getlink=True)
        if isinstance(link, h5py.SoftLink):
            out[k] = {'soft': link.path}
            continue
        if isinstance(link, h5py.ExternalLink):
            out[k] = {'ext': [link.filename, link.path]}
            continue
        o = g[k]
        if isinstance(o, h5py.Group):
            out[k] = {'group': dump(o), 'attrs': attrs(o)}
        elif isinstance(o, h5py.Dataset):
            out[k] = {'data': val(o[()]), 'dtype': str(o.dtype), 'shape': list(o.shape),
                      'attrs': attrs(o)}
        else:
            out[k] = {'type': str(o.dtype), 'attrs': attrs(o)}
    return out


f = h5py.File(sys.argv[1], 'r')
g = f[sys.argv[2]]
if len(sys.argv) > 3 and sys.argv[3] == 'keys':
    print(json.dumps(list(g.keys())))
else:
    print(json.dumps({'group': dump(g), 'attrs': attrs(g)}, sort_keys=True))
