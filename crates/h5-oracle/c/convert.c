/* Oracle for datatype conversion: runs the reference library's H5Tconvert.
 *
 * Reads jobs from stdin until end of input. Each job is three text lines and raw bytes:
 *
 *   SRC type description
 *   DST type description
 *   N MODE BKG            (MODE: "cb" = a callback that counts exceptions and leaves the
 *                          default action, "nocb" = no callback; BKG: 1 if a background
 *                          buffer follows the source bytes)
 *   N * size(SRC) raw source bytes, then N * size(DST) background bytes when BKG is 1
 *
 * A variable-length type (a sequence or a variable-length string) at the top level is
 * serialized instead: for each element a 32-bit little-endian count, then the count's
 * base elements (or characters); a null string has count 0xffffffff. The third line then
 * has a fourth number, the total number of source bytes. The output uses the same form.
 *
 * For each job it prints either
 *   ok HEX              the N * size(DST) converted bytes
 *   counts HI LO PREC TRUNC PINF NINF NAN
 * or
 *   err MESSAGE
 *
 * A type description is a prefix expression of whitespace-separated tokens:
 *   i SIZE ORDER SIGN PREC OFF LSB MSB          integer; ORDER le|be, SIGN s|u, pads 0|1
 *   f SIZE ORDER PREC OFF LSB MSB INPAD SPOS EPOS ESIZE MPOS MSIZE EBIAS NORM
 *                                               float; ORDER le|be|vax, NORM i|m|n
 *   b SIZE ORDER PREC OFF LSB MSB               bitfield
 *   s SIZE PAD CSET                             string; SIZE 0 = variable, PAD t|p|s, CSET a|u
 *   o SIZE TAG                                  opaque
 *   e BASE N (NAME HEXVALUE)*                   enum; values as raw bytes of the base type
 *   c SIZE N (NAME OFFSET TYPE)*                compound
 *   a RANK DIM... TYPE                          array
 *   v TYPE                                      variable-length sequence
 *   n NAME                                      predefined type, e.g. NATIVE_INT, STD_I32BE
 * Atomic types are built as datatype messages (file format, version 1) and decoded with
 * H5Tdecode, so every layout the format allows can be described.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "hdf5.h"

static char *tok_save;
static char *next_tok(void) { return strtok_r(NULL, " \t\r\n", &tok_save); }

static unsigned long long counts[7];

static H5T_conv_ret_t count_cb(H5T_conv_except_t except_type, hid_t src_id, hid_t dst_id,
                               void *src_buf, void *dst_buf, void *user_data) {
    (void)src_id; (void)dst_id; (void)src_buf; (void)dst_buf; (void)user_data;
    if ((int)except_type >= 0 && (int)except_type < 7) counts[except_type]++;
    return H5T_CONV_UNHANDLED;
}

static void put16(unsigned char *p, unsigned v) { p[0] = v & 0xff; p[1] = (v >> 8) & 0xff; }
static void put32(unsigned char *p, unsigned long v) {
    p[0] = v & 0xff; p[1] = (v >> 8) & 0xff; p[2] = (v >> 16) & 0xff; p[3] = (v >> 24) & 0xff;
}

static int pad_bit(const char *t) { return t && t[0] == '1'; }

static hid_t decode_msg(unsigned char *msg) {
    unsigned char buf[64];
    buf[0] = 3; /* H5O_DTYPE_ID */
    buf[1] = 0; /* H5T_ENCODE_VERSION */
    memcpy(buf + 2, msg, 60);
    return H5Tdecode(buf);
}

static hid_t predefined(const char *name) {
#define P(N) if (!strcmp(name, #N)) return H5Tcopy(H5T_##N);
    P(NATIVE_SCHAR) P(NATIVE_UCHAR) P(NATIVE_SHORT) P(NATIVE_USHORT) P(NATIVE_INT)
    P(NATIVE_UINT) P(NATIVE_LONG) P(NATIVE_ULONG) P(NATIVE_LLONG) P(NATIVE_ULLONG)
    P(NATIVE_FLOAT) P(NATIVE_DOUBLE) P(NATIVE_LDOUBLE)
    P(STD_I8LE) P(STD_I8BE) P(STD_U8LE) P(STD_U8BE) P(STD_I16LE) P(STD_I16BE)
    P(STD_U16LE) P(STD_U16BE) P(STD_I32LE) P(STD_I32BE) P(STD_U32LE) P(STD_U32BE)
    P(STD_I64LE) P(STD_I64BE) P(STD_U64LE) P(STD_U64BE)
    P(IEEE_F32LE) P(IEEE_F32BE) P(IEEE_F64LE) P(IEEE_F64BE)
    P(STD_B8LE) P(STD_B8BE) P(STD_B16LE) P(STD_B16BE) P(STD_B32LE) P(STD_B32BE)
    P(STD_B64LE) P(STD_B64BE) P(STD_REF_OBJ) P(STD_REF_DSETREG)
#undef P
    return -1;
}

static hid_t parse_type(void);

static hid_t parse_type(void) {
    char *t = next_tok();
    unsigned char msg[60];
    memset(msg, 0, sizeof msg);
    if (!t) return -1;
    if (!strcmp(t, "n")) {
        return predefined(next_tok());
    } else if (!strcmp(t, "i") || !strcmp(t, "b")) {
        int is_int = t[0] == 'i';
        unsigned size = (unsigned)atoi(next_tok());
        char *order = next_tok();
        char *sign = is_int ? next_tok() : "u";
        unsigned prec = (unsigned)atoi(next_tok());
        unsigned off = (unsigned)atoi(next_tok());
        int lsb = pad_bit(next_tok()), msb = pad_bit(next_tok());
        msg[0] = (1 << 4) | (is_int ? 0 : 4);
        msg[1] = (unsigned char)((!strcmp(order, "be") ? 1 : 0) | (lsb << 1) | (msb << 2) |
                                 ((is_int && sign[0] == 's') ? 8 : 0));
        put32(msg + 4, size);
        put16(msg + 8, off);
        put16(msg + 10, prec);
        return decode_msg(msg);
    } else if (!strcmp(t, "f")) {
        unsigned size = (unsigned)atoi(next_tok());
        char *order = next_tok();
        unsigned prec = (unsigned)atoi(next_tok());
        unsigned off = (unsigned)atoi(next_tok());
        int lsb = pad_bit(next_tok()), msb = pad_bit(next_tok()), inpad = pad_bit(next_tok());
        unsigned spos = (unsigned)atoi(next_tok());
        unsigned epos = (unsigned)atoi(next_tok());
        unsigned esize = (unsigned)atoi(next_tok());
        unsigned mpos = (unsigned)atoi(next_tok());
        unsigned msize = (unsigned)atoi(next_tok());
        unsigned long ebias = strtoul(next_tok(), NULL, 10);
        char *norm = next_tok();
        unsigned bits = 0;
        if (!strcmp(order, "be")) bits |= 1;
        if (!strcmp(order, "vax")) bits |= 1 | (1 << 6);
        bits |= (unsigned)(lsb << 1) | (unsigned)(msb << 2) | (unsigned)(inpad << 3);
        if (norm[0] == 'm') bits |= 1 << 4;
        if (norm[0] == 'i') bits |= 2 << 4;
        /* VAX order exists from datatype message version 3 on. */
        msg[0] = (unsigned char)(((bits & 0x40) ? 3 : 1) << 4) | 1;
        msg[1] = (unsigned char)(bits & 0xff);
        msg[2] = (unsigned char)spos;
        put32(msg + 4, size);
        put16(msg + 8, off);
        put16(msg + 10, prec);
        msg[12] = (unsigned char)epos;
        msg[13] = (unsigned char)esize;
        msg[14] = (unsigned char)mpos;
        msg[15] = (unsigned char)msize;
        put32(msg + 16, ebias);
        return decode_msg(msg);
    } else if (!strcmp(t, "s")) {
        unsigned size = (unsigned)atoi(next_tok());
        char *pad = next_tok();
        char *cset = next_tok();
        hid_t s = H5Tcopy(H5T_C_S1);
        if (size == 0) H5Tset_size(s, H5T_VARIABLE);
        else H5Tset_size(s, size);
        H5Tset_strpad(s, pad[0] == 't' ? H5T_STR_NULLTERM : pad[0] == 'p' ? H5T_STR_NULLPAD : H5T_STR_SPACEPAD);
        H5Tset_cset(s, cset[0] == 'u' ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
        return s;
    } else if (!strcmp(t, "o")) {
        unsigned size = (unsigned)atoi(next_tok());
        char *tag = next_tok();
        hid_t o = H5Tcreate(H5T_OPAQUE, size);
        H5Tset_tag(o, tag);
        return o;
    } else if (!strcmp(t, "e")) {
        hid_t base = parse_type();
        int n = atoi(next_tok());
        hid_t e = H5Tenum_create(base);
        size_t sz = H5Tget_size(base);
        for (int k = 0; k < n; k++) {
            char *name = next_tok();
            char *hex = next_tok();
            unsigned char v[64];
            for (size_t j = 0; j < sz && j < sizeof v; j++) {
                unsigned x;
                sscanf(hex + 2 * j, "%2x", &x);
                v[j] = (unsigned char)x;
            }
            if (H5Tenum_insert(e, name, v) < 0) return -1;
        }
        H5Tclose(base);
        return e;
    } else if (!strcmp(t, "c")) {
        unsigned size = (unsigned)atoi(next_tok());
        int n = atoi(next_tok());
        hid_t c = H5Tcreate(H5T_COMPOUND, size);
        for (int k = 0; k < n; k++) {
            char *name = next_tok();
            unsigned off = (unsigned)atoi(next_tok());
            hid_t m = parse_type();
            if (m < 0 || H5Tinsert(c, name, off, m) < 0) return -1;
            H5Tclose(m);
        }
        return c;
    } else if (!strcmp(t, "a")) {
        int rank = atoi(next_tok());
        hsize_t dims[32];
        for (int k = 0; k < rank && k < 32; k++) dims[k] = (hsize_t)atoll(next_tok());
        hid_t base = parse_type();
        hid_t a = H5Tarray_create2(base, (unsigned)rank, dims);
        H5Tclose(base);
        return a;
    } else if (!strcmp(t, "v")) {
        hid_t base = parse_type();
        hid_t v = H5Tvlen_create(base);
        H5Tclose(base);
        return v;
    }
    return -1;
}

static hid_t parse_line(char *line) {
    /* strtok_r with a NULL string continues from the saved pointer: start at the line. */
    tok_save = line;
    return parse_type();
}

static int is_var(hid_t t) {
    return H5Tget_class(t) == H5T_VLEN || (H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0);
}

static unsigned long get32(const unsigned char *p) {
    return (unsigned long)p[0] | ((unsigned long)p[1] << 8) | ((unsigned long)p[2] << 16) |
           ((unsigned long)p[3] << 24);
}

/* Build hvl_t / char* elements from the serialized form. */
static int deserialize(hid_t t, const unsigned char *ser, size_t len, size_t n, unsigned char *buf) {
    size_t pos = 0;
    int str = H5Tget_class(t) == H5T_STRING;
    size_t esz = 1;
    if (!str) {
        hid_t base = H5Tget_super(t);
        esz = H5Tget_size(base);
        H5Tclose(base);
    }
    for (size_t i = 0; i < n; i++) {
        if (pos + 4 > len) return -1;
        unsigned long count = get32(ser + pos);
        pos += 4;
        if (str) {
            char *p = NULL;
            if (count != 0xffffffffUL) {
                if (pos + count > len) return -1;
                p = malloc(count + 1);
                memcpy(p, ser + pos, count);
                p[count] = 0;
                pos += count;
            }
            memcpy(buf + i * sizeof(char *), &p, sizeof p);
        } else {
            hvl_t v;
            if (pos + count * esz > len) return -1;
            v.len = count;
            v.p = count ? malloc(count * esz) : NULL;
            if (count) memcpy(v.p, ser + pos, count * esz);
            pos += count * esz;
            memcpy(buf + i * sizeof(hvl_t), &v, sizeof v);
        }
    }
    return 0;
}

static void put_hex32(unsigned long v) {
    printf("%02lx%02lx%02lx%02lx", v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >> 24) & 0xff);
}

/* Print hvl_t / char* elements in the serialized form, as hex. */
static void serialize(hid_t t, const unsigned char *buf, size_t n) {
    int str = H5Tget_class(t) == H5T_STRING;
    size_t esz = 1;
    if (!str) {
        hid_t base = H5Tget_super(t);
        esz = H5Tget_size(base);
        H5Tclose(base);
    }
    for (size_t i = 0; i < n; i++) {
        if (str) {
            char *p;
            memcpy(&p, buf + i * sizeof(char *), sizeof p);
            if (!p) {
                put_hex32(0xffffffffUL);
                continue;
            }
            size_t l = strlen(p);
            put_hex32(l);
            for (size_t k = 0; k < l; k++) printf("%02x", (unsigned char)p[k]);
        } else {
            hvl_t v;
            memcpy(&v, buf + i * sizeof(hvl_t), sizeof v);
            put_hex32(v.len);
            for (size_t k = 0; k < v.len * esz; k++) printf("%02x", ((unsigned char *)v.p)[k]);
        }
    }
}

static int read_line(char *buf, size_t cap) {
    size_t n = 0;
    int c;
    while ((c = getchar()) != EOF) {
        if (c == '\n') break;
        if (n + 1 < cap) buf[n++] = (char)c;
    }
    buf[n] = 0;
    return (c == EOF && n == 0) ? -1 : 0;
}

int main(void) {
    static char sline[1 << 16], dline[1 << 16], nline[256];
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    while (read_line(sline, sizeof sline) == 0) {
        if (sline[0] == 0) continue;
        if (read_line(dline, sizeof dline) < 0 || read_line(nline, sizeof nline) < 0) return 2;
        size_t n = 0, nbytes = 0;
        char mode[16] = "cb";
        int bkg = 0;
        int fields = sscanf(nline, "%zu %15s %d %zu", &n, mode, &bkg, &nbytes);
        hid_t src = parse_line(sline);
        hid_t dst = parse_line(dline);
        size_t ssz = src >= 0 ? H5Tget_size(src) : 0;
        size_t dsz = dst >= 0 ? H5Tget_size(dst) : 0;
        size_t big = (ssz > dsz ? ssz : dsz) * (n ? n : 1);
        unsigned char *buf = calloc(big + 16, 1);
        unsigned char *bk = calloc(dsz * (n ? n : 1) + 16, 1);
        int svar = src >= 0 && is_var(src), dvar = dst >= 0 && is_var(dst);
        if (svar) {
            if (fields < 4) return 3;
            unsigned char *ser = malloc(nbytes + 1);
            if (nbytes && fread(ser, 1, nbytes, stdin) != nbytes) return 3;
            if (deserialize(src, ser, nbytes, n, buf) < 0) return 3;
            free(ser);
        } else if (n && fread(buf, 1, ssz * n, stdin) != ssz * n) return 3;
        if (bkg && n && fread(bk, 1, dsz * n, stdin) != dsz * n) return 3;
        if (src < 0 || dst < 0) {
            printf("err cannot build type\n");
        } else {
            hid_t plist = H5Pcreate(H5P_DATASET_XFER);
            memset(counts, 0, sizeof counts);
            if (!strcmp(mode, "cb")) H5Pset_type_conv_cb(plist, count_cb, NULL);
            if (H5Tconvert(src, dst, n, buf, bkg ? bk : NULL, plist) < 0) {
                printf("err conversion failed\n");
            } else {
                printf("ok ");
                if (dvar) serialize(dst, buf, n);
                else
                    for (size_t k = 0; k < dsz * n; k++) printf("%02x", buf[k]);
                printf("\ncounts");
                for (int k = 0; k < 7; k++) printf(" %llu", counts[k]);
                printf("\n");
            }
            H5Pclose(plist);
        }
        if (src >= 0) H5Tclose(src);
        if (dst >= 0) H5Tclose(dst);
        free(buf);
        free(bk);
        fflush(stdout);
    }
    return 0;
}
