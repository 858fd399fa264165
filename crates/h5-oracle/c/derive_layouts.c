/* Oracle for #[derive(H5Type)]: builds compound, enum, array and string datatypes from C
 * structs with H5Tcreate + H5Tinsert(.., HOFFSET(..), ..), as a C programmer would, and prints
 * for each case:
 *
 *   case NAME
 *   dump <structural dump of the type>
 *   packed <structural dump of H5Tpack of a copy>
 *   text <H5LTdtype_to_text of the type>
 *   packed_text <H5LTdtype_to_text of the packed copy>
 *
 * The structural dump is one line; the Rust test (crates/h5/tests/derive_layouts.rs) prints
 * the derived types in the same grammar:
 *   int(size=S,order=le|be,sign=2|none,prec=P,off=O)
 *   float(size=S,order=O,prec=P,off=O,spos=.,epos=.,esize=.,mpos=.,msize=.,ebias=.,norm=.)
 *   string(size=S|var,pad=nullterm|nullpad|spacepad,cset=ascii|utf8)
 *   enum(<int>){NAME=VALUE,...}
 *   array([D1,D2,...]){<base>}
 *   vlen{<base>}
 *   ref(obj|dsetreg,size=S)
 *   compound(size=S){"NAME"@OFFSET:<type>;...}
 * Types that are not compounds are printed as they are for `packed` (H5Tpack refuses them).
 * Members are printed in index order (insertion order; H5Tpack sorts by offset). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hdf5.h"
#include "hdf5_hl.h"

#define CHECK(x)                                                                            \
    do {                                                                                    \
        if ((x) < 0) {                                                                      \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x);                  \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

static void dump(hid_t t) {
    H5T_class_t cls = H5Tget_class(t);
    size_t size = H5Tget_size(t);
    switch (cls) {
    case H5T_INTEGER: {
        printf("int(size=%zu,order=%s,sign=%s,prec=%zu,off=%d)", size,
               H5Tget_order(t) == H5T_ORDER_BE ? "be" : "le",
               H5Tget_sign(t) == H5T_SGN_2 ? "2" : "none", H5Tget_precision(t),
               H5Tget_offset(t));
        break;
    }
    case H5T_FLOAT: {
        size_t spos, epos, esize, mpos, msize;
        CHECK(H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize));
        H5T_norm_t norm = H5Tget_norm(t);
        printf("float(size=%zu,order=%s,prec=%zu,off=%d,spos=%zu,epos=%zu,esize=%zu,mpos=%zu,"
               "msize=%zu,ebias=%zu,norm=%s)",
               size, H5Tget_order(t) == H5T_ORDER_BE ? "be" : "le", H5Tget_precision(t),
               H5Tget_offset(t), spos, epos, esize, mpos, msize, H5Tget_ebias(t),
               norm == H5T_NORM_IMPLIED ? "implied" : norm == H5T_NORM_MSBSET ? "msbset" : "none");
        break;
    }
    case H5T_STRING: {
        H5T_str_t pad = H5Tget_strpad(t);
        H5T_cset_t cset = H5Tget_cset(t);
        if (H5Tis_variable_str(t) > 0)
            printf("string(size=var,");
        else
            printf("string(size=%zu,", size);
        printf("pad=%s,cset=%s)",
               pad == H5T_STR_NULLTERM ? "nullterm" : pad == H5T_STR_NULLPAD ? "nullpad" : "spacepad",
               cset == H5T_CSET_UTF8 ? "utf8" : "ascii");
        break;
    }
    case H5T_ENUM: {
        hid_t base = H5Tget_super(t);
        int n = H5Tget_nmembers(t);
        size_t bsize = H5Tget_size(base);
        int is_signed = H5Tget_sign(base) == H5T_SGN_2;
        printf("enum(");
        dump(base);
        printf("){");
        for (int i = 0; i < n; i++) {
            unsigned char raw[16] = {0};
            char *name = H5Tget_member_name(t, (unsigned)i);
            CHECK(H5Tget_member_value(t, (unsigned)i, raw));
            long long v = 0;
            switch (bsize) {
            case 1: v = is_signed ? (long long)*(int8_t *)raw : (long long)*(uint8_t *)raw; break;
            case 2: v = is_signed ? (long long)*(int16_t *)raw : (long long)*(uint16_t *)raw; break;
            case 4: v = is_signed ? (long long)*(int32_t *)raw : (long long)*(uint32_t *)raw; break;
            default: v = *(int64_t *)raw; break;
            }
            printf("%s%s=%lld", i ? "," : "", name, v);
            H5free_memory(name);
        }
        printf("}");
        H5Tclose(base);
        break;
    }
    case H5T_ARRAY: {
        hsize_t dims[H5S_MAX_RANK];
        int rank = H5Tget_array_ndims(t);
        CHECK(H5Tget_array_dims2(t, dims));
        printf("array([");
        for (int i = 0; i < rank; i++)
            printf("%s%llu", i ? "," : "", (unsigned long long)dims[i]);
        printf("]){");
        hid_t base = H5Tget_super(t);
        dump(base);
        H5Tclose(base);
        printf("}");
        break;
    }
    case H5T_VLEN: {
        hid_t base = H5Tget_super(t);
        printf("vlen{");
        dump(base);
        printf("}");
        H5Tclose(base);
        break;
    }
    case H5T_REFERENCE:
        printf("ref(%s,size=%zu)", H5Tequal(t, H5T_STD_REF_OBJ) > 0 ? "obj" : "dsetreg", size);
        break;
    case H5T_COMPOUND: {
        int n = H5Tget_nmembers(t);
        printf("compound(size=%zu){", size);
        for (int i = 0; i < n; i++) {
            char *name = H5Tget_member_name(t, (unsigned)i);
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            printf("%s\"%s\"@%zu:", i ? ";" : "", name, H5Tget_member_offset(t, (unsigned)i));
            dump(m);
            H5Tclose(m);
            H5free_memory(name);
        }
        printf("}");
        break;
    }
    default:
        printf("unsupported(class=%d)", (int)cls);
    }
}

static void text(hid_t t) {
    size_t len = 0;
    CHECK(H5LTdtype_to_text(t, NULL, H5LT_DDL, &len));
    char *s = malloc(len + 1);
    CHECK(H5LTdtype_to_text(t, s, H5LT_DDL, &len));
    /* One line: newlines are written as \n and backslashes as \\. */
    for (char *p = s; *p; p++) {
        if (*p == '\n') fputs("\\n", stdout);
        else if (*p == '\\') fputs("\\\\", stdout);
        else putchar(*p);
    }
    free(s);
}

static void emit(const char *name, hid_t t) {
    hid_t p = H5Tcopy(t);
    /* H5Tpack accepts only compounds; other types are their own packed variant. */
    if (H5Tget_class(t) == H5T_COMPOUND) CHECK(H5Tpack(p));
    printf("case %s\ndump ", name);
    dump(t);
    printf("\npacked ");
    dump(p);
    printf("\ntext ");
    text(t);
    printf("\npacked_text ");
    text(p);
    printf("\n");
    H5Tclose(p);
    H5Tclose(t);
}

static hid_t compound(size_t size) { return H5Tcreate(H5T_COMPOUND, size); }

static hid_t arr(hid_t base, unsigned rank, const hsize_t *dims) {
    hid_t a = H5Tarray_create2(base, rank, dims);
    CHECK(a);
    return a;
}

static hid_t fixed_str(size_t n, H5T_str_t pad, H5T_cset_t cset) {
    hid_t s = H5Tcopy(H5T_C_S1);
    CHECK(H5Tset_size(s, n));
    CHECK(H5Tset_strpad(s, pad));
    CHECK(H5Tset_cset(s, cset));
    return s;
}

static hid_t vlen_str(H5T_cset_t cset) {
    hid_t s = H5Tcopy(H5T_C_S1);
    CHECK(H5Tset_size(s, H5T_VARIABLE));
    CHECK(H5Tset_strpad(s, H5T_STR_NULLTERM));
    CHECK(H5Tset_cset(s, cset));
    return s;
}

static hid_t int128(int is_signed) {
    hid_t t = H5Tcopy(is_signed ? H5T_NATIVE_LLONG : H5T_NATIVE_ULLONG);
    CHECK(H5Tset_size(t, 16));
    CHECK(H5Tset_precision(t, 128));
    return t;
}

static hid_t bool_type(void) {
    hid_t t = H5Tenum_create(H5T_NATIVE_INT8);
    int8_t f = 0, tr = 1;
    CHECK(H5Tenum_insert(t, "FALSE", &f));
    CHECK(H5Tenum_insert(t, "TRUE", &tr));
    return t;
}

static hid_t color_type(void) {
    hid_t t = H5Tenum_create(H5T_NATIVE_UCHAR);
    unsigned char v;
    v = 0; CHECK(H5Tenum_insert(t, "Red", &v));
    v = 5; CHECK(H5Tenum_insert(t, "Green", &v));
    v = 6; CHECK(H5Tenum_insert(t, "Blue", &v));
    return t;
}

static hid_t level_type(void) {
    hid_t t = H5Tenum_create(H5T_NATIVE_INT);
    int v;
    v = -1; CHECK(H5Tenum_insert(t, "Low", &v));
    v = 0; CHECK(H5Tenum_insert(t, "MID", &v));
    v = 10; CHECK(H5Tenum_insert(t, "High", &v));
    return t;
}

/* ---- the C structs ---- */

typedef struct { int a; signed char b; double c; } s1_t;
typedef struct { s1_t first; unsigned short tag; s1_t pair[2]; } nested_t;
typedef struct { float m[2][3]; unsigned char bytes[5]; long long z; } arrays_t;
typedef struct __attribute__((packed)) { unsigned char a; unsigned int b; unsigned short c; double d; } packed_t;
#pragma pack(push, 2)
typedef struct { char a; int b; char c; double d; } packed2_t;
#pragma pack(pop)
typedef struct __attribute__((aligned(32))) { int a; unsigned char b; } aligned_t;
typedef struct { char x; aligned_t inner; short y; } holds_aligned_t;
typedef struct { unsigned char color; int level; int8_t flag; unsigned char colors[3]; } enums_t;
typedef struct {
    char name[8];
    char code[6];
    char *label;
    hvl_t samples;
    char *ascii;
    char tag[3];
} strings_t;
typedef struct { __int128 a; unsigned __int128 b; unsigned char c; } wide_t;
typedef struct { hobj_ref_t obj; hdset_reg_ref_t region; int x; } refs_t;
typedef struct { unsigned short x; unsigned short y[2]; } pair_u16_t;
typedef struct { float alpha; uint64_t scratch; uint8_t b; } subset_t;
typedef struct { double start; double path[3]; } track_t;
typedef struct { unsigned int id; hvl_t tags; } inner_t;
typedef struct { hvl_t items; char *name; } outer_t;

static hid_t s1_type(void) {
    hid_t t = compound(sizeof(s1_t));
    CHECK(H5Tinsert(t, "a", HOFFSET(s1_t, a), H5T_NATIVE_INT));
    CHECK(H5Tinsert(t, "b", HOFFSET(s1_t, b), H5T_NATIVE_SCHAR));
    CHECK(H5Tinsert(t, "c", HOFFSET(s1_t, c), H5T_NATIVE_DOUBLE));
    return t;
}

static hid_t aligned_type(void) {
    hid_t t = compound(sizeof(aligned_t));
    CHECK(H5Tinsert(t, "a", HOFFSET(aligned_t, a), H5T_NATIVE_INT));
    CHECK(H5Tinsert(t, "b", HOFFSET(aligned_t, b), H5T_NATIVE_UCHAR));
    return t;
}

static hid_t inner_type(void) {
    hid_t t = compound(sizeof(inner_t));
    CHECK(H5Tinsert(t, "id", HOFFSET(inner_t, id), H5T_NATIVE_UINT));
    CHECK(H5Tinsert(t, "tags", HOFFSET(inner_t, tags), H5Tvlen_create(vlen_str(H5T_CSET_UTF8))));
    return t;
}

int main(void) {
    emit("s1", s1_type());

    {
        hid_t t = compound(sizeof(nested_t));
        hsize_t two = 2;
        CHECK(H5Tinsert(t, "first", HOFFSET(nested_t, first), s1_type()));
        CHECK(H5Tinsert(t, "tag", HOFFSET(nested_t, tag), H5T_NATIVE_USHORT));
        CHECK(H5Tinsert(t, "pair", HOFFSET(nested_t, pair), arr(s1_type(), 1, &two)));
        emit("nested", t);
    }
    {
        hid_t t = compound(sizeof(arrays_t));
        hsize_t m[2] = {2, 3}, five = 5;
        CHECK(H5Tinsert(t, "m", HOFFSET(arrays_t, m), arr(H5T_NATIVE_FLOAT, 2, m)));
        CHECK(H5Tinsert(t, "bytes", HOFFSET(arrays_t, bytes), arr(H5T_NATIVE_UCHAR, 1, &five)));
        CHECK(H5Tinsert(t, "z", HOFFSET(arrays_t, z), H5T_NATIVE_LLONG));
        emit("arrays", t);
    }
    {
        hid_t t = compound(sizeof(packed_t));
        CHECK(H5Tinsert(t, "a", HOFFSET(packed_t, a), H5T_NATIVE_UCHAR));
        CHECK(H5Tinsert(t, "b", HOFFSET(packed_t, b), H5T_NATIVE_UINT));
        CHECK(H5Tinsert(t, "c", HOFFSET(packed_t, c), H5T_NATIVE_USHORT));
        CHECK(H5Tinsert(t, "d", HOFFSET(packed_t, d), H5T_NATIVE_DOUBLE));
        emit("packed", t);
    }
    {
        hid_t t = compound(sizeof(packed2_t));
        CHECK(H5Tinsert(t, "a", HOFFSET(packed2_t, a), H5T_NATIVE_SCHAR));
        CHECK(H5Tinsert(t, "b", HOFFSET(packed2_t, b), H5T_NATIVE_INT));
        CHECK(H5Tinsert(t, "c", HOFFSET(packed2_t, c), H5T_NATIVE_SCHAR));
        CHECK(H5Tinsert(t, "d", HOFFSET(packed2_t, d), H5T_NATIVE_DOUBLE));
        emit("packed2", t);
    }
    emit("aligned", aligned_type());
    {
        hid_t t = compound(sizeof(holds_aligned_t));
        CHECK(H5Tinsert(t, "x", HOFFSET(holds_aligned_t, x), H5T_NATIVE_SCHAR));
        CHECK(H5Tinsert(t, "inner", HOFFSET(holds_aligned_t, inner), aligned_type()));
        CHECK(H5Tinsert(t, "y", HOFFSET(holds_aligned_t, y), H5T_NATIVE_SHORT));
        emit("holds_aligned", t);
    }
    emit("color", color_type());
    emit("bool", bool_type());
    {
        hid_t t = compound(sizeof(enums_t));
        hsize_t three = 3;
        CHECK(H5Tinsert(t, "color", HOFFSET(enums_t, color), color_type()));
        CHECK(H5Tinsert(t, "level", HOFFSET(enums_t, level), level_type()));
        CHECK(H5Tinsert(t, "flag", HOFFSET(enums_t, flag), bool_type()));
        CHECK(H5Tinsert(t, "colors", HOFFSET(enums_t, colors), arr(color_type(), 1, &three)));
        emit("enums", t);
    }
    {
        hid_t t = compound(sizeof(strings_t));
        CHECK(H5Tinsert(t, "name", HOFFSET(strings_t, name), fixed_str(8, H5T_STR_NULLTERM, H5T_CSET_ASCII)));
        CHECK(H5Tinsert(t, "code", HOFFSET(strings_t, code), fixed_str(6, H5T_STR_SPACEPAD, H5T_CSET_UTF8)));
        CHECK(H5Tinsert(t, "label", HOFFSET(strings_t, label), vlen_str(H5T_CSET_UTF8)));
        CHECK(H5Tinsert(t, "samples", HOFFSET(strings_t, samples), H5Tvlen_create(H5T_NATIVE_INT)));
        CHECK(H5Tinsert(t, "ascii", HOFFSET(strings_t, ascii), vlen_str(H5T_CSET_ASCII)));
        CHECK(H5Tinsert(t, "tag", HOFFSET(strings_t, tag), fixed_str(3, H5T_STR_NULLPAD, H5T_CSET_ASCII)));
        emit("strings", t);
    }
    {
        hid_t t = compound(sizeof(wide_t));
        CHECK(H5Tinsert(t, "0", HOFFSET(wide_t, a), int128(1)));
        CHECK(H5Tinsert(t, "1", HOFFSET(wide_t, b), int128(0)));
        CHECK(H5Tinsert(t, "2", HOFFSET(wide_t, c), H5T_NATIVE_UCHAR));
        emit("wide", t);
    }
    {
        hid_t t = compound(sizeof(refs_t));
        CHECK(H5Tinsert(t, "obj", HOFFSET(refs_t, obj), H5T_STD_REF_OBJ));
        CHECK(H5Tinsert(t, "region", HOFFSET(refs_t, region), H5T_STD_REF_DSETREG));
        CHECK(H5Tinsert(t, "x", HOFFSET(refs_t, x), H5T_NATIVE_INT));
        emit("refs", t);
    }
    {
        hid_t t = compound(sizeof(pair_u16_t));
        hsize_t two = 2;
        CHECK(H5Tinsert(t, "x", HOFFSET(pair_u16_t, x), H5T_NATIVE_USHORT));
        CHECK(H5Tinsert(t, "y", HOFFSET(pair_u16_t, y), arr(H5T_NATIVE_USHORT, 1, &two)));
        emit("generic_u16", t);
    }
    {
        hid_t t = compound(sizeof(subset_t));
        CHECK(H5Tinsert(t, "alpha", HOFFSET(subset_t, alpha), H5T_NATIVE_FLOAT));
        CHECK(H5Tinsert(t, "b", HOFFSET(subset_t, b), H5T_NATIVE_UINT8));
        emit("subset", t);
    }
    {
        hid_t t = compound(sizeof(track_t));
        hsize_t three = 3;
        CHECK(H5Tinsert(t, "start", HOFFSET(track_t, start), H5T_NATIVE_DOUBLE));
        CHECK(H5Tinsert(t, "path", HOFFSET(track_t, path), arr(H5T_NATIVE_DOUBLE, 1, &three)));
        emit("transparent", t);
    }
    {
        hid_t t = compound(sizeof(outer_t));
        CHECK(H5Tinsert(t, "items", HOFFSET(outer_t, items), H5Tvlen_create(inner_type())));
        CHECK(H5Tinsert(t, "name", HOFFSET(outer_t, name), vlen_str(H5T_CSET_UTF8)));
        emit("nested_vlen", t);
    }
    return 0;
}
