#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int test_failures = 0;

clv_context *test_context(void)
{
    clv_context *ctx = NULL;
    clv_status s = clv_context_create(NULL, &ctx);
    if (s == CLV_OK)
        return ctx;
    const char *req = getenv("CLV_REQUIRE_DEVICE");
    if (s == CLV_ERROR_NO_DEVICE && !(req && strcmp(req, "1") == 0) && !getenv("CLV_DEVICE")) {
        fprintf(stderr, "SKIP: no OpenCL device: %s\n", clv_context_create_error());
        exit(TEST_SKIP);
    }
    fprintf(stderr, "context creation failed: %s: %s\n", clv_status_string(s),
            clv_context_create_error());
    exit(1);
}

uint64_t test_rand(uint64_t *state)
{
    uint64_t x = *state ? *state : 0x9E3779B97F4A7C15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

void test_fill_random(void *data, size_t n, clv_pixel_type type, uint64_t seed)
{
    uint64_t st = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_rand(&st);
        switch (type) {
        case CLV_U8: ((uint8_t *)data)[i] = (uint8_t)(r >> 56); break;
        case CLV_U16: ((uint16_t *)data)[i] = (uint16_t)(r >> 48); break;
        case CLV_F32: ((float *)data)[i] = (float)((double)(r >> 11) / 9007199254740992.0 * 3.0 - 1.0); break;
        }
    }
}

const char *test_data_path(const char *name)
{
    static char buf[4096];
    const char *dir = getenv("CLV_TEST_DATA");
    snprintf(buf, sizeof buf, "%s/%s", dir ? dir : "tests/data", name);
    return buf;
}

int test_no_live_objects(const char *when)
{
    clv_live_objects l;
    clv_debug_live_objects(&l);
    if (!l.mem_objects && !l.kernels && !l.programs && !l.events && !l.queues && !l.contexts)
        return 1;
    fprintf(stderr,
            "%s: OpenCL objects alive: %llu mem, %llu kernels, %llu programs, %llu events, "
            "%llu queues, %llu contexts\n",
            when, (unsigned long long)l.mem_objects, (unsigned long long)l.kernels,
            (unsigned long long)l.programs, (unsigned long long)l.events,
            (unsigned long long)l.queues, (unsigned long long)l.contexts);
    return 0;
}

int test_finish(const char *name, int passed_checks)
{
    printf("%s: %d passed, %d failed\n", name, passed_checks, test_failures);
    return test_failures ? 1 : 0;
}

int test_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int test_dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    REQUIRE(d, "opendir %s: %s", dir, strerror(errno));
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

void test_remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[4096];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            test_remove_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

unsigned char *test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    REQUIRE(f, "cannot open %s: %s", path, strerror(errno));
    REQUIRE(fseek(f, 0, SEEK_END) == 0, "seek %s", path);
    long n = ftell(f);
    REQUIRE(n >= 0, "ftell %s", path);
    rewind(f);
    unsigned char *buf = malloc((size_t)n + 1);
    REQUIRE(buf, "out of memory");
    REQUIRE(fread(buf, 1, (size_t)n, f) == (size_t)n, "short read %s", path);
    fclose(f);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

void test_spit(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    REQUIRE(f, "cannot create %s: %s", path, strerror(errno));
    REQUIRE(fwrite(data, 1, len, f) == len && fclose(f) == 0, "cannot write %s", path);
}

int test_same_file_content(const char *path, const unsigned char *data, size_t len)
{
    size_t n;
    unsigned char *got = test_slurp(path, &n);
    int same = n == len && memcmp(got, data, len) == 0;
    free(got);
    return same;
}
