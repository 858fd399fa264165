/* Writes files that exercise the level-1 structures of the latest file format: extensible,
 * fixed-array and v2 B-tree chunk indexes (filtered and not, paged), dense groups and
 * attributes (fractal heaps with indirect blocks, huge objects, v2 B-trees with internal
 * nodes), a shared message index, and persistent free-space managers.
 * Usage: level1_files OUTPUT_DIRECTORY. Prints the names of the files written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hdf5.h"

#define CHECK(x) do { if ((x) < 0) { fprintf(stderr, "failed: %s (line %d)\n", #x, __LINE__); exit(1); } } while (0)

static char dir[4096];

static hid_t create(const char *name, hid_t fcpl) {
    char path[8192];
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST));
    snprintf(path, sizeof path, "%s/%s", dir, name);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
    CHECK(f);
    H5Pclose(fapl);
    printf("%s\n", name);
    return f;
}

/* A chunked int dataset of rank `rank` with `dims`, `maxdims`, `chunk`, optionally deflated,
 * written whole with a counting pattern. */
static void chunked(hid_t f, const char *name, int rank, const hsize_t *dims, const hsize_t *maxdims,
                    const hsize_t *chunk, int deflate) {
    hsize_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    int *buf = malloc(n * sizeof(int));
    for (hsize_t i = 0; i < n; i++) buf[i] = (int)(i * 7);
    hid_t space = H5Screate_simple(rank, dims, maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_chunk(dcpl, rank, chunk));
    if (deflate) CHECK(H5Pset_deflate(dcpl, 1));
    hid_t d = H5Dcreate2(f, name, H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    free(buf);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    snprintf(dir, sizeof dir, "%s", argv[1]);

    /* Chunk indexes. */
    {
        hid_t f = create("chunk_indexes.h5", H5P_DEFAULT);
        hsize_t one = 1, unl = H5S_UNLIMITED;
        /* Extensible array: one unlimited dimension, enough chunks for secondary blocks and
         * paged data blocks (pages of 1024 elements start at super block 13). */
        hsize_t ea_dims = 200000;
        chunked(f, "ea", 1, &ea_dims, &unl, &one, 0);
        hsize_t eaf_dims = 3000, four = 4;
        chunked(f, "ea_filtered", 1, &eaf_dims, &unl, &four, 1);
        /* Fixed array: fixed maximum dimensions, more than 1024 chunks (paged). */
        hsize_t fa_dims = 3000;
        chunked(f, "fa", 1, &fa_dims, NULL, &one, 0);
        chunked(f, "fa_filtered", 1, &fa_dims, NULL, &four, 1);
        /* v2 B-tree: two unlimited dimensions. */
        hsize_t bt_dims[2] = {100, 100}, bt_max[2] = {H5S_UNLIMITED, H5S_UNLIMITED}, bt_chunk[2] = {1, 1};
        chunked(f, "bt2", 2, bt_dims, bt_max, bt_chunk, 0);
        hsize_t btf_chunk[2] = {2, 2};
        chunked(f, "bt2_filtered", 2, bt_dims, bt_max, btf_chunk, 1);
        /* Single chunk and implicit indexes have no structures of their own. */
        CHECK(H5Fclose(f));
    }

    /* Dense groups and attributes. */
    {
        hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
        /* Persistent free-space managers (file client). */
        CHECK(H5Pset_file_space_strategy(fcpl, H5F_FSPACE_STRATEGY_FSM_AGGR, 1, 1));
        /* A shared message index that becomes a v2 B-tree. */
        CHECK(H5Pset_shared_mesg_nindexes(fcpl, 1));
        CHECK(H5Pset_shared_mesg_index(fcpl, 0, H5O_SHMESG_ATTR_FLAG | H5O_SHMESG_DTYPE_FLAG, 1));
        CHECK(H5Pset_shared_mesg_phase_change(fcpl, 2, 1));
        hid_t f = create("dense.h5", fcpl);
        H5Pclose(fcpl);
        hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
        CHECK(H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
        hid_t g = H5Gcreate2(f, "many", H5P_DEFAULT, gcpl, H5P_DEFAULT);
        CHECK(g);
        char name[64];
        for (int i = 0; i < 6000; i++) {
            snprintf(name, sizeof name, "link number %06d with a longer name", i);
            hid_t s = H5Gcreate2(g, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            CHECK(s);
            H5Gclose(s);
        }
        /* Free some heap space. */
        for (int i = 0; i < 6000; i += 7) {
            snprintf(name, sizeof name, "link number %06d with a longer name", i);
            CHECK(H5Ldelete(g, name, H5P_DEFAULT));
        }
        /* Dense attributes with creation order, and a huge one (bigger than the heap's
         * largest managed object). */
        hid_t ocpl = H5Pcreate(H5P_DATASET_CREATE);
        CHECK(H5Pset_attr_creation_order(ocpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED));
        CHECK(H5Pset_attr_phase_change(ocpl, 0, 0));
        hsize_t d1 = 4;
        hid_t space = H5Screate_simple(1, &d1, NULL);
        hid_t ds = H5Dcreate2(f, "with_attributes", H5T_NATIVE_INT, space, H5P_DEFAULT, ocpl, H5P_DEFAULT);
        CHECK(ds);
        for (int i = 0; i < 300; i++) {
            snprintf(name, sizeof name, "attribute %d", i);
            hid_t a = H5Acreate2(ds, name, H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT);
            CHECK(a);
            int v[4] = {i, i, i, i};
            CHECK(H5Awrite(a, H5T_NATIVE_INT, v));
            H5Aclose(a);
        }
        hsize_t big = 40000;
        hid_t bspace = H5Screate_simple(1, &big, NULL);
        hid_t a = H5Acreate2(ds, "huge", H5T_NATIVE_INT, bspace, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(a);
        int *bv = calloc(big, sizeof(int));
        CHECK(H5Awrite(a, H5T_NATIVE_INT, bv));
        free(bv);
        H5Aclose(a);
        H5Sclose(bspace);
        H5Dclose(ds);
        H5Sclose(space);
        H5Pclose(ocpl);
        H5Gclose(g);
        H5Pclose(gcpl);
        CHECK(H5Fclose(f));
    }
    return 0;
}
