/* Threads and processes: 8 threads with their own contexts run mixed
 * operations at once and must give the results a single thread gives; two
 * processes building the same programs into one empty cache directory at the
 * same time must both succeed and leave only valid entries (a third process
 * then compiles nothing and rejects nothing). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

enum { W = 173, H = 91, NTHREADS = 8, ROUNDS = 3 };

typedef struct job {
    int id;
    unsigned char *out; /* concatenated outputs of the ops */
    size_t out_len;
    clv_status status;
    char err[512];
} job;

static unsigned char input[W * H * 3];

/* transpose, resize, box, gaussian and bilateral of the shared input; the
 * outputs go one after another into out. */
static clv_status run_ops(clv_context *ctx, unsigned char *out, char *err, size_t errlen)
{
    clv_image *a = NULL, *t = NULL, *r = NULL, *b = NULL, *g = NULL, *l = NULL;
    clv_status s;
#define TRY(x)                                                        \
    do {                                                              \
        s = (x);                                                      \
        if (s != CLV_OK) {                                            \
            snprintf(err, errlen, "%s: %s", #x, clv_last_error(ctx)); \
            goto done;                                                \
        }                                                             \
    } while (0)
    TRY(clv_image_create(ctx, W, H, 3, CLV_U8, &a));
    TRY(clv_image_create(ctx, H, W, 3, CLV_U8, &t));
    TRY(clv_image_create(ctx, 97, 61, 3, CLV_U8, &r));
    TRY(clv_image_create(ctx, W, H, 3, CLV_U8, &b));
    TRY(clv_image_create(ctx, W, H, 3, CLV_U8, &g));
    TRY(clv_image_create(ctx, W, H, 3, CLV_U8, &l));
    TRY(clv_image_upload(a, input, 0));
    TRY(clv_transpose(ctx, a, t));
    TRY(clv_resize(ctx, a, r));
    TRY(clv_box_filter(ctx, a, b, 7, 5, CLV_BORDER_REFLECT));
    TRY(clv_gaussian_blur(ctx, a, g, 1.7, 0.0, 0, 0, CLV_BORDER_WRAP));
    TRY(clv_bilateral(ctx, a, l, 2.0, 30.0, 0, CLV_BORDER_REFLECT101));
    size_t off = 0;
    TRY(clv_image_download(t, out + off, 0));
    off += (size_t)W * H * 3;
    TRY(clv_image_download(r, out + off, 0));
    off += (size_t)97 * 61 * 3;
    TRY(clv_image_download(b, out + off, 0));
    off += (size_t)W * H * 3;
    TRY(clv_image_download(g, out + off, 0));
    off += (size_t)W * H * 3;
    TRY(clv_image_download(l, out + off, 0));
#undef TRY
done:
    clv_image_release(a);
    clv_image_release(t);
    clv_image_release(r);
    clv_image_release(b);
    clv_image_release(g);
    clv_image_release(l);
    return s;
}

static const size_t OUT_LEN = (size_t)W * H * 3 * 4 + (size_t)97 * 61 * 3;

static void *worker(void *arg)
{
    job *j = arg;
    clv_context *ctx = NULL;
    j->status = clv_context_create(NULL, &ctx);
    if (j->status != CLV_OK) {
        snprintf(j->err, sizeof j->err, "context: %s", clv_context_create_error());
        return NULL;
    }
    for (int r = 0; r < ROUNDS && j->status == CLV_OK; r++)
        j->status = run_ops(ctx, j->out, j->err, sizeof j->err);
    clv_context_release(ctx);
    return NULL;
}

/* Child mode: build everything once against a given cache directory. */
static int child(const char *dir)
{
    clv_context_options o = clv_context_options_default();
    o.cache_dir = dir;
    o.cache = 1;
    clv_context *ctx = NULL;
    if (clv_context_create(&o, &ctx) != CLV_OK) {
        fprintf(stderr, "child: %s\n", clv_context_create_error());
        return 1;
    }
    unsigned char *out = malloc(OUT_LEN);
    char err[512] = "";
    clv_status s = out ? run_ops(ctx, out, err, sizeof err) : CLV_ERROR_OUT_OF_MEMORY;
    clv_context_stats st;
    (void)clv_context_get_stats(ctx, &st);
    printf("%llu %llu %llu %d\n", (unsigned long long)st.programs_built,
           (unsigned long long)st.cache_hits, (unsigned long long)st.cache_rejected, (int)s);
    if (s != CLV_OK)
        fprintf(stderr, "child: %s\n", err);
    free(out);
    clv_context_release(ctx);
    return s == CLV_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return child(argv[2]);
    int passed = 0;
    test_fill_random(input, sizeof input, CLV_U8, 77);

    /* single-threaded reference */
    clv_context *ctx = test_context();
    unsigned char *want = malloc(OUT_LEN);
    char err[512] = "";
    REQUIRE(want, "malloc");
    clv_status s = run_ops(ctx, want, err, sizeof err);
    REQUIRE(s == CLV_OK, "reference run: %s", err);
    clv_context_release(ctx);

    pthread_t th[NTHREADS];
    job jobs[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].id = i;
        jobs[i].out = malloc(OUT_LEN);
        REQUIRE(jobs[i].out, "malloc");
        memset(jobs[i].out, 0xCD, OUT_LEN);
        REQUIRE(pthread_create(&th[i], NULL, worker, &jobs[i]) == 0, "pthread_create");
    }
    for (int i = 0; i < NTHREADS; i++) {
        REQUIRE(pthread_join(th[i], NULL) == 0, "pthread_join");
        CHECK(jobs[i].status == CLV_OK, "thread %d: %s", i, jobs[i].err);
        CHECK(memcmp(jobs[i].out, want, OUT_LEN) == 0, "thread %d gives other results", i);
        passed += jobs[i].status == CLV_OK && memcmp(jobs[i].out, want, OUT_LEN) == 0;
        free(jobs[i].out);
    }
    free(want);
    /* every thread released its context: nothing of any of them is left */
    int none = test_no_live_objects("after the threads");
    CHECK(none, "OpenCL objects alive after the threads");
    passed += none;

    /* two processes, one empty cache directory, at the same time */
    char dir[] = "/tmp/clv-test-cache-race-XXXXXX";
    REQUIRE(mkdtemp(dir), "mkdtemp");
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "/proc/%d/exe --child '%s'", (int)getpid(), dir);
    FILE *p1 = popen(cmd, "r"), *p2 = popen(cmd, "r");
    REQUIRE(p1 && p2, "popen");
    unsigned long long b1 = 0, h1 = 0, r1 = 0, b2 = 0, h2 = 0, r2 = 0;
    int s1 = -1, s2 = -1;
    int n1 = fscanf(p1, "%llu %llu %llu %d", &b1, &h1, &r1, &s1);
    int n2 = fscanf(p2, "%llu %llu %llu %d", &b2, &h2, &r2, &s2);
    int rc1 = pclose(p1), rc2 = pclose(p2);
    CHECK(n1 == 4 && rc1 == 0 && s1 == 0, "first concurrent process failed (rc %d)", rc1);
    CHECK(n2 == 4 && rc2 == 0 && s2 == 0, "second concurrent process failed (rc %d)", rc2);
    passed += (n1 == 4 && rc1 == 0) + (n2 == 4 && rc2 == 0);
    printf("concurrent builds: built %llu + %llu, hits %llu + %llu, rejected %llu + %llu\n", b1,
           b2, h1, h2, r1, r2);
    FILE *p3 = popen(cmd, "r");
    REQUIRE(p3, "popen");
    unsigned long long b3 = 1, h3 = 0, r3 = 1;
    int s3 = -1;
    int n3 = fscanf(p3, "%llu %llu %llu %d", &b3, &h3, &r3, &s3);
    int rc3 = pclose(p3);
    CHECK(n3 == 4 && rc3 == 0 && b3 == 0 && r3 == 0 && h3 > 0,
          "third process: built %llu, rejected %llu, hits %llu (want 0, 0, > 0)", b3, r3, h3);
    passed += n3 == 4 && rc3 == 0 && b3 == 0 && r3 == 0 && h3 > 0;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    REQUIRE(system(cmd) == 0, "rm");
    return test_finish("threads", passed);
}
