/* Debug mode (CLV_DEBUG=1): out-of-bounds accesses planted in the test-only
 * kernels of tests/cl/debug_oob.cl are caught, reported as
 * CLV_ERROR_KERNEL_FAULT naming the kernel, the work-item and the index, and
 * the context keeps working afterwards. Run with CLV_DEBUG=1 (meson does). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref/ref.h"
#include "testutil.h"

#define N_ELEMS 64

static clv_context *ctx;
static int passed;
static char kernels[4096];

static clv_status run(const char *kernel, size_t global_size)
{
    return clv_debug_run_test_kernel(ctx, kernels, kernel, global_size, N_ELEMS);
}

static int contains(const char *msg, const char *part)
{
    return strstr(msg, part) != NULL;
}

static void expect_ok(const char *kernel, size_t global_size)
{
    clv_status s = run(kernel, global_size);
    CHECK(s == CLV_OK, "%s: %s: %s", kernel, clv_status_string(s), clv_last_error(ctx));
    passed += s == CLV_OK;
}

/* kernel faults, and the message names it, "load"/"store", the work-item
 * (item, 0, 0) and the element index. */
static void expect_fault(const char *kernel, size_t global_size, const char *kind,
                         unsigned item, uint32_t index)
{
    clv_status s = run(kernel, global_size);
    const char *msg = clv_last_error(ctx);
    printf("%s: %s: %s\n", kernel, clv_status_string(s), msg);
    CHECK(s == CLV_ERROR_KERNEL_FAULT, "%s: expected a kernel fault, got %s: %s", kernel,
          clv_status_string(s), msg);
    char want_item[64], want_index[64];
    snprintf(want_item, sizeof want_item, "work-item (%u, 0, 0)", item);
    snprintf(want_index, sizeof want_index, "index %" PRIu32 ",", index);
    int ok = s == CLV_ERROR_KERNEL_FAULT && contains(msg, kernel) && contains(msg, kind) &&
             contains(msg, want_item) && contains(msg, want_index);
    CHECK(ok, "%s: message should name the kernel, \"%s\", \"%s\" and \"%s\": %s", kernel, kind,
          want_item, want_index, msg);
    passed += ok;
}

/* Every work-item faults: exactly one is reported, with its own index. */
static void first_fault_wins(void)
{
    clv_status s = run("dbg_oob_all", N_ELEMS);
    const char *msg = clv_last_error(ctx);
    printf("dbg_oob_all: %s: %s\n", clv_status_string(s), msg);
    CHECK(s == CLV_ERROR_KERNEL_FAULT, "dbg_oob_all: %s", clv_status_string(s));
    const char *wi = strstr(msg, "work-item (");
    const char *ix = strstr(msg, "index ");
    unsigned item = 0, index = 0;
    int ok = s == CLV_ERROR_KERNEL_FAULT && wi && ix && sscanf(wi, "work-item (%u,", &item) == 1 &&
             sscanf(ix, "index %u", &index) == 1 && item < N_ELEMS && index == N_ELEMS + item;
    CHECK(ok, "dbg_oob_all: one work-item w and index %d + w expected: %s", N_ELEMS, msg);
    passed += ok;
}

/* A real operation on the same context, checked against the reference. */
static void context_still_works(void)
{
    const int w = 37, h = 21, cn = 3;
    void *src = th_random_pixels(w, h, cn, CLV_U8, 77);
    clv_image *s = th_upload(ctx, src, w, h, cn, CLV_U8, 0);
    clv_image *d = th_poisoned(ctx, h, w, cn, CLV_U8);
    clv_status st = clv_transpose(ctx, s, d);
    CHECK(st == CLV_OK, "transpose after faults: %s: %s", clv_status_string(st),
          clv_last_error(ctx));
    if (st == CLV_OK) {
        void *want = th_malloc(th_image_bytes(h, w, cn, CLV_U8));
        ref_transpose(src, w, h, cn, CLV_U8, want);
        passed += th_check_output(ctx, d, want, 0, REF_EXACT, "transpose after faults");
        free(want);
    }
    clv_image_release(s);
    clv_image_release(d);
    free(src);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *dbg = getenv("CLV_DEBUG");
    /* Without debug mode the planted accesses would really leave the buffer. */
    REQUIRE(dbg && strcmp(dbg, "1") == 0, "run with CLV_DEBUG=1 in the environment");
    const char *dir = getenv("CLV_TEST_KERNELS");
    REQUIRE(dir && *dir, "CLV_TEST_KERNELS must name the directory of debug_oob.cl");
    snprintf(kernels, sizeof kernels, "%s/debug_oob.cl", dir);
    ctx = test_context();
    printf("device: %s (%s)\n", clv_context_device_name(ctx), clv_context_platform_name(ctx));

    expect_ok("dbg_in_bounds", N_ELEMS);
    /* a range larger than the buffer: the kernel's own guard keeps it inside */
    expect_ok("dbg_in_bounds", 3 * N_ELEMS);

    expect_fault("dbg_oob_load", N_ELEMS, "load", 5, N_ELEMS + 7);
    expect_ok("dbg_in_bounds", N_ELEMS); /* the fault record is cleared for the next launch */
    expect_fault("dbg_oob_store", N_ELEMS, "store", 9, N_ELEMS + 3);
    expect_fault("dbg_oob_negative", N_ELEMS, "load", 2, UINT32_MAX); /* element -1 */
    expect_fault("dbg_oob_vload", N_ELEMS / 4, "load", 3, N_ELEMS - 2);
    expect_fault("dbg_oob_vstore", N_ELEMS / 4, "store", 6, N_ELEMS - 1);
    expect_ok("dbg_vstorea_ok", N_ELEMS / 4);
    expect_fault("dbg_oob_vstorea", N_ELEMS / 4, "out-of-bounds store", 7, N_ELEMS);
    expect_fault("dbg_misaligned_vstorea", N_ELEMS / 4, "misaligned vector store", 4, 17);
    first_fault_wins();

    /* still usable: the in-bounds kernel and a library operation */
    expect_ok("dbg_in_bounds", N_ELEMS);
    context_still_works();

    clv_context_release(ctx);
    return test_finish("debug", passed);
}
