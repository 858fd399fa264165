/* Export an HDF5 file as the line-based description that h5-cli's MemoryFile::from_text reads:
 * objects, links, attributes, datasets (with raw data in the file datatype), named datatypes,
 * vlen contents, reference targets and superblock fields. Strings are hex-encoded.
 * Usage: dump_export FILE  -> description on stdout. Used only by tests, as a judge-side loader
 * so the printer can be compared with h5dump before the Rust reader exists. */
#include <hdf5.h>
#include <hdf5_hl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>

static hid_t  g_file;
static long   g_vlen = 0;
static haddr_t *g_seen = NULL;
static size_t   g_nseen = 0, g_capseen = 0;

static void hex(const void *p, size_t n) {
    const unsigned char *b = (const unsigned char *)p;
    if (n == 0) { printf("~"); return; }
    for (size_t i = 0; i < n; i++) printf("%02x", b[i]);
}
static void hexs(const char *s) { if (!s) printf("-"); else hex(s, strlen(s)); }

static int seen(haddr_t a) {
    for (size_t i = 0; i < g_nseen; i++) if (g_seen[i] == a) return 1;
    if (g_nseen == g_capseen) { g_capseen = g_capseen ? 2 * g_capseen : 64; g_seen = realloc(g_seen, g_capseen * sizeof(haddr_t)); }
    g_seen[g_nseen++] = a;
    return 0;
}

/* The lossless DDL text of h5-types (the reference's text, with braced forms for atomic
 * layouts it cannot name and compound sizes). */
static char  *g_tb = NULL;
static size_t g_tl = 0, g_tc = 0;
static void tput(const char *fmt, ...) {
    va_list ap;
    char tmp[4096];
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (g_tl + (size_t)n + 1 > g_tc) { g_tc = (g_tl + (size_t)n + 1) * 2; g_tb = realloc(g_tb, g_tc); }
    memcpy(g_tb + g_tl, tmp, (size_t)n + 1);
    g_tl += (size_t)n;
}
static const char *ord(H5T_order_t o) { return o == H5T_ORDER_BE ? "H5T_ORDER_BE" : o == H5T_ORDER_VAX ? "H5T_ORDER_VAX" : "H5T_ORDER_LE"; }
static const char *pad(H5T_pad_t p) { return p == H5T_PAD_ONE ? "H5T_PAD_ONE" : p == H5T_PAD_BACKGROUND ? "H5T_PAD_BACKGROUND" : "H5T_PAD_ZERO"; }
static void tquote(const char *s) {
    tput("\"");
    for (; *s; s++) { if (*s == '"') tput("\\\""); else if (*s == '\\') tput("\\\\"); else tput("%c", *s); }
    tput("\"");
}
static void ttype(hid_t t) {
    H5T_class_t c = H5Tget_class(t);
    switch (c) {
        case H5T_INTEGER: case H5T_BITFIELD: {
            H5T_pad_t l, m; H5Tget_pad(t, &l, &m);
            tput("%s { SIZE %zu; ORDER %s; PRECISION %zu; OFFSET %d; LSB_PAD %s; MSB_PAD %s;", c == H5T_INTEGER ? "H5T_INTEGER" : "H5T_BITFIELD",
                 H5Tget_size(t), ord(H5Tget_order(t)), H5Tget_precision(t), H5Tget_offset(t), pad(l), pad(m));
            if (c == H5T_INTEGER) tput(" SIGN %s;", H5Tget_sign(t) == H5T_SGN_NONE ? "H5T_SGN_NONE" : "H5T_SGN_2");
            tput(" }");
        } break;
        case H5T_FLOAT: {
            H5T_pad_t l, m; H5Tget_pad(t, &l, &m);
            size_t sp, ep, es, mp, ms; H5Tget_fields(t, &sp, &ep, &es, &mp, &ms);
            H5T_norm_t nm = H5Tget_norm(t);
            tput("H5T_FLOAT { SIZE %zu; ORDER %s; PRECISION %zu; OFFSET %d; LSB_PAD %s; MSB_PAD %s; SIGN_POS %zu; EXP_POS %zu; EXP_SIZE %zu; MANT_POS %zu; MANT_SIZE %zu; EXP_BIAS %zu; NORM %s; INPAD %s; }",
                 H5Tget_size(t), ord(H5Tget_order(t)), H5Tget_precision(t), H5Tget_offset(t), pad(l), pad(m), sp, ep, es, mp, ms,
                 H5Tget_ebias(t), nm == H5T_NORM_IMPLIED ? "H5T_NORM_IMPLIED" : nm == H5T_NORM_MSBSET ? "H5T_NORM_MSBSET" : "H5T_NORM_NONE",
                 pad(H5Tget_inpad(t)));
        } break;
        case H5T_TIME:
            tput("H5T_TIME { SIZE %zu; ORDER %s; PRECISION %zu; }", H5Tget_size(t), ord(H5Tget_order(t)), H5Tget_precision(t));
            break;
        case H5T_STRING: {
            H5T_str_t p = H5Tget_strpad(t);
            if (H5Tis_variable_str(t) > 0) tput("H5T_STRING { STRSIZE H5T_VARIABLE;");
            else tput("H5T_STRING { STRSIZE %zu;", H5Tget_size(t));
            tput(" STRPAD %s; CSET %s; CTYPE H5T_C_S1; }", p == H5T_STR_NULLTERM ? "H5T_STR_NULLTERM" : p == H5T_STR_NULLPAD ? "H5T_STR_NULLPAD" : "H5T_STR_SPACEPAD",
                 H5Tget_cset(t) == H5T_CSET_UTF8 ? "H5T_CSET_UTF8" : "H5T_CSET_ASCII");
        } break;
        case H5T_OPAQUE: {
            char *tag = H5Tget_tag(t);
            tput("H5T_OPAQUE { OPQ_SIZE %zu; OPQ_TAG ", H5Tget_size(t));
            tquote(tag ? tag : "");
            tput("; }");
            H5free_memory(tag);
        } break;
        case H5T_COMPOUND: {
            int n = H5Tget_nmembers(t);
            tput("H5T_COMPOUND { SIZE %zu;", H5Tget_size(t));
            for (int i = 0; i < n; i++) {
                hid_t m = H5Tget_member_type(t, (unsigned)i);
                char *nm = H5Tget_member_name(t, (unsigned)i);
                tput(" ");
                ttype(m);
                tput(" ");
                tquote(nm);
                tput(" : %zu;", H5Tget_member_offset(t, (unsigned)i));
                H5free_memory(nm);
                H5Tclose(m);
            }
            tput(" }");
        } break;
        case H5T_ENUM: {
            hid_t sup = H5Tget_super(t);
            int n = H5Tget_nmembers(t);
            tput("H5T_ENUM { ");
            ttype(sup);
            tput(";");
            for (int i = 0; i < n; i++) {
                char *nm = H5Tget_member_name(t, (unsigned)i);
                long long v = 0; unsigned long long uv = 0;
                unsigned char raw[64] = {0};
                H5Tget_member_value(t, (unsigned)i, raw);
                if (H5Tget_sign(sup) == H5T_SGN_NONE) { H5Tconvert(sup, H5T_NATIVE_ULLONG, 1, raw, NULL, H5P_DEFAULT); memcpy(&uv, raw, 8); }
                else { H5Tconvert(sup, H5T_NATIVE_LLONG, 1, raw, NULL, H5P_DEFAULT); memcpy(&v, raw, 8); }
                tput(" ");
                tquote(nm);
                if (H5Tget_sign(sup) == H5T_SGN_NONE) tput(" %llu;", uv); else tput(" %lld;", v);
                H5free_memory(nm);
            }
            tput(" }");
            H5Tclose(sup);
        } break;
        case H5T_VLEN: {
            hid_t sup = H5Tget_super(t);
            tput("H5T_VLEN { ");
            ttype(sup);
            tput(" }");
            H5Tclose(sup);
        } break;
        case H5T_ARRAY: {
            hsize_t d[32]; int r = H5Tget_array_dims2(t, d);
            hid_t sup = H5Tget_super(t);
            tput("H5T_ARRAY { ");
            for (int i = 0; i < r; i++) tput("[%llu]", (unsigned long long)d[i]);
            tput(" ");
            ttype(sup);
            tput(" }");
            H5Tclose(sup);
        } break;
        case H5T_REFERENCE:
            if (H5Tget_size(t) == sizeof(hdset_reg_ref_t)) tput("H5T_REFERENCE { H5T_STD_REF_DSETREG }");
            else tput("H5T_REFERENCE { H5T_STD_REF_OBJECT }");
            break;
        default:
            tput("H5T_OPAQUE { OPQ_SIZE %zu; OPQ_TAG \"?\"; }", H5Tget_size(t));
    }
}

static void type_text(hid_t t) {
    g_tl = 0;
    tput("%s", "");
    ttype(t);
    hexs(g_tb);
    printf(" %zu ", H5Tget_size(t));
    if (H5Tcommitted(t) > 0) {
        H5O_info_t oi;
        H5Oget_info2(t, &oi, H5O_INFO_BASIC);
        printf("%llu", (unsigned long long)oi.addr);
    } else printf("-");
}

static void space_text(hid_t s) {
    H5S_class_t c = H5Sget_simple_extent_type(s);
    if (c == H5S_NULL) { printf("N"); return; }
    if (c == H5S_SCALAR) { printf("S"); return; }
    hsize_t d[32], m[32];
    int r = H5Sget_simple_extent_dims(s, d, m);
    printf("D:");
    for (int i = 0; i < r; i++) printf("%s%llu", i ? "," : "", (unsigned long long)d[i]);
    printf(":");
    for (int i = 0; i < r; i++) {
        if (m[i] == H5S_UNLIMITED) printf("%sU", i ? "," : "");
        else printf("%s%llu", i ? "," : "", (unsigned long long)m[i]);
    }
}

/* Replace vlen pointers by descriptors (index LE u64 + zeros) and export referenced targets. */
static void fix(hid_t t, unsigned char *p) {
    H5T_class_t c = H5Tget_class(t);
    if (c == H5T_STRING && H5Tis_variable_str(t) > 0) {
        char *s; memcpy(&s, p, sizeof s);
        long idx = g_vlen++;
        printf("V %ld ", idx);
        if (s) hex(s, strlen(s)); else printf("-");
        printf("\n");
        unsigned long long u = s ? (unsigned long long)idx : ~0ULL;
        memset(p, 0, 8); memcpy(p, &u, 8);
    } else if (c == H5T_VLEN) {
        hvl_t v; memcpy(&v, p, sizeof v);
        hid_t sup = H5Tget_super(t);
        size_t sz = H5Tget_size(sup);
        for (size_t i = 0; i < v.len; i++) fix(sup, (unsigned char *)v.p + i * sz);
        long idx = g_vlen++;
        printf("V %ld ", idx);
        if (v.p) hex(v.p, v.len * sz); else printf("-");
        printf("\n");
        unsigned long long u = v.p ? (unsigned long long)idx : ~0ULL;
        memset(p, 0, 16); memcpy(p, &u, 8);
        H5Tclose(sup);
    } else if (c == H5T_COMPOUND) {
        int n = H5Tget_nmembers(t);
        for (int i = 0; i < n; i++) {
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            fix(m, p + H5Tget_member_offset(t, (unsigned)i));
            H5Tclose(m);
        }
    } else if (c == H5T_ARRAY) {
        hid_t sup = H5Tget_super(t);
        size_t n = H5Tget_size(t) / H5Tget_size(sup);
        for (size_t i = 0; i < n; i++) fix(sup, p + i * H5Tget_size(sup));
        H5Tclose(sup);
    } else if (c == H5T_REFERENCE) {
        size_t sz = H5Tget_size(t);
        int zero = 1;
        for (size_t i = 0; i < sz; i++) if (p[i]) zero = 0;
        if (zero) return;
        if (sz == sizeof(hobj_ref_t)) {
            hid_t o;
            H5E_BEGIN_TRY { o = H5Rdereference2(g_file, H5P_DEFAULT, H5R_OBJECT, p); } H5E_END_TRY;
            if (o >= 0) {
                H5O_info_t oi; H5Oget_info2(o, &oi, H5O_INFO_BASIC);
                printf("P "); hex(p, sz); printf(" O %llu\n", (unsigned long long)oi.addr);
                H5Oclose(o);
            }
        } else if (sz == sizeof(hdset_reg_ref_t)) {
            hid_t o, s;
            H5E_BEGIN_TRY { o = H5Rdereference2(g_file, H5P_DEFAULT, H5R_DATASET_REGION, p); } H5E_END_TRY;
            if (o < 0) return;
            H5O_info_t oi; H5Oget_info2(o, &oi, H5O_INFO_BASIC);
            s = H5Rget_region(g_file, H5R_DATASET_REGION, p);
            int rank = H5Sget_simple_extent_ndims(s);
            printf("P "); hex(p, sz);
            if (H5Sget_select_type(s) == H5S_SEL_POINTS) {
                hssize_t n = H5Sget_select_elem_npoints(s);
                hsize_t *b = malloc(sizeof(hsize_t) * (size_t)(n * rank + 1));
                H5Sget_select_elem_pointlist(s, 0, (hsize_t)n, b);
                printf(" Q %llu %d %lld", (unsigned long long)oi.addr, rank, (long long)n);
                for (hssize_t i = 0; i < n * rank; i++) printf(" %llu", (unsigned long long)b[i]);
                free(b);
            } else {
                hssize_t n = H5Sget_select_hyper_nblocks(s);
                hsize_t *b = malloc(sizeof(hsize_t) * (size_t)(2 * n * rank + 1));
                H5Sget_select_hyper_blocklist(s, 0, (hsize_t)n, b);
                printf(" B %llu %d %lld", (unsigned long long)oi.addr, rank, (long long)n);
                for (hssize_t i = 0; i < 2 * n * rank; i++) printf(" %llu", (unsigned long long)b[i]);
                free(b);
            }
            printf("\n");
            H5Sclose(s);
            H5Oclose(o);
        }
    }
}

static void ulist(const hsize_t *v, int n) {
    for (int i = 0; i < n; i++) {
        if (v[i] == H5S_UNLIMITED) printf("%sU", i ? "," : "");
        else printf("%s%llu", i ? "," : "", (unsigned long long)v[i]);
    }
}
static void vds_sel(hid_t s) {
    int r = H5Sget_simple_extent_ndims(s);
    switch (H5Sget_select_type(s)) {
        case H5S_SEL_ALL: printf("A"); break;
        case H5S_SEL_HYPERSLABS:
            if (H5Sis_regular_hyperslab(s) > 0) {
                hsize_t a[32], b[32], c[32], d[32];
                H5Sget_regular_hyperslab(s, a, b, c, d);
                printf("R:"); ulist(a, r); printf(":"); ulist(b, r); printf(":"); ulist(c, r); printf(":"); ulist(d, r);
            } else {
                hssize_t n = H5Sget_select_hyper_nblocks(s);
                hsize_t *bl = malloc(sizeof(hsize_t) * (size_t)(2 * n * r + 1));
                H5Sget_select_hyper_blocklist(s, 0, (hsize_t)n, bl);
                printf("B");
                for (hssize_t i = 0; i < n; i++) { printf(":"); ulist(bl + 2 * i * r, r); printf("-"); ulist(bl + 2 * i * r + r, r); }
                free(bl);
            }
            break;
        case H5S_SEL_POINTS: {
            hssize_t n = H5Sget_select_elem_npoints(s);
            hsize_t *pt = malloc(sizeof(hsize_t) * (size_t)(n * r + 1));
            H5Sget_select_elem_pointlist(s, 0, (hsize_t)n, pt);
            printf("P");
            for (hssize_t i = 0; i < n; i++) { printf(":"); ulist(pt + i * r, r); }
            free(pt);
        } break;
        default: printf("N");
    }
}

static void data_hex(hid_t t, unsigned char *buf, hsize_t n) {
    size_t sz = H5Tget_size(t);
    for (hsize_t i = 0; i < n; i++) fix(t, buf + i * sz);
}

static herr_t attr_cb(hid_t obj, const char *name, const H5A_info_t *ai, void *op) {
    (void)ai;
    haddr_t addr = *(haddr_t *)op;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    size_t sz = H5Tget_size(t);
    unsigned char *buf = calloc((size_t)n * sz + 1, 1);
    int ok = H5Aread(a, t, buf) >= 0;
    if (ok) data_hex(t, buf, (hsize_t)n);
    printf("A %llu ", (unsigned long long)addr);
    hexs(name); printf(" ");
    type_text(t); printf(" ");
    space_text(s); printf(" ");
    if (ok) hex(buf, (size_t)n * sz); else printf("-");
    printf("\n");
    free(buf);
    H5Tclose(t); H5Sclose(s); H5Aclose(a);
    return 0;
}

static void attrs(hid_t obj, haddr_t addr, int tracked) {
    H5Aiterate2(obj, tracked ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME, H5_ITER_INC, NULL, attr_cb, &addr);
}

static void object(hid_t o);

static herr_t link_cb(hid_t g, const char *name, const H5L_info_t *li, void *op) {
    haddr_t gaddr = *(haddr_t *)op;
    printf("L %llu ", (unsigned long long)gaddr);
    hexs(name);
    if (li->type == H5L_TYPE_HARD) {
        H5O_info_t oi;
        if (H5Oget_info_by_name2(g, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0) { printf(" H 0\n"); return 0; }
        printf(" H %llu\n", (unsigned long long)oi.addr);
        hid_t o = H5Oopen(g, name, H5P_DEFAULT);
        if (o >= 0) { object(o); H5Oclose(o); }
    } else {
        char *buf = malloc(li->u.val_size + 1);
        H5Lget_val(g, name, buf, li->u.val_size, H5P_DEFAULT);
        buf[li->u.val_size] = 0;
        if (li->type == H5L_TYPE_SOFT) { printf(" S "); hexs(buf); printf("\n"); }
        else if (li->type == H5L_TYPE_EXTERNAL) {
            const char *f, *p;
            H5Lunpack_elink_val(buf, li->u.val_size, NULL, &f, &p);
            printf(" E "); hexs(f); printf(" "); hexs(p); printf("\n");
        } else printf(" U %d\n", (int)li->type);
        free(buf);
    }
    return 0;
}

static void object(hid_t o) {
    H5O_info_t oi;
    H5Oget_info2(o, &oi, H5O_INFO_BASIC);
    if (seen(oi.addr)) return;
    unsigned lt = 0, at = 0;
    hid_t pl = -1;
    char kind = '?';
    if (oi.type == H5O_TYPE_GROUP) { kind = 'g'; pl = H5Gget_create_plist(o); H5Pget_link_creation_order(pl, &lt); }
    else if (oi.type == H5O_TYPE_DATASET) { kind = 'd'; pl = H5Dget_create_plist(o); }
    else if (oi.type == H5O_TYPE_NAMED_DATATYPE) { kind = 't'; pl = H5Tget_create_plist(o); }
    if (pl >= 0) { H5Pget_attr_creation_order(pl, &at); }
    ssize_t cl = H5Oget_comment(o, NULL, 0);
    printf("O %llu %c %u %d %d ", (unsigned long long)oi.addr, kind, oi.rc, (lt & H5P_CRT_ORDER_TRACKED) != 0,
           (at & H5P_CRT_ORDER_TRACKED) != 0);
    if (cl > 0) { char *c = malloc((size_t)cl + 1); H5Oget_comment(o, c, (size_t)cl + 1); hexs(c); free(c); }
    else printf("-");
    printf("\n");
    if (kind == 'd') {
        hid_t t = H5Dget_type(o), s = H5Dget_space(o);
        if (H5Tcommitted(t) > 0) object(t);
        hssize_t n = H5Sget_simple_extent_npoints(s);
        size_t sz = H5Tget_size(t);
        /* Data beyond 64 MiB is not exported (reads of it then fail). */
        int big = (double)n * (double)sz > 64.0 * 1024 * 1024;
        unsigned char *buf = big ? NULL : calloc((size_t)n * sz + 1, 1);
        int ok = !big && (n == 0 || H5Dread(o, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
        if (ok) data_hex(t, buf, (hsize_t)n);
        H5D_layout_t lay = H5Pget_layout(pl);
        printf("D %llu ", (unsigned long long)oi.addr);
        type_text(t); printf(" ");
        space_text(s); printf(" ");
        if (lay == H5D_CHUNKED) {
            hsize_t cd[32]; int r = H5Pget_chunk(pl, 32, cd);
            printf("chunked:");
            for (int i = 0; i < r; i++) printf("%s%llu", i ? "," : "", (unsigned long long)cd[i]);
        } else if (lay == H5D_COMPACT) printf("compact");
        else if (lay == H5D_VIRTUAL) printf("virtual");
        else printf("contiguous");
        haddr_t off = H5Dget_offset(o);
        printf(" %llu ", (unsigned long long)H5Dget_storage_size(o));
        if (off == HADDR_UNDEF) printf("-"); else printf("%llu", (unsigned long long)off);
        H5D_alloc_time_t atm; H5D_fill_time_t ft; H5D_fill_value_t fv;
        H5Pget_alloc_time(pl, &atm); H5Pget_fill_time(pl, &ft); H5Pfill_value_defined(pl, &fv);
        printf(" %d %d %d ", (int)atm, (int)ft, (int)fv);
        if (fv == H5D_FILL_VALUE_USER_DEFINED) {
            unsigned char *f = calloc(sz + 1, 1);
            if (H5Pget_fill_value(pl, t, f) >= 0) { fix(t, f); hex(f, sz); } else printf("-");
            free(f);
        } else printf("-");
        printf(" ");
        if (ok) hex(buf, (size_t)n * sz); else printf("-");
        printf("\n");
        int nf = H5Pget_nfilters(pl);
        for (int i = 0; i < nf; i++) {
            unsigned flags, cd[64]; size_t ncd = 64; char nm[256]; unsigned fc;
            H5Z_filter_t id = H5Pget_filter2(pl, (unsigned)i, &flags, &ncd, cd, sizeof nm, nm, &fc);
            printf("F %llu %d ", (unsigned long long)oi.addr, (int)id);
            hexs(nm); printf(" ");
            if (ncd == 0) printf("-");
            for (size_t k = 0; k < ncd; k++) printf("%s%u", k ? "," : "", cd[k]);
            printf("\n");
        }
        if (lay == H5D_VIRTUAL) {
            size_t nm = 0;
            H5Pget_virtual_count(pl, &nm);
            for (size_t k = 0; k < nm; k++) {
                char fn[1024], dn[1024];
                hid_t vs = H5Pget_virtual_vspace(pl, k), ss = H5Pget_virtual_srcspace(pl, k);
                H5Pget_virtual_filename(pl, k, fn, sizeof fn);
                H5Pget_virtual_dsetname(pl, k, dn, sizeof dn);
                printf("M %llu ", (unsigned long long)oi.addr);
                vds_sel(vs); printf(" "); hexs(fn); printf(" "); hexs(dn); printf(" "); vds_sel(ss);
                printf("\n");
                H5Sclose(vs); H5Sclose(ss);
            }
        }
        int ne = H5Pget_external_count(pl);
        for (int i = 0; i < ne; i++) {
            char nm[1024]; off_t eo; hsize_t es;
            H5Pget_external(pl, (unsigned)i, sizeof nm, nm, &eo, &es);
            printf("X %llu ", (unsigned long long)oi.addr); hexs(nm);
            printf(" %lld %llu\n", (long long)eo, (unsigned long long)es);
        }
        free(buf);
        H5Tclose(t); H5Sclose(s);
    } else if (kind == 't') {
        printf("T %llu ", (unsigned long long)oi.addr);
        type_text(o);
        printf("\n");
    }
    attrs(o, oi.addr, (at & H5P_CRT_ORDER_TRACKED) != 0);
    if (kind == 'g') {
        haddr_t a = oi.addr;
        H5Literate(o, (lt & H5P_CRT_ORDER_TRACKED) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME, H5_ITER_INC, NULL,
                   link_cb, &a);
    }
    if (pl >= 0) H5Pclose(pl);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    g_file = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (g_file < 0) { fprintf(stderr, "cannot open %s\n", argv[1]); return 1; }
    hid_t root = H5Gopen2(g_file, "/", H5P_DEFAULT);
    H5O_info_t oi; H5Oget_info2(root, &oi, H5O_INFO_BASIC);
    printf("R %llu\n", (unsigned long long)oi.addr);
    hid_t fcpl = H5Fget_create_plist(g_file);
    unsigned sv = 0, fl = 0, st = 0, sh = 0, ik = 0, lk = 0, isk = 0;
    size_t so = 0, sl = 0;
    H5Pget_version(fcpl, &sv, &fl, &st, &sh);
    H5Pget_sizes(fcpl, &so, &sl);
    H5Pget_sym_k(fcpl, &ik, &lk);
    H5Pget_istore_k(fcpl, &isk);
    H5F_fspace_strategy_t fs; hbool_t persist; hsize_t thr, page, ub;
    H5Pget_file_space_strategy(fcpl, &fs, &persist, &thr);
    H5Pget_file_space_page_size(fcpl, &page);
    H5Pget_userblock(fcpl, &ub);
    H5F_info2_t fi; H5Fget_info2(g_file, &fi);
    printf("B %u %u %u %u %zu %zu %u %u %u %d %d %llu %llu %llu\n", fi.super.version, fi.free.version,
           st, fi.sohm.version, so, sl, ik, lk, isk, (int)fs, (int)persist, (unsigned long long)thr,
           (unsigned long long)page, (unsigned long long)ub);
    object(root);
    H5Gclose(root);
    H5Fclose(g_file);
    return 0;
}
