/* bench/twin: helpers every host there shares (twin_opencl.c, twin_cuda.cu
 * through twin_host.h, and ptxrun.c): a whole file read into memory, and
 * the median of timings. C and C++ (nvcc) alike. */
#ifndef TWIN_UTIL_H
#define TWIN_UTIL_H
#include <stdio.h>
#include <stdlib.h>

/* The file at path, NUL-terminated (*n: its length, when n is not NULL);
 * exits with a message when it cannot be read. */
static inline char *twin_read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    const long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = (char *)malloc((size_t)len + 1);
    if (!s || fread(s, 1, (size_t)len, f) != (size_t)len) {
        fprintf(stderr, "%s: cannot read\n", path);
        exit(1);
    }
    s[len] = 0;
    fclose(f);
    if (n)
        *n = (size_t)len;
    return s;
}

static inline int twin_cmpf(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Sorts v. */
static inline float twin_median(float *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, twin_cmpf);
    return v[n / 2];
}
#endif
