/* Opens FILE read-write with the reference library, adds a dataset NAME of five ints
 * (0, 10, ..., 40), deletes the link DELETE when given, and closes: the library then uses
 * and updates whatever the file says of its free space.
 * Usage: add_dataset FILE NAME [DELETE]. */
#include <stdio.h>
#include <stdlib.h>
#include "hdf5.h"

#define CHECK(x) do { if ((x) < 0) { fprintf(stderr, "failed: %s (line %d)\n", #x, __LINE__); exit(1); } } while (0)

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    hid_t f = H5Fopen(argv[1], H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f);
    hsize_t n = 5;
    int v[5] = {0, 10, 20, 30, 40};
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(f, argv[2], H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    H5Dclose(d);
    H5Sclose(s);
    if (argc > 3) CHECK(H5Ldelete(f, argv[3], H5P_DEFAULT));
    CHECK(H5Fclose(f));
    return 0;
}
