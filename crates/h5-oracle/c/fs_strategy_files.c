/* Writes one small file per file-space strategy of the 1.10 API, each with a superblock
 * extension holding a File Space Info message (version 1, the only one 1.10.1+ writes):
 * fsm_aggr_persist.h5, fsm_aggr.h5, aggr.h5, none.h5 and page.h5 (paged, 4096-byte pages).
 * fsm_aggr.h5 has threshold 2 (the default writes no message). Each holds a dataset "e" of ten ints and the free space of a deleted one.
 * Usage: fs_strategy_files OUTPUT_DIRECTORY. Prints the names of the files written. */
#include <stdio.h>
#include <stdlib.h>
#include "hdf5.h"

#define CHECK(x) do { if ((x) < 0) { fprintf(stderr, "failed: %s (line %d)\n", #x, __LINE__); exit(1); } } while (0)

static void dataset(hid_t f, const char *name) {
    hsize_t n = 10;
    int buf[10];
    for (int i = 0; i < 10; i++) buf[i] = i * 3;
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(f, name, H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    H5Dclose(d);
    H5Sclose(s);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    const char *names[] = {"fsm_aggr_persist.h5", "fsm_aggr.h5", "aggr.h5", "none.h5", "page.h5"};
    H5F_fspace_strategy_t strategy[] = {H5F_FSPACE_STRATEGY_FSM_AGGR, H5F_FSPACE_STRATEGY_FSM_AGGR,
                                        H5F_FSPACE_STRATEGY_AGGR, H5F_FSPACE_STRATEGY_NONE,
                                        H5F_FSPACE_STRATEGY_PAGE};
    hbool_t persist[] = {1, 0, 0, 0, 0};
    /* The default (FSM_AGGR, not persisting, threshold 1) writes no message. */
    hsize_t threshold[] = {1, 2, 1, 1, 1};
    for (int i = 0; i < 5; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", argv[1], names[i]);
        hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
        CHECK(H5Pset_file_space_strategy(fcpl, strategy[i], persist[i], threshold[i]));
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
        CHECK(f);
        dataset(f, "d");
        CHECK(H5Ldelete(f, "d", H5P_DEFAULT));
        dataset(f, "e");
        CHECK(H5Fclose(f));
        H5Pclose(fcpl);
        printf("%s\n", names[i]);
    }
    return 0;
}
