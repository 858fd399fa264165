/* Writes FILE with object references to objects that no link reaches (an anonymous dataset
 * and an anonymous committed datatype, kept alive by their reference counts, as netCDF-4's
 * dimension lists can refer to), and to linked ones: "refs" holds references to the
 * anonymous dataset, /g/x, /t, the anonymous datatype, /g and /g/x again through the hard
 * link /h; its attributes "a" (the same) and "DIMENSION_LIST" (a variable-length
 * sequence of the first two, as netCDF-4 writes dimension lists). Usage: unlinked_refs FILE. */
#include <stdio.h>
#include <stdlib.h>
#include "hdf5.h"

#define CHECK(x) do { if ((x) < 0) { fprintf(stderr, "failed: %s (line %d)\n", #x, __LINE__); exit(1); } } while (0)

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(f);
    hsize_t n = 3;
    int v[3] = {1, 2, 3};
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t anon = H5Dcreate_anon(f, H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(anon);
    CHECK(H5Dwrite(anon, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    CHECK(H5Oincr_refcount(anon));
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t x = H5Dcreate2(g, "x", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Dwrite(x, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    CHECK(H5Lcreate_hard(g, "x", f, "h", H5P_DEFAULT, H5P_DEFAULT));
    hid_t t = H5Tcopy(H5T_NATIVE_SHORT);
    CHECK(H5Tcommit2(f, "t", t, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    hid_t ta = H5Tcopy(H5T_NATIVE_DOUBLE);
    CHECK(H5Tcommit_anon(f, ta, H5P_DEFAULT, H5P_DEFAULT));
    CHECK(H5Oincr_refcount(ta));
    hobj_ref_t refs[6];
    CHECK(H5Rcreate(&refs[0], anon, ".", H5R_OBJECT, -1));
    CHECK(H5Rcreate(&refs[1], f, "/g/x", H5R_OBJECT, -1));
    CHECK(H5Rcreate(&refs[2], f, "/t", H5R_OBJECT, -1));
    CHECK(H5Rcreate(&refs[3], ta, ".", H5R_OBJECT, -1));
    CHECK(H5Rcreate(&refs[4], f, "/g", H5R_OBJECT, -1));
    CHECK(H5Rcreate(&refs[5], f, "/h", H5R_OBJECT, -1));
    hsize_t nr = 6;
    hid_t rs = H5Screate_simple(1, &nr, NULL);
    hid_t d = H5Dcreate2(f, "refs", H5T_STD_REF_OBJ, rs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Dwrite(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, refs));
    /* The same references in an attribute, and as netCDF-4's DIMENSION_LIST holds them: a
     * variable-length sequence of references. */
    hid_t a = H5Acreate2(d, "a", H5T_STD_REF_OBJ, rs, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Awrite(a, H5T_STD_REF_OBJ, refs));
    H5Aclose(a);
    hid_t vt = H5Tvlen_create(H5T_STD_REF_OBJ);
    hsize_t one = 1;
    hid_t s1 = H5Screate_simple(1, &one, NULL);
    hvl_t vl = {2, refs};
    a = H5Acreate2(d, "DIMENSION_LIST", vt, s1, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Awrite(a, vt, &vl));
    H5Aclose(a);
    H5Sclose(s1);
    H5Tclose(vt);
    H5Dclose(d);
    H5Sclose(rs);
    H5Tclose(ta);
    H5Tclose(t);
    H5Dclose(x);
    H5Gclose(g);
    H5Dclose(anon);
    H5Sclose(s);
    CHECK(H5Fclose(f));
    return 0;
}
