"""netcdf-c itself (the library bundled with netCDF4-python, called through ctypes): the
oracle of tests/netcdf_c.rs.

Usage: python3 ncc_oracle.py FILE [LIBNETCDF]   (stdin: requests, one a line; fields
tab-separated). Without LIBNETCDF, the library is found beside netCDF4's package;
"python3 ncc_oracle.py --lib" prints its path.

"get GROUP VAR FORM START COUNT STRIDE IMAP TYPE": FORM one of var, var1, vara, vars, varm
(nc_get_FORM_TYPE); START.. comma-separated ("-" when unused; "" is written "."); TYPE one of
schar uchar short ushort int uint longlong ulonglong float double text string (text:
each character in hex; string: each string in hex after an "s", "none" for NULL). Prints
"STATUS<TAB>values" (values in memory order, "x" where a mapped read does not reach).
"model GROUP": the group's dimensions (name:len:unlimited, by nc_inq_dimids without
parents), then its variables (name(dim,dim) type), then its attributes (name=values), then
its subgroups, then its user-defined types, one field each, tab-separated after a "|" per
section.
"""

import ctypes as C
import glob
import os
import sys



def find_lib():
    import netCDF4

    here = os.path.dirname(netCDF4.__file__)
    libs = sorted(glob.glob(os.path.join(here, "..", "netcdf4.libs", "libnetcdf*")))
    libs += sorted(glob.glob(os.path.join(here, "..", "netCDF4.libs", "libnetcdf*")))
    libs += sorted(glob.glob(os.path.join(here, ".dylibs", "libnetcdf*")))
    return os.path.realpath(libs[0])


if sys.argv[1] == "--lib":
    print(find_lib())
    print(sys.executable)
    sys.exit(0)
nc = C.CDLL(sys.argv[2] if len(sys.argv) > 2 else find_lib())

TYPES = {
    "schar": C.c_byte, "uchar": C.c_ubyte, "short": C.c_short, "ushort": C.c_ushort,
    "int": C.c_int, "uint": C.c_uint, "longlong": C.c_longlong, "ulonglong": C.c_ulonglong,
    "float": C.c_float, "double": C.c_double, "text": C.c_char, "string": C.c_char_p,
}
NC_TYPE_NAMES = {1: "byte", 2: "char", 3: "short", 4: "int", 5: "float", 6: "double",
                 7: "ubyte", 8: "ushort", 9: "uint", 10: "int64", 11: "uint64", 12: "string"}

ncid = C.c_int()
st = nc.nc_open(sys.argv[1].encode(), 0, C.byref(ncid))
if st:
    print(f"open failed {st}", file=sys.stderr)
    sys.exit(1)


def group(path):
    if path in ("/", ""):
        return ncid.value
    g = C.c_int()
    st = nc.nc_inq_grp_full_ncid(ncid, path.encode(), C.byref(g))
    if st:
        raise SystemExit(f"no group {path}: {st}")
    return g.value


def ints(s):
    if s == "-":
        return None
    if s == ".":
        return []
    return [int(x) for x in s.split(",")]


def fmt(v, t):
    if t == "text":
        return v.hex()
    if t == "string":
        return "none" if v is None else "s" + v.hex()
    if t in ("float", "double"):
        return repr(float(v))
    return str(int(v))


def name_of(kind, gid, i):
    buf = C.create_string_buffer(1024)
    getattr(nc, kind)(gid, i, buf)
    return buf.value.decode()


def att_text(gid, varid, name):
    t = C.c_int()
    n = C.c_size_t()
    nc.nc_inq_att(gid, varid, name.encode(), C.byref(t), C.byref(n))
    t, n = t.value, n.value
    if t == 2:
        buf = C.create_string_buffer(n + 1)
        nc.nc_get_att_text(gid, varid, name.encode(), buf)
        return "char:" + buf.raw[:n].hex()
    if t == 12:
        arr = (C.c_char_p * n)()
        nc.nc_get_att_string(gid, varid, name.encode(), arr)
        out = "string:" + ",".join(arr[i].decode().encode().hex() for i in range(n))
        nc.nc_free_string(C.c_size_t(n), arr)
        return out
    if t in (5, 6):
        arr = (C.c_double * max(n, 1))()
        nc.nc_get_att_double(gid, varid, name.encode(), arr)
        return NC_TYPE_NAMES[t] + ":" + ",".join(repr(float(arr[i])) for i in range(n))
    if t in (1, 3, 4, 7, 8, 9, 10, 11):
        ct = C.c_ulonglong if t in (7, 8, 9, 11) else C.c_longlong
        fn = nc.nc_get_att_ulonglong if t in (7, 8, 9, 11) else nc.nc_get_att_longlong
        arr = (ct * max(n, 1))()
        fn(gid, varid, name.encode(), arr)
        return NC_TYPE_NAMES[t] + ":" + ",".join(str(arr[i]) for i in range(n))
    return f"user{t}:{n}"


def atts(gid, varid, natts):
    out = []
    for i in range(natts):
        buf = C.create_string_buffer(1024)
        nc.nc_inq_attname(gid, varid, i, buf)
        name = buf.value.decode()
        out.append(name + "=" + att_text(gid, varid, name))
    return out


def model(path):
    gid = group(path)
    nd = C.c_int()
    ids = (C.c_int * 1024)()
    nc.nc_inq_dimids(gid, C.byref(nd), ids, 0)
    unl = (C.c_int * 1024)()
    nu = C.c_int()
    nc.nc_inq_unlimdims(gid, C.byref(nu), unl)
    unlimited = {unl[i] for i in range(nu.value)}
    dims = []
    for i in range(nd.value):
        buf = C.create_string_buffer(1024)
        ln = C.c_size_t()
        nc.nc_inq_dim(gid, ids[i], buf, C.byref(ln))
        dims.append(f"{buf.value.decode()}:{ln.value}:{1 if ids[i] in unlimited else 0}")
    nv = C.c_int()
    vids = (C.c_int * 4096)()
    nc.nc_inq_varids(gid, C.byref(nv), vids)
    vars_ = []
    for i in range(nv.value):
        buf = C.create_string_buffer(1024)
        t = C.c_int()
        ndims = C.c_int()
        dimids = (C.c_int * 64)()
        natts = C.c_int()
        nc.nc_inq_var(gid, vids[i], buf, C.byref(t), C.byref(ndims), dimids, C.byref(natts))
        dn = []
        for k in range(ndims.value):
            db = C.create_string_buffer(1024)
            nc.nc_inq_dimname(gid, dimids[k], db)
            dn.append(db.value.decode())
        tn = NC_TYPE_NAMES.get(t.value, "user")
        vars_.append(f"{buf.value.decode()}({','.join(dn)}) {tn} [" + ";".join(atts(gid, vids[i], natts.value)) + "]")
    ng = C.c_int()
    gatts = C.c_int()
    nc.nc_inq_natts(gid, C.byref(gatts))
    ga = atts(gid, -1, gatts.value)
    gids = (C.c_int * 1024)()
    nc.nc_inq_grps(gid, C.byref(ng), gids)
    subs = []
    for i in range(ng.value):
        buf = C.create_string_buffer(1024)
        nc.nc_inq_grpname(gids[i], buf)
        subs.append(buf.value.decode())
    nt = C.c_int()
    tids = (C.c_int * 1024)()
    nc.nc_inq_typeids(gid, C.byref(nt), tids)
    types = []
    for i in range(nt.value):
        buf = C.create_string_buffer(1024)
        nc.nc_inq_type(gid, tids[i], buf, None)
        types.append(buf.value.decode())
    return "\t".join(["|"] + dims + ["|"] + vars_ + ["|"] + ga + ["|"] + subs + ["|"] + types)


for line in sys.stdin:
    line = line.rstrip("\n")
    if not line:
        continue
    parts = line.split("\t")
    if parts[0] == "model":
        print(model(parts[1]))
        continue
    _, gpath, var, form, start, count, stride, imap, t = parts
    gid = group(gpath)
    varid = C.c_int()
    st = nc.nc_inq_varid(gid, var.encode(), C.byref(varid))
    if st:
        print(f"{st}\t")
        continue
    ndims = C.c_int()
    nc.nc_inq_varndims(gid, varid, C.byref(ndims))
    start, count, stride, imap = ints(start), ints(count), ints(stride), ints(imap)
    r = ndims.value
    ct = TYPES[t]
    S = C.c_size_t * max(r, 1)
    P = C.c_ssize_t * max(r, 1)
    if form == "var":
        dimids = (C.c_int * 64)()
        nc.nc_inq_vardimid(gid, varid, dimids)
        total = 1
        for k in range(r):
            ln = C.c_size_t()
            nc.nc_inq_dimlen(gid, dimids[k], C.byref(ln))
            total *= ln.value
        buf = (ct * max(total, 1))()
        st = getattr(nc, f"nc_get_var_{t}")(gid, varid, buf)
        reached = range(total)
        size = total
    elif form == "var1":
        buf = (ct * 1)()
        st = getattr(nc, f"nc_get_var1_{t}")(gid, varid, S(*start), buf)
        reached = range(1)
        size = 1
    else:
        total = 1
        for c in count:
            total *= c
        if form == "varm":
            size = (sum((c - 1) * m for c, m in zip(count, imap)) + 1) if total else 0
            reached = set()
            idx = [0] * r
            for _ in range(total):
                reached.add(sum(i * m for i, m in zip(idx, imap)))
                for k in reversed(range(r)):
                    idx[k] += 1
                    if idx[k] < count[k]:
                        break
                    idx[k] = 0
        else:
            size = total
            reached = range(total)
        buf = (ct * max(size, 1))()
        if form == "vara":
            st = getattr(nc, f"nc_get_vara_{t}")(gid, varid, S(*start), S(*count), buf)
        elif form == "vars":
            st = getattr(nc, f"nc_get_vars_{t}")(gid, varid, S(*start), S(*count), P(*stride), buf)
        else:
            st = getattr(nc, f"nc_get_varm_{t}")(gid, varid, S(*start), S(*count), P(*stride), P(*imap), buf)
    if st not in (0, -60):
        print(f"{st}\t")
        continue
    reached = set(reached)
    print(f"{st}\t" + ",".join(fmt(buf[i], t) if i in reached else "x" for i in range(size)))
