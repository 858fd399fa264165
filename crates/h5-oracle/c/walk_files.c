/* Writes files for the whole-file walk's tests of what the level-1 files do not cover:
 * variable-length data and references in every storage (global heap collections), a shared
 * message index kept as a list, paged aggregation with persistent free space, and a dense
 * group whose fractal heap has a free-space manager.
 * Usage: walk_files OUTPUT_DIRECTORY. Prints one line per file ("file NAME") and per
 * contiguous dataset of interest ("offset NAME DATASET ADDRESS", the address in decimal). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hdf5.h"

#define CHECK(x) do { if ((x) < 0) { fprintf(stderr, "failed: %s (line %d)\n", #x, __LINE__); exit(1); } } while (0)

static char dir[4096];

static hid_t create(const char *name, hid_t fcpl, int latest) {
    char path[8192];
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (latest) CHECK(H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST));
    snprintf(path, sizeof path, "%s/%s", dir, name);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
    CHECK(f);
    H5Pclose(fapl);
    printf("file %s\n", name);
    return f;
}

static void offset(const char *file, hid_t f, const char *name) {
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    CHECK(d);
    printf("offset %s %s %llu\n", file, name, (unsigned long long)H5Dget_offset(d));
    H5Dclose(d);
}

/* A dataset of `n` elements of `type` written from `buf`, with layout `layout` (0 contiguous,
 * 1 compact, 2 chunked by 4, 3 chunked by 4 and deflated). */
static void dataset(hid_t f, const char *name, hid_t type, hsize_t n, int layout, const void *buf) {
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t four = 4;
    if (layout == 1) CHECK(H5Pset_layout(dcpl, H5D_COMPACT));
    if (layout >= 2) CHECK(H5Pset_chunk(dcpl, 1, &four));
    if (layout == 3) CHECK(H5Pset_deflate(dcpl, 6));
    hid_t d = H5Dcreate2(f, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d);
    CHECK(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
}

static void vlen_file(void) {
    hid_t f = create("vlen.h5", H5P_DEFAULT, 0);
    hid_t str = H5Tcopy(H5T_C_S1);
    CHECK(H5Tset_size(str, H5T_VARIABLE));
    const char *words[8] = {"alpha", "beta", "gamma", "delta", "", "zeta", "eta", "theta"};
    dataset(f, "strings_contiguous", str, 8, 0, words);
    dataset(f, "strings_compact", str, 8, 1, words);
    dataset(f, "strings_chunked", str, 8, 2, words);
    /* Sequences of ints, and a compound with a sequence and an array of strings. */
    hid_t seq = H5Tvlen_create(H5T_NATIVE_INT);
    int values[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    hvl_t seqs[3] = {{2, values}, {0, NULL}, {5, values + 2}};
    dataset(f, "sequences", seq, 3, 0, seqs);
    hsize_t two = 2;
    hid_t arr = H5Tarray_create2(str, 1, &two);
    typedef struct { int id; hvl_t seq; const char *names[2]; } rec_t;
    hid_t rec = H5Tcreate(H5T_COMPOUND, sizeof(rec_t));
    CHECK(H5Tinsert(rec, "id", HOFFSET(rec_t, id), H5T_NATIVE_INT));
    CHECK(H5Tinsert(rec, "seq", HOFFSET(rec_t, seq), seq));
    CHECK(H5Tinsert(rec, "names", HOFFSET(rec_t, names), arr));
    rec_t recs[2] = {{1, {3, values}, {"one", "uno"}}, {2, {1, values + 9}, {"two", "dos"}}};
    dataset(f, "records", rec, 2, 0, recs);
    /* Sequences of sequences. */
    hid_t seqseq = H5Tvlen_create(seq);
    hvl_t inner[3] = {{1, values}, {2, values + 1}, {3, values + 3}};
    hvl_t outer[2] = {{2, inner}, {1, inner + 2}};
    dataset(f, "nested", seqseq, 2, 0, outer);
    /* An attribute of strings. */
    hsize_t n = 3;
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t a = H5Acreate2(f, "labels", str, space, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a);
    CHECK(H5Awrite(a, str, words));
    H5Aclose(a);
    /* An attribute of strings whose datatype is committed (a shared datatype message). */
    hid_t named = H5Tcopy(str);
    CHECK(H5Tcommit2(f, "string_type", named, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    hid_t seqd = H5Dopen2(f, "sequences", H5P_DEFAULT);
    a = H5Acreate2(seqd, "named_labels", named, space, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a);
    CHECK(H5Awrite(a, str, words + 3));
    H5Aclose(a);
    H5Dclose(seqd);
    H5Tclose(named);
    H5Sclose(space);
    /* Object and region references. */
    hobj_ref_t objs[2];
    CHECK(H5Rcreate(&objs[0], f, "sequences", H5R_OBJECT, -1));
    CHECK(H5Rcreate(&objs[1], f, "/", H5R_OBJECT, -1));
    dataset(f, "object_refs", H5T_STD_REF_OBJ, 2, 0, objs);
    hid_t d = H5Dopen2(f, "sequences", H5P_DEFAULT);
    hid_t sel = H5Dget_space(d);
    hsize_t start = 1, count = 2;
    CHECK(H5Sselect_hyperslab(sel, H5S_SELECT_SET, &start, NULL, &count, NULL));
    hdset_reg_ref_t regs[1];
    CHECK(H5Rcreate(&regs[0], f, "sequences", H5R_DATASET_REGION, sel));
    H5Sclose(sel);
    H5Dclose(d);
    dataset(f, "region_refs", H5T_STD_REF_DSETREG, 1, 0, regs);
    offset("vlen.h5", f, "strings_contiguous");
    offset("vlen.h5", f, "sequences");
    offset("vlen.h5", f, "object_refs");
    offset("vlen.h5", f, "region_refs");
    H5Tclose(seqseq);
    H5Tclose(rec);
    H5Tclose(arr);
    H5Tclose(seq);
    H5Tclose(str);
    CHECK(H5Fclose(f));

    /* Strings only in a deflated chunked dataset: their global heap collection is reached
     * only by decoding the chunks. */
    f = create("vlen_filtered.h5", H5P_DEFAULT, 0);
    str = H5Tcopy(H5T_C_S1);
    CHECK(H5Tset_size(str, H5T_VARIABLE));
    dataset(f, "strings_deflated", str, 8, 3, words);
    H5Tclose(str);
    CHECK(H5Fclose(f));
}

static void sohm_list_file(void) {
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    CHECK(H5Pset_shared_mesg_nindexes(fcpl, 2));
    CHECK(H5Pset_shared_mesg_index(fcpl, 0, H5O_SHMESG_DTYPE_FLAG | H5O_SHMESG_SDSPACE_FLAG, 1));
    CHECK(H5Pset_shared_mesg_index(fcpl, 1, H5O_SHMESG_ATTR_FLAG, 1));
    /* Lists of up to 50 messages: they stay lists. */
    CHECK(H5Pset_shared_mesg_phase_change(fcpl, 50, 40));
    hid_t f = create("sohm_list.h5", fcpl, 1);
    H5Pclose(fcpl);
    hid_t rec = H5Tcreate(H5T_COMPOUND, 16);
    CHECK(H5Tinsert(rec, "a", 0, H5T_NATIVE_INT));
    CHECK(H5Tinsert(rec, "b", 8, H5T_NATIVE_DOUBLE));
    char name[64];
    for (int i = 0; i < 6; i++) {
        hsize_t n = 3 + (hsize_t)(i % 2);
        hid_t space = H5Screate_simple(1, &n, NULL);
        snprintf(name, sizeof name, "d%d", i);
        hid_t d = H5Dcreate2(f, name, rec, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(d);
        hsize_t one = 1;
        hid_t aspace = H5Screate_simple(1, &one, NULL);
        hid_t a = H5Acreate2(d, "units", H5T_NATIVE_INT, aspace, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(a);
        int v = i % 3;
        CHECK(H5Awrite(a, H5T_NATIVE_INT, &v));
        H5Aclose(a);
        H5Sclose(aspace);
        H5Dclose(d);
        H5Sclose(space);
    }
    H5Tclose(rec);
    CHECK(H5Fclose(f));
}

static void free_space_files(void) {
    /* Paged aggregation with persistent free space; deleting datasets leaves free sections. */
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    CHECK(H5Pset_file_space_strategy(fcpl, H5F_FSPACE_STRATEGY_PAGE, 1, 1));
    CHECK(H5Pset_file_space_page_size(fcpl, 4096));
    hid_t f = create("paged.h5", fcpl, 1);
    H5Pclose(fcpl);
    char name[64];
    int buf[3000];
    for (int i = 0; i < 3000; i++) buf[i] = i;
    for (int i = 0; i < 12; i++) {
        hsize_t n = 100 + 250 * (hsize_t)i;
        hid_t space = H5Screate_simple(1, &n, NULL);
        snprintf(name, sizeof name, "d%02d", i);
        hid_t d = H5Dcreate2(f, name, H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(d);
        CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
        H5Dclose(d);
        H5Sclose(space);
    }
    for (int i = 0; i < 12; i += 3) {
        snprintf(name, sizeof name, "d%02d", i);
        CHECK(H5Ldelete(f, name, H5P_DEFAULT));
    }
    CHECK(H5Fclose(f));

    /* The free-space manager aggregation strategy, persistent, and a dense group whose
     * fractal heap keeps the space of deleted links in its own free-space manager. */
    fcpl = H5Pcreate(H5P_FILE_CREATE);
    CHECK(H5Pset_file_space_strategy(fcpl, H5F_FSPACE_STRATEGY_FSM_AGGR, 1, 1));
    f = create("fsm.h5", fcpl, 1);
    H5Pclose(fcpl);
    hid_t g = H5Gcreate2(f, "dense", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g);
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof name, "member %04d", i);
        hid_t s = H5Gcreate2(g, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(s);
        H5Gclose(s);
    }
    for (int i = 0; i < 200; i += 5) {
        snprintf(name, sizeof name, "member %04d", i);
        CHECK(H5Ldelete(g, name, H5P_DEFAULT));
    }
    for (int i = 0; i < 8; i++) {
        hsize_t n = 500;
        hid_t space = H5Screate_simple(1, &n, NULL);
        snprintf(name, sizeof name, "d%d", i);
        hid_t d = H5Dcreate2(f, name, H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(d);
        CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
        H5Dclose(d);
        H5Sclose(space);
    }
    for (int i = 0; i < 8; i += 2) {
        snprintf(name, sizeof name, "d%d", i);
        CHECK(H5Ldelete(f, name, H5P_DEFAULT));
    }
    H5Gclose(g);
    CHECK(H5Fclose(f));
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    snprintf(dir, sizeof dir, "%s", argv[1]);
    vlen_file();
    sohm_list_file();
    free_space_files();
    return 0;
}
