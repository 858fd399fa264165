/* The reference side of `cargo xtask bench convert`: times the reference library's
 * H5Tconvert on the conversion benchmarks (see crates/h5-bench/src/convert.rs, which runs the
 * same benchmarks through h5_types::convert and generates the same input).
 *
 *   bench_convert MIB REPS NAME|all [DUMPFILE]
 *
 * For each benchmark, N = MIB MiB / max(source size, destination size) elements are
 * generated with splitmix64 from the benchmark's seed and converted once to warm up; then
 * REPS times, the input is copied back into the buffer (H5Tconvert converts in place,
 * untimed) and converted under the clock. It prints a first line
 *
 *   # reference libhdf5 MAJ.MIN.REL
 *
 * and then one line per timed call:
 *
 *   NAME<TAB>BYTES<TAB>SECONDS<TAB>HASH
 *
 * BYTES is MIB MiB, SECONDS the timed H5Tconvert call (path lookup included), HASH the
 * FNV-1a hash (64-bit words, little-endian) of the N converted destination elements. With
 * DUMPFILE (and one NAME), the last converted bytes are also written there.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hdf5.h"

static uint64_t rng_state;
static uint64_t next_u64(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void put_le64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* Random bytes, eight at a time from one draw (little-endian); a tail takes the low bytes
 * of one more draw. */
static void fill_bytes(unsigned char *p, size_t len) {
    size_t i = 0;
    for (; i + 8 <= len; i += 8) put_le64(p + i, next_u64());
    if (i < len) {
        unsigned char w[8];
        put_le64(w, next_u64());
        memcpy(p + i, w, len - i);
    }
}

/* Doubles from 2^-64 to 2^63 in magnitude, and one in 256 near 2^200 (above the float
 * range): one draw each. */
static void fill_f64(unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next_u64();
        uint64_t e = (r & 0xff) == 0 ? 1023 + 200 : 1023 - 64 + ((r >> 52) & 127);
        uint64_t bits = (r & 0x8000000000000000ULL) | (e << 52) | (r & 0xfffffffffffffULL);
        put_le64(p + 8 * i, bits);
    }
}

/* 64-bit integers of every magnitude: a draw shifted right arithmetically by its top six
 * bits. */
static void fill_i64(unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next_u64();
        unsigned sh = (unsigned)(r >> 58);
        uint64_t v = r >> sh;
        if (sh > 0 && (r >> 63)) v |= ~(~0ULL >> sh); /* sign extension */
        put_le64(p + 8 * i, v);
    }
}

static uint64_t fnv_words(const unsigned char *p, size_t len) {
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++) w |= (uint64_t)p[i + k] << (8 * k);
        h ^= w;
        h *= 0x100000001b3ULL;
    }
    for (; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum fill_kind { FILL_BYTES, FILL_F64, FILL_I64 };

struct bench {
    const char *name;
    uint64_t seed;
    enum fill_kind fill;
};

/* Must match the list in crates/h5-bench/src/convert.rs. */
static const struct bench BENCHES[] = {
    {"i32be_to_native", 1, FILL_BYTES},
    {"f64_to_f32", 2, FILL_F64},
    {"u8_to_f64", 3, FILL_BYTES},
    {"i64_to_i16", 4, FILL_I64},
    {"compound5_to_subset2", 5, FILL_BYTES},
};

struct src5 { int a; double b; short c; float d; long long e; };
struct dst2 { double b; long long e; };

static void types_of(const char *name, hid_t *src, hid_t *dst) {
    if (!strcmp(name, "i32be_to_native")) {
        *src = H5Tcopy(H5T_STD_I32BE);
        *dst = H5Tcopy(H5T_NATIVE_INT);
    } else if (!strcmp(name, "f64_to_f32")) {
        *src = H5Tcopy(H5T_NATIVE_DOUBLE);
        *dst = H5Tcopy(H5T_NATIVE_FLOAT);
    } else if (!strcmp(name, "u8_to_f64")) {
        *src = H5Tcopy(H5T_NATIVE_UCHAR);
        *dst = H5Tcopy(H5T_NATIVE_DOUBLE);
    } else if (!strcmp(name, "i64_to_i16")) {
        *src = H5Tcopy(H5T_NATIVE_LLONG);
        *dst = H5Tcopy(H5T_NATIVE_SHORT);
    } else {
        *src = H5Tcreate(H5T_COMPOUND, sizeof(struct src5));
        H5Tinsert(*src, "a", HOFFSET(struct src5, a), H5T_NATIVE_INT);
        H5Tinsert(*src, "b", HOFFSET(struct src5, b), H5T_NATIVE_DOUBLE);
        H5Tinsert(*src, "c", HOFFSET(struct src5, c), H5T_NATIVE_SHORT);
        H5Tinsert(*src, "d", HOFFSET(struct src5, d), H5T_NATIVE_FLOAT);
        H5Tinsert(*src, "e", HOFFSET(struct src5, e), H5T_NATIVE_LLONG);
        *dst = H5Tcreate(H5T_COMPOUND, sizeof(struct dst2));
        H5Tinsert(*dst, "b", HOFFSET(struct dst2, b), H5T_NATIVE_DOUBLE);
        H5Tinsert(*dst, "e", HOFFSET(struct dst2, e), H5T_NATIVE_LLONG);
    }
}

static void *must_alloc(size_t len) {
    void *p = malloc(len ? len : 1);
    if (!p) {
        fprintf(stderr, "bench_convert: out of memory (%zu bytes)\n", len);
        exit(2);
    }
    return p;
}

static int run(const struct bench *b, size_t mib, int reps, const char *dump) {
    hid_t src, dst;
    types_of(b->name, &src, &dst);
    size_t ss = H5Tget_size(src), ds = H5Tget_size(dst);
    size_t big = ss > ds ? ss : ds;
    size_t n = (mib << 20) / big;
    unsigned char *in = must_alloc(n * ss);
    unsigned char *buf = must_alloc(n * big);
    /* A background buffer only where the conversion needs one (compounds); it keeps the
     * previous result between the two calls, as our destination buffer does. */
    int need_bkg = H5Tget_class(dst) == H5T_COMPOUND;
    unsigned char *bkg = need_bkg ? must_alloc(n * ds) : NULL;
    rng_state = b->seed;
    switch (b->fill) {
        case FILL_BYTES: fill_bytes(in, n * ss); break;
        case FILL_F64: fill_f64(in, n); break;
        case FILL_I64: fill_i64(in, n); break;
    }
    memset(buf, 0, n * big);
    if (bkg) memset(bkg, 0, n * ds);
    memcpy(buf, in, n * ss);
    if (H5Tconvert(src, dst, n, buf, bkg, H5P_DEFAULT) < 0) {
        fprintf(stderr, "bench_convert: %s: H5Tconvert failed\n", b->name);
        return 1;
    }
    for (int r = 0; r < reps; r++) {
        memcpy(buf, in, n * ss);
        double t0 = now();
        herr_t st = H5Tconvert(src, dst, n, buf, bkg, H5P_DEFAULT);
        double t1 = now();
        if (st < 0) {
            fprintf(stderr, "bench_convert: %s: H5Tconvert failed\n", b->name);
            return 1;
        }
        printf("%s\t%zu\t%.9f\t%016llx\n", b->name, mib << 20, t1 - t0,
               (unsigned long long)fnv_words(buf, n * ds));
        fflush(stdout);
    }
    if (dump) {
        FILE *f = fopen(dump, "wb");
        if (!f || fwrite(buf, 1, n * ds, f) != n * ds || fclose(f) != 0) {
            fprintf(stderr, "bench_convert: cannot write %s\n", dump);
            return 1;
        }
    }
    free(in);
    free(buf);
    free(bkg);
    H5Tclose(src);
    H5Tclose(dst);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: bench_convert MIB REPS NAME|all [DUMPFILE]\n");
        return 2;
    }
    size_t mib = (size_t)strtoull(argv[1], NULL, 10);
    int reps = atoi(argv[2]);
    const char *only = argv[3];
    const char *dump = argc > 4 ? argv[4] : NULL;
    unsigned maj, min, rel;
    H5get_libversion(&maj, &min, &rel);
    printf("# reference libhdf5 %u.%u.%u\n", maj, min, rel);
    int found = 0;
    for (size_t i = 0; i < sizeof BENCHES / sizeof BENCHES[0]; i++) {
        if (strcmp(only, "all") && strcmp(only, BENCHES[i].name)) continue;
        found = 1;
        if (run(&BENCHES[i], mib, reps, dump)) return 1;
    }
    if (!found) {
        fprintf(stderr, "bench_convert: unknown benchmark %s\n", only);
        return 2;
    }
    return 0;
}
