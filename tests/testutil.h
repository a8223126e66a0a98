/* Shared helpers for clvision tests. */
#ifndef CLV_TESTUTIL_H
#define CLV_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <clvision/clvision.h>

/* Exit code meson treats as "skipped". Used only when no OpenCL device
 * exists at all, and never when CLV_REQUIRE_DEVICE=1 (CI sets it). */
#define TEST_SKIP 77

extern int test_failures;

#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);    \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
            test_failures++;                                                             \
        }                                                                                \
    } while (0)

/* Fatal: print and exit 1. */
#define REQUIRE(cond, ...)                                                               \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: REQUIRE(%s) failed: ", __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

/* A status must be CLV_OK; prints the context's last error otherwise. */
#define REQUIRE_OK(ctx, expr)                                                            \
    do {                                                                                 \
        clv_status s_ = (expr);                                                          \
        if (s_ != CLV_OK) {                                                              \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #expr,         \
                    clv_status_string(s_), (ctx) ? clv_last_error(ctx) : "");            \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

/* Create a context with default options (CLV_DEVICE honoured). Exits 77 when
 * no OpenCL device exists at all (unless CLV_REQUIRE_DEVICE=1), 1 on any
 * other failure. */
clv_context *test_context(void);

/* Deterministic pseudo-random generator (xorshift64*). */
uint64_t test_rand(uint64_t *state);
/* Fill n values of `type` with random data: u8/u16 over the full range,
 * f32 in [-1, 2) plus a few exact values. */
void test_fill_random(void *data, size_t n, clv_pixel_type type, uint64_t seed);

/* Path of a bundled test file (CLV_TEST_DATA/name); static buffer. */
const char *test_data_path(const char *name);

/* Files and directories (exit 1 on unexpected failures). */
int test_file_exists(const char *path);
/* Entries of a directory, "." and ".." not counted. */
int test_dir_entries(const char *dir);
/* rm -rf; missing is fine. */
void test_remove_tree(const char *dir);
/* Whole file into a malloc'd buffer with a NUL after the data; *len = size. */
unsigned char *test_slurp(const char *path, size_t *len);
/* Create or replace a file with exactly these bytes. */
void test_spit(const char *path, const void *data, size_t len);
/* 1 when the file holds exactly data[0..len). */
int test_same_file_content(const char *path, const unsigned char *data, size_t len);

/* 1 when no OpenCL object made by clvision is alive in the process
 * (clv_debug_live_objects); otherwise prints the counts, prefixed by when,
 * to stderr and returns 0. */
int test_no_live_objects(const char *when);

/* Print the summary line meson and CI read, return the exit code. */
int test_finish(const char *name, int passed_checks);

#endif
