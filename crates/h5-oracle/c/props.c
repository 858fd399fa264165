/* Datatype derivation oracle: a stack machine over the reference library's H5T API.
 *
 * Reads one command per line on stdin and prints exactly one line per command:
 *   pre NAME            push a copy of a predefined type (H5T_STD_I32LE, H5T_IEEE_F64BE, ...)
 *   string N|var        push a copy of H5T_C_S1 with that size
 *   compound N          push H5Tcreate(H5T_COMPOUND, N)
 *   opaque N            push H5Tcreate(H5T_OPAQUE, N)
 *   insert NAME OFF     pop a member type and H5Tinsert it into the compound below it
 *   enum                pop an integer base and push H5Tenum_create(base)
 *   enuminsert NAME HEX insert a member (value as raw bytes of the base type) into the top enum
 *   array R D1 .. DR    pop a base and push H5Tarray_create2
 *   vlen                pop a base and push H5Tvlen_create
 *   size N|var, prec N, offset N, pad L M, order O, sign S, fields S E ES M MS, ebias N, norm N,
 *   inpad N, cset N, strpad N, tag =TEXT, pack
 *                       apply H5Tset_* (or H5Tpack) to a copy of the top type; on success the
 *                       copy replaces it (so a failed call leaves the type as it was; a type
 *                       the library cannot copy, an enum without members, is changed in place)
 *   native              push H5Tget_native_type(top, H5T_DIR_DEFAULT)
 *   equal               print whether the two top types are H5Tequal
 *   dup, pop            stack manipulation
 *   dump                print the top type in the description format below
 * Answers: "ok", "err", "eq 0|1", or a description:
 *   I(size,order,prec,offset,lsb,msb,sign)
 *   F(size,order,prec,offset,lsb,msb,spos,epos,esize,mpos,msize,ebias,norm,inpad)
 *   S(size|var,cset,strpad)   B(size,order,prec,offset,lsb,msb)   O(size,"tag")
 *   C(size,[name@offset:TYPE;...])   E(BASE,[name=hex;...])   V(BASE)   A([d1,d2],BASE)
 *   R(obj|reg|other,size)   T(size)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hdf5.h"

#define MAXSTACK 256
static hid_t stack[MAXSTACK];
static int sp = 0;

static void push(hid_t t) {
    if (sp < MAXSTACK) stack[sp++] = t;
    else H5Tclose(t);
}
static hid_t pop(void) { return sp > 0 ? stack[--sp] : -1; }
static hid_t top(void) { return sp > 0 ? stack[sp - 1] : -1; }

struct named { const char *name; hid_t *id; };
#define P(x) { #x, &x##_g }

static hid_t lookup(const char *name) {
    struct named table[] = {
        P(H5T_STD_I8LE), P(H5T_STD_I8BE), P(H5T_STD_I16LE), P(H5T_STD_I16BE),
        P(H5T_STD_I32LE), P(H5T_STD_I32BE), P(H5T_STD_I64LE), P(H5T_STD_I64BE),
        P(H5T_STD_U8LE), P(H5T_STD_U8BE), P(H5T_STD_U16LE), P(H5T_STD_U16BE),
        P(H5T_STD_U32LE), P(H5T_STD_U32BE), P(H5T_STD_U64LE), P(H5T_STD_U64BE),
        P(H5T_STD_B8LE), P(H5T_STD_B8BE), P(H5T_STD_B16LE), P(H5T_STD_B16BE),
        P(H5T_STD_B32LE), P(H5T_STD_B32BE), P(H5T_STD_B64LE), P(H5T_STD_B64BE),
        P(H5T_IEEE_F32LE), P(H5T_IEEE_F32BE), P(H5T_IEEE_F64LE), P(H5T_IEEE_F64BE),
        P(H5T_VAX_F32), P(H5T_VAX_F64), P(H5T_NATIVE_LDOUBLE),
        P(H5T_STD_REF_OBJ), P(H5T_STD_REF_DSETREG),
        {NULL, NULL}};
    for (int i = 0; table[i].name; i++)
        if (!strcmp(table[i].name, name)) return H5Tcopy(*table[i].id);
    return -1;
}

static void describe(hid_t t, FILE *out) {
    H5T_class_t cls = H5Tget_class(t);
    size_t size = H5Tget_size(t);
    switch (cls) {
    case H5T_INTEGER: {
        H5T_pad_t lsb, msb;
        H5Tget_pad(t, &lsb, &msb);
        fprintf(out, "I(%zu,%d,%zu,%d,%d,%d,%d)", size, (int)H5Tget_order(t), H5Tget_precision(t),
                H5Tget_offset(t), (int)lsb, (int)msb, (int)H5Tget_sign(t));
        break;
    }
    case H5T_FLOAT: {
        H5T_pad_t lsb, msb;
        size_t s, e, es, m, ms;
        H5Tget_pad(t, &lsb, &msb);
        H5Tget_fields(t, &s, &e, &es, &m, &ms);
        fprintf(out, "F(%zu,%d,%zu,%d,%d,%d,%zu,%zu,%zu,%zu,%zu,%zu,%d,%d)", size,
                (int)H5Tget_order(t), H5Tget_precision(t), H5Tget_offset(t), (int)lsb, (int)msb, s, e,
                es, m, ms, H5Tget_ebias(t), (int)H5Tget_norm(t), (int)H5Tget_inpad(t));
        break;
    }
    case H5T_STRING:
        if (H5Tis_variable_str(t) > 0)
            fprintf(out, "S(var,%d,%d)", (int)H5Tget_cset(t), (int)H5Tget_strpad(t));
        else
            fprintf(out, "S(%zu,%d,%d)", size, (int)H5Tget_cset(t), (int)H5Tget_strpad(t));
        break;
    case H5T_BITFIELD: {
        H5T_pad_t lsb, msb;
        H5Tget_pad(t, &lsb, &msb);
        fprintf(out, "B(%zu,%d,%zu,%d,%d,%d)", size, (int)H5Tget_order(t), H5Tget_precision(t),
                H5Tget_offset(t), (int)lsb, (int)msb);
        break;
    }
    case H5T_OPAQUE: {
        char *tag = H5Tget_tag(t);
        fprintf(out, "O(%zu,\"%s\")", size, tag ? tag : "");
        if (tag) H5free_memory(tag);
        break;
    }
    case H5T_COMPOUND: {
        int n = H5Tget_nmembers(t);
        fprintf(out, "C(%zu,[", size);
        for (int i = 0; i < n; i++) {
            char *name = H5Tget_member_name(t, (unsigned)i);
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            fprintf(out, "%s@%zu:", name, H5Tget_member_offset(t, (unsigned)i));
            describe(m, out);
            fprintf(out, ";");
            H5Tclose(m);
            H5free_memory(name);
        }
        fprintf(out, "])");
        break;
    }
    case H5T_ENUM: {
        hid_t base = H5Tget_super(t);
        size_t bsize = H5Tget_size(base);
        unsigned char buf[64];
        int n = H5Tget_nmembers(t);
        fprintf(out, "E(");
        describe(base, out);
        fprintf(out, ",[");
        for (int i = 0; i < n; i++) {
            char *name = H5Tget_member_name(t, (unsigned)i);
            memset(buf, 0, sizeof buf);
            H5Tget_member_value(t, (unsigned)i, buf);
            fprintf(out, "%s=", name);
            for (size_t b = 0; b < bsize && b < sizeof buf; b++) fprintf(out, "%02x", buf[b]);
            fprintf(out, ";");
            H5free_memory(name);
        }
        fprintf(out, "])");
        H5Tclose(base);
        break;
    }
    case H5T_VLEN: {
        hid_t base = H5Tget_super(t);
        fprintf(out, "V(");
        describe(base, out);
        fprintf(out, ")");
        H5Tclose(base);
        break;
    }
    case H5T_ARRAY: {
        hsize_t dims[32];
        int r = H5Tget_array_ndims(t);
        hid_t base = H5Tget_super(t);
        H5Tget_array_dims2(t, dims);
        fprintf(out, "A([");
        for (int i = 0; i < r; i++) fprintf(out, "%s%llu", i ? "," : "", (unsigned long long)dims[i]);
        fprintf(out, "],");
        describe(base, out);
        fprintf(out, ")");
        H5Tclose(base);
        break;
    }
    case H5T_REFERENCE:
        if (H5Tequal(t, H5T_STD_REF_OBJ) > 0)
            fprintf(out, "R(obj,%zu)", size);
        else if (H5Tequal(t, H5T_STD_REF_DSETREG) > 0)
            fprintf(out, "R(reg,%zu)", size);
        else
            fprintf(out, "R(other,%zu)", size);
        break;
    case H5T_TIME:
        fprintf(out, "T(%zu)", size);
        break;
    default:
        fprintf(out, "?(%d)", (int)cls);
    }
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Apply one setter to a copy of the top type; replace it on success. */
static int apply(const char *op, char **arg, int nargs) {
    hid_t t = top();
    if (t < 0) return -1;
    /* libhdf5 1.10.8 cannot copy an enum without members (a zero-byte allocation fails);
     * such a type is changed in place. */
    hid_t c = H5Tcopy(t);
    int in_place = c < 0;
    herr_t r = -1;
    if (in_place) c = t;
    size_t a0 = nargs > 0 ? strtoull(arg[0], NULL, 10) : 0;
    if (!strcmp(op, "size")) {
        if (nargs > 0 && !strcmp(arg[0], "var")) r = H5Tset_size(c, H5T_VARIABLE);
        else r = H5Tset_size(c, a0);
    } else if (!strcmp(op, "prec")) r = H5Tset_precision(c, a0);
    else if (!strcmp(op, "offset")) r = H5Tset_offset(c, a0);
    else if (!strcmp(op, "pad") && nargs == 2)
        r = H5Tset_pad(c, (H5T_pad_t)atoi(arg[0]), (H5T_pad_t)atoi(arg[1]));
    else if (!strcmp(op, "order")) r = H5Tset_order(c, (H5T_order_t)atoi(arg[0]));
    else if (!strcmp(op, "sign")) r = H5Tset_sign(c, (H5T_sign_t)atoi(arg[0]));
    else if (!strcmp(op, "fields") && nargs == 5)
        r = H5Tset_fields(c, a0, strtoull(arg[1], NULL, 10), strtoull(arg[2], NULL, 10),
                          strtoull(arg[3], NULL, 10), strtoull(arg[4], NULL, 10));
    else if (!strcmp(op, "ebias")) r = H5Tset_ebias(c, a0);
    else if (!strcmp(op, "norm")) r = H5Tset_norm(c, (H5T_norm_t)atoi(arg[0]));
    else if (!strcmp(op, "inpad")) r = H5Tset_inpad(c, (H5T_pad_t)atoi(arg[0]));
    else if (!strcmp(op, "cset")) r = H5Tset_cset(c, (H5T_cset_t)atoi(arg[0]));
    else if (!strcmp(op, "strpad")) r = H5Tset_strpad(c, (H5T_str_t)atoi(arg[0]));
    else if (!strcmp(op, "tag") && nargs == 1 && arg[0][0] == '=') r = H5Tset_tag(c, arg[0] + 1);
    else if (!strcmp(op, "pack")) r = H5Tpack(c);
    if (in_place) return r < 0 ? -1 : 0;
    if (r < 0) {
        H5Tclose(c);
        return -1;
    }
    H5Tclose(pop());
    push(c);
    return 0;
}

int main(void) {
    char line[8192];
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    while (fgets(line, sizeof line, stdin)) {
        char *arg[40];
        int n = 0;
        for (char *tok = strtok(line, " \t\r\n"); tok && n < 40; tok = strtok(NULL, " \t\r\n"))
            arg[n++] = tok;
        if (n == 0) continue;
        const char *op = arg[0];
        int ok = -1;
        if (!strcmp(op, "pre") && n == 2) {
            hid_t t = lookup(arg[1]);
            if (t >= 0) { push(t); ok = 0; }
        } else if (!strcmp(op, "string") && n == 2) {
            hid_t t = H5Tcopy(H5T_C_S1);
            herr_t r = !strcmp(arg[1], "var") ? H5Tset_size(t, H5T_VARIABLE)
                                              : H5Tset_size(t, strtoull(arg[1], NULL, 10));
            if (r >= 0) { push(t); ok = 0; } else H5Tclose(t);
        } else if ((!strcmp(op, "compound") || !strcmp(op, "opaque")) && n == 2) {
            hid_t t = H5Tcreate(!strcmp(op, "compound") ? H5T_COMPOUND : H5T_OPAQUE,
                                strtoull(arg[1], NULL, 10));
            if (t >= 0) { push(t); ok = 0; }
        } else if (!strcmp(op, "insert") && n == 3) {
            hid_t m = pop();
            if (m >= 0) {
                if (top() >= 0 && H5Tinsert(top(), arg[1], strtoull(arg[2], NULL, 10), m) >= 0) ok = 0;
                H5Tclose(m);
            }
        } else if (!strcmp(op, "enum") && n == 1) {
            hid_t b = pop();
            if (b >= 0) {
                hid_t e = H5Tenum_create(b);
                if (e >= 0) { push(e); ok = 0; }
                H5Tclose(b);
            }
        } else if (!strcmp(op, "enuminsert") && n == 3) {
            unsigned char buf[64];
            size_t len = strlen(arg[2]) / 2;
            memset(buf, 0, sizeof buf);
            if (top() >= 0 && len <= sizeof buf && len == H5Tget_size(top())) {
                int bad = 0;
                for (size_t i = 0; i < len; i++) {
                    int h = hexval(arg[2][2 * i]), l = hexval(arg[2][2 * i + 1]);
                    if (h < 0 || l < 0) bad = 1;
                    else buf[i] = (unsigned char)(h * 16 + l);
                }
                if (!bad && H5Tenum_insert(top(), arg[1], buf) >= 0) ok = 0;
            }
        } else if (!strcmp(op, "array") && n >= 2) {
            int r = atoi(arg[1]);
            hsize_t dims[32];
            hid_t b = pop();
            if (b >= 0 && r >= 1 && r <= 32 && n == 2 + r) {
                for (int i = 0; i < r; i++) dims[i] = strtoull(arg[2 + i], NULL, 10);
                hid_t a = H5Tarray_create2(b, (unsigned)r, dims);
                if (a >= 0) { push(a); ok = 0; }
            }
            if (b >= 0) H5Tclose(b);
        } else if (!strcmp(op, "vlen") && n == 1) {
            hid_t b = pop();
            if (b >= 0) {
                hid_t v = H5Tvlen_create(b);
                if (v >= 0) { push(v); ok = 0; }
                H5Tclose(b);
            }
        } else if (!strcmp(op, "native") && n == 1) {
            if (top() >= 0) {
                hid_t t = H5Tget_native_type(top(), H5T_DIR_DEFAULT);
                if (t >= 0) { push(t); ok = 0; }
            }
        } else if (!strcmp(op, "equal") && n == 1) {
            if (sp >= 2) {
                printf("eq %d\n", H5Tequal(stack[sp - 1], stack[sp - 2]) > 0);
                fflush(stdout);
                continue;
            }
        } else if (!strcmp(op, "dup") && n == 1) {
            hid_t t = top() >= 0 ? H5Tcopy(top()) : -1;
            if (t >= 0) { push(t); ok = 0; }
        } else if (!strcmp(op, "pop") && n == 1) {
            hid_t t = pop();
            if (t >= 0) { H5Tclose(t); ok = 0; }
        } else if (!strcmp(op, "clear") && n == 1) {
            while (sp > 0) H5Tclose(pop());
            ok = 0;
        } else if (!strcmp(op, "dump") && n == 1) {
            if (top() >= 0) {
                describe(top(), stdout);
                printf("\n");
                fflush(stdout);
                continue;
            }
        } else {
            ok = apply(op, arg + 1, n - 1);
        }
        printf("%s\n", ok == 0 ? "ok" : "err");
        fflush(stdout);
    }
    while (sp > 0) H5Tclose(pop());
    return 0;
}
