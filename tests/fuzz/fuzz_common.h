/* clvision fuzzing — helpers shared by the libFuzzer harnesses (tests/fuzz).
 * Not part of the library. Each harness includes this once. */
#ifndef CLV_FUZZ_COMMON_H
#define CLV_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clvision/io.h>

#include "io/io_internal.h"

/* Readers accept up to 2^28 pixels by default; a few-byte header claiming
 * 16384 x 16384 would then make a fuzz run spend its time (and its memory
 * limit) on legitimate gigabyte allocations. 2^20 pixels keeps every code
 * path reachable (the limit check itself included) while staying fast. */
#define FUZZ_MAX_PIXELS ((size_t)1 << 20)

/* A file in /dev/shm (else /tmp) that the harness rewrites for every input,
 * for the entry points that need a real file (fileno, fstat, a path). */
static char fuzz_path[64];

static inline void fuzz_remove_file(void)
{
    if (fuzz_path[0])
        unlink(fuzz_path);
}

/* Writes data to the harness's temporary file and returns its path (NULL on
 * failure, which the harness treats as "skip this input"). suffix names the
 * format for a reader of the file. */
static inline const char *fuzz_write_file(const uint8_t *data, size_t size, const char *suffix)
{
    if (!fuzz_path[0]) {
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        (void)suffix; /* the readers go by content: mkstemp() has no suffix */
        snprintf(fuzz_path, sizeof fuzz_path, "%s/clvfuzz-XXXXXX", dir);
        int fd = mkstemp(fuzz_path);
        if (fd < 0) {
            fuzz_path[0] = '\0';
            return NULL;
        }
        close(fd);
        atexit(fuzz_remove_file);
    }
    FILE *f = fopen(fuzz_path, "wb");
    if (!f)
        return NULL;
    size_t n = size ? fwrite(data, 1, size, f) : 0;
    if (fclose(f) != 0 || n != size)
        return NULL;
    return fuzz_path;
}

/* An in-memory stream over the input for the clv__*_read_stream readers
 * (NULL for an empty input: fmemopen refuses a zero-length buffer, and the
 * path-based harnesses cover empty files). */
static inline FILE *fuzz_open_memory(const uint8_t *data, size_t size)
{
    return size ? fmemopen((void *)data, size, "rb") : NULL;
}

/* A decoded image must be self-consistent: touch every byte so ASan sees an
 * allocation shorter than the reported size. */
static inline void fuzz_check_image(const clv_host_image *img)
{
    if (!img->data)
        abort();
    size_t bytes = (size_t)img->width * (size_t)img->channels * clv__io_type_size(img->type);
    volatile uint8_t sink = 0;
    for (int y = 0; y < img->height; y++) {
        const uint8_t *row = (const uint8_t *)img->data + (size_t)y * img->stride;
        for (size_t i = 0; i < bytes; i++)
            sink ^= row[i];
    }
    (void)sink;
}

#endif
