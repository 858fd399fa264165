/* DDL oracle: H5LTtext_to_dtype / H5LTdtype_to_text of the reference library.
 *
 * stdin holds DDL texts separated by lines consisting of "%%". For each text, in order, stdout
 * gets one record:
 *
 *   ITEM <index>
 *   ERROR                      (H5LTtext_to_dtype failed), or:
 *   SIZE <H5Tget_size>
 *   TEXT <n>\n<n bytes>\n      (H5LTdtype_to_text; "TEXT -1" when it fails)
 *   PROPS <...>                (class and, for atomic classes, the H5Tget_* properties)
 *   PACKSIZE <size>\nPACKTEXT <n>\n<bytes>\n          (after H5Tpack of a copy)
 *   NATIVESIZE <size>\nNATIVETEXT <n>\n<bytes>\n      (H5Tget_native_type(DEFAULT); -1 on failure)
 *   END
 *
 * With the argument "names", stdin holds predefined type names (one a line) instead, and each
 * record describes that predefined type (SIZE, TEXT, PROPS); unknown names give ERROR.
 *
 * Each item runs in a forked child: the reference parser keeps global state (nesting stacks,
 * indentation) that a failed parse leaves dirty, so every item starts from a clean process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "hdf5.h"
#include "hdf5_hl.h"

static FILE *out;

static void print_text(const char *key, hid_t t) {
    size_t len = 0;
    if (H5LTdtype_to_text(t, NULL, H5LT_DDL, &len) < 0) {
        fprintf(out, "%s -1\n", key);
        return;
    }
    char *buf = calloc(len + 1, 1);
    if (!buf || H5LTdtype_to_text(t, buf, H5LT_DDL, &len) < 0) {
        fprintf(out, "%s -1\n", key);
        free(buf);
        return;
    }
    size_t n = strlen(buf);
    fprintf(out, "%s %zu\n", key, n);
    fwrite(buf, 1, n, out);
    fputc('\n', out);
    free(buf);
}

static void print_props(hid_t t) {
    H5T_class_t c = H5Tget_class(t);
    fprintf(out, "PROPS class=%d size=%zu", (int)c, H5Tget_size(t));
    if (c == H5T_INTEGER || c == H5T_FLOAT || c == H5T_BITFIELD || c == H5T_TIME) {
        H5T_pad_t lsb, msb;
        H5Tget_pad(t, &lsb, &msb);
        fprintf(out, " order=%d prec=%zu off=%d pad=%d,%d", (int)H5Tget_order(t), H5Tget_precision(t),
                H5Tget_offset(t), (int)lsb, (int)msb);
    }
    if (c == H5T_INTEGER)
        fprintf(out, " sign=%d", (int)H5Tget_sign(t));
    if (c == H5T_FLOAT) {
        size_t spos, epos, esize, mpos, msize;
        H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize);
        fprintf(out, " fields=%zu,%zu,%zu,%zu,%zu ebias=%zu norm=%d inpad=%d", spos, epos, esize, mpos, msize,
                H5Tget_ebias(t), (int)H5Tget_norm(t), (int)H5Tget_inpad(t));
    }
    if (c == H5T_STRING)
        fprintf(out, " strpad=%d cset=%d var=%d", (int)H5Tget_strpad(t), (int)H5Tget_cset(t),
                (int)H5Tis_variable_str(t));
    if (c == H5T_OPAQUE) {
        char *tag = H5Tget_tag(t);
        fprintf(out, " tag=%s", tag ? tag : "");
        if (tag) H5free_memory(tag);
    }
    fputc('\n', out);
}

static void describe(hid_t t, int full) {
    fprintf(out, "SIZE %zu\n", H5Tget_size(t));
    print_text("TEXT", t);
    print_props(t);
    if (!full) return;
    hid_t p = H5Tcopy(t);
    if (p >= 0 && H5Tpack(p) >= 0) {
        fprintf(out, "PACKSIZE %zu\n", H5Tget_size(p));
        print_text("PACKTEXT", p);
    } else {
        fprintf(out, "PACKSIZE -1\nPACKTEXT -1\n");
    }
    if (p >= 0) H5Tclose(p);
    hid_t nt = H5Tget_native_type(t, H5T_DIR_DEFAULT);
    if (nt >= 0) {
        fprintf(out, "NATIVESIZE %zu\n", H5Tget_size(nt));
        print_text("NATIVETEXT", nt);
        H5Tclose(nt);
    } else {
        fprintf(out, "NATIVESIZE -1\nNATIVETEXT -1\n");
    }
}

static hid_t by_name(const char *name) {
    /* Every predefined type and alias of the library (1.10 has no 2.0 floats or complex). */
#define T(x) if (!strcmp(name, #x)) return x;
    T(H5T_IEEE_F32BE) T(H5T_IEEE_F32LE) T(H5T_IEEE_F64BE) T(H5T_IEEE_F64LE)
    T(H5T_STD_I8BE) T(H5T_STD_I8LE) T(H5T_STD_I16BE) T(H5T_STD_I16LE) T(H5T_STD_I32BE) T(H5T_STD_I32LE)
    T(H5T_STD_I64BE) T(H5T_STD_I64LE) T(H5T_STD_U8BE) T(H5T_STD_U8LE) T(H5T_STD_U16BE) T(H5T_STD_U16LE)
    T(H5T_STD_U32BE) T(H5T_STD_U32LE) T(H5T_STD_U64BE) T(H5T_STD_U64LE) T(H5T_STD_B8BE) T(H5T_STD_B8LE)
    T(H5T_STD_B16BE) T(H5T_STD_B16LE) T(H5T_STD_B32BE) T(H5T_STD_B32LE) T(H5T_STD_B64BE) T(H5T_STD_B64LE)
    T(H5T_STD_REF_OBJ) T(H5T_STD_REF_DSETREG) T(H5T_UNIX_D32BE) T(H5T_UNIX_D32LE) T(H5T_UNIX_D64BE)
    T(H5T_UNIX_D64LE) T(H5T_C_S1) T(H5T_FORTRAN_S1)
    T(H5T_INTEL_I8) T(H5T_INTEL_I16) T(H5T_INTEL_I32) T(H5T_INTEL_I64) T(H5T_INTEL_U8) T(H5T_INTEL_U16)
    T(H5T_INTEL_U32) T(H5T_INTEL_U64) T(H5T_INTEL_B8) T(H5T_INTEL_B16) T(H5T_INTEL_B32) T(H5T_INTEL_B64)
    T(H5T_INTEL_F32) T(H5T_INTEL_F64)
    T(H5T_ALPHA_I8) T(H5T_ALPHA_I16) T(H5T_ALPHA_I32) T(H5T_ALPHA_I64) T(H5T_ALPHA_U8) T(H5T_ALPHA_U16)
    T(H5T_ALPHA_U32) T(H5T_ALPHA_U64) T(H5T_ALPHA_B8) T(H5T_ALPHA_B16) T(H5T_ALPHA_B32) T(H5T_ALPHA_B64)
    T(H5T_ALPHA_F32) T(H5T_ALPHA_F64)
    T(H5T_MIPS_I8) T(H5T_MIPS_I16) T(H5T_MIPS_I32) T(H5T_MIPS_I64) T(H5T_MIPS_U8) T(H5T_MIPS_U16)
    T(H5T_MIPS_U32) T(H5T_MIPS_U64) T(H5T_MIPS_B8) T(H5T_MIPS_B16) T(H5T_MIPS_B32) T(H5T_MIPS_B64)
    T(H5T_MIPS_F32) T(H5T_MIPS_F64) T(H5T_VAX_F32) T(H5T_VAX_F64)
    T(H5T_NATIVE_CHAR) T(H5T_NATIVE_SCHAR) T(H5T_NATIVE_UCHAR) T(H5T_NATIVE_SHORT) T(H5T_NATIVE_USHORT)
    T(H5T_NATIVE_INT) T(H5T_NATIVE_UINT) T(H5T_NATIVE_LONG) T(H5T_NATIVE_ULONG) T(H5T_NATIVE_LLONG)
    T(H5T_NATIVE_ULLONG) T(H5T_NATIVE_FLOAT) T(H5T_NATIVE_DOUBLE) T(H5T_NATIVE_LDOUBLE) T(H5T_NATIVE_B8)
    T(H5T_NATIVE_B16) T(H5T_NATIVE_B32) T(H5T_NATIVE_B64) T(H5T_NATIVE_OPAQUE) T(H5T_NATIVE_HADDR)
    T(H5T_NATIVE_HSIZE) T(H5T_NATIVE_HSSIZE) T(H5T_NATIVE_HERR) T(H5T_NATIVE_HBOOL)
    T(H5T_NATIVE_INT8) T(H5T_NATIVE_UINT8) T(H5T_NATIVE_INT_LEAST8) T(H5T_NATIVE_UINT_LEAST8)
    T(H5T_NATIVE_INT_FAST8) T(H5T_NATIVE_UINT_FAST8) T(H5T_NATIVE_INT16) T(H5T_NATIVE_UINT16)
    T(H5T_NATIVE_INT_LEAST16) T(H5T_NATIVE_UINT_LEAST16) T(H5T_NATIVE_INT_FAST16) T(H5T_NATIVE_UINT_FAST16)
    T(H5T_NATIVE_INT32) T(H5T_NATIVE_UINT32) T(H5T_NATIVE_INT_LEAST32) T(H5T_NATIVE_UINT_LEAST32)
    T(H5T_NATIVE_INT_FAST32) T(H5T_NATIVE_UINT_FAST32) T(H5T_NATIVE_INT64) T(H5T_NATIVE_UINT64)
    T(H5T_NATIVE_INT_LEAST64) T(H5T_NATIVE_UINT_LEAST64) T(H5T_NATIVE_INT_FAST64) T(H5T_NATIVE_UINT_FAST64)
#undef T
    return -1;
}

static void run_item(const char *text, int names_mode) {
    if (names_mode) {
        hid_t t = by_name(text);
        if (t < 0) {
            fprintf(out, "ERROR\n");
            return;
        }
        hid_t c = H5Tcopy(t);
        describe(c, 0);
        H5Tclose(c);
        return;
    }
    hid_t t = H5LTtext_to_dtype(text, H5LT_DDL);
    if (t < 0) {
        fprintf(out, "ERROR\n");
        return;
    }
    describe(t, 1);
    H5Tclose(t);
}

int main(int argc, char **argv) {
    int names_mode = argc > 1 && !strcmp(argv[1], "names");
    /* Our records go to the real stdout; the reference parser prints syntax errors (and its
     * lexer echoes unmatched characters) to stdout, so point that at /dev/null. */
    int fd = dup(1);
    if (fd < 0) return 1;
    out = fdopen(fd, "w");
    if (!out || !freopen("/dev/null", "w", stdout)) return 1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    /* Read all of stdin. */
    size_t cap = 1 << 16, len = 0;
    char *in = malloc(cap);
    if (!in) return 1;
    size_t r;
    while ((r = fread(in + len, 1, cap - len, stdin)) > 0) {
        len += r;
        if (len == cap) {
            cap *= 2;
            in = realloc(in, cap);
            if (!in) return 1;
        }
    }
    in[len] = '\0';
    if (len + 1 > cap) return 1;

    /* Split into items: "%%" lines for texts, plain lines for names. */
    size_t index = 0;
    char *p = in;
    char *end = in + len;
    while (p < end) {
        char *item_end;
        char *next;
        if (names_mode) {
            item_end = strchr(p, '\n');
            if (!item_end) item_end = end;
            next = item_end < end ? item_end + 1 : end;
        } else {
            item_end = p;
            for (;;) {
                char *nl = strstr(item_end, "%%");
                if (!nl) { item_end = end; next = end; break; }
                int at_line_start = nl == in || nl[-1] == '\n';
                int at_line_end = nl[2] == '\n' || nl[2] == '\0';
                if (at_line_start && at_line_end) {
                    next = nl[2] == '\n' ? nl + 3 : nl + 2;
                    item_end = nl;
                    break;
                }
                item_end = nl + 2;
            }
        }
        size_t n = (size_t)(item_end - p);
        char *item = malloc(n + 1);
        if (!item) return 1;
        memcpy(item, p, n);
        item[n] = '\0';
        if (names_mode && n && item[n - 1] == '\r') item[n - 1] = '\0';
        p = next;
        if (names_mode && item[0] == '\0') { free(item); continue; }
        if (!names_mode && next == end && strspn(item, " \t\r\n") == n) { free(item); break; }

        fprintf(out, "ITEM %zu\n", index++);
        fflush(out);
        pid_t pid = fork();
        if (pid < 0) return 1;
        if (pid == 0) {
            run_item(item, names_mode);
            fprintf(out, "END\n");
            fflush(out);
            _exit(0);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            fprintf(out, "CRASH\nEND\n");
        fflush(out);
        free(item);
    }
    fflush(out);
    return 0;
}
