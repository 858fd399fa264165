/* Prints the reference library's version: the smallest oracle, used to check the harness. */
#include <stdio.h>
#include "hdf5.h"

int main(void) {
    unsigned maj, min, rel;
    if (H5get_libversion(&maj, &min, &rel) < 0) return 1;
    printf("%u.%u.%u\n", maj, min, rel);
    return 0;
}
