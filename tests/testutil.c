#include "testutil.h"

#include <string.h>

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

int test_finish(const char *name, int passed_checks)
{
    printf("%s: %d passed, %d failed\n", name, passed_checks, test_failures);
    return test_failures ? 1 : 0;
}
