/* Runtime: device selection forms, program cache across processes, corrupt
 * cache entries, missing kernel sources, build failures, argument checks,
 * profiling. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "testutil.h"

static int passed = 0;
/* cond is evaluated once: it is often a call that creates something. */
#define T(cond, ...)                                                                     \
    do {                                                                                 \
        if (cond) {                                                                      \
            passed++;                                                                    \
        } else {                                                                         \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);    \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
            test_failures++;                                                             \
        }                                                                                \
    } while (0)

/* Run all four ops once on a small image; returns 0 when the transpose
 * round trip and a 1x1 box give back the input. */
static int run_ops(clv_context *ctx)
{
    enum { W = 19, H = 7, CN = 3 };
    unsigned char in[W * H * CN], out[W * H * CN];
    test_fill_random(in, sizeof in, CLV_U8, 42);
    clv_image *a = NULL, *b = NULL, *t = NULL, *r = NULL;
    int bad = 0;
    REQUIRE_OK(ctx, clv_image_create(ctx, W, H, CN, CLV_U8, &a));
    REQUIRE_OK(ctx, clv_image_create(ctx, W, H, CN, CLV_U8, &b));
    REQUIRE_OK(ctx, clv_image_create(ctx, H, W, CN, CLV_U8, &t));
    REQUIRE_OK(ctx, clv_image_create(ctx, 10, 10, CN, CLV_U8, &r));
    REQUIRE_OK(ctx, clv_image_upload(a, in, 0));
    REQUIRE_OK(ctx, clv_transpose(ctx, a, t));
    REQUIRE_OK(ctx, clv_transpose(ctx, t, b));
    REQUIRE_OK(ctx, clv_image_download(b, out, 0));
    bad |= memcmp(in, out, sizeof in) != 0;
    REQUIRE_OK(ctx, clv_box_filter(ctx, a, b, 1, 1, CLV_BORDER_REFLECT101));
    REQUIRE_OK(ctx, clv_image_download(b, out, 0));
    bad |= memcmp(in, out, sizeof in) != 0;
    REQUIRE_OK(ctx, clv_gaussian_blur(ctx, a, b, 1.0, 0.0, 0, 0, CLV_BORDER_REFLECT101));
    REQUIRE_OK(ctx, clv_resize(ctx, a, r));
    REQUIRE_OK(ctx, clv_finish(ctx));
    clv_image_release(a);
    clv_image_release(b);
    clv_image_release(t);
    clv_image_release(r);
    return bad;
}

/* Child mode: `test_runtime --child CACHE_DIR` prints "built hits rejected bad". */
static int child(const char *cache_dir)
{
    clv_context_options o = clv_context_options_default();
    o.cache_dir = cache_dir;
    o.cache = 1;
    clv_context *ctx = NULL;
    clv_status s = clv_context_create(&o, &ctx);
    if (s != CLV_OK) {
        fprintf(stderr, "child: %s\n", clv_context_create_error());
        return 1;
    }
    int bad = run_ops(ctx);
    clv_context_stats st;
    REQUIRE_OK(ctx, clv_context_get_stats(ctx, &st));
    printf("%llu %llu %llu %d\n", (unsigned long long)st.programs_built,
           (unsigned long long)st.cache_hits, (unsigned long long)st.cache_rejected, bad);
    clv_context_release(ctx);
    return 0;
}

typedef struct { unsigned long long built, hits, rejected; int bad; } child_result;

static child_result run_child(const char *cache_dir)
{
    child_result r = {0, 0, 0, 1};
    /* The program's path, not /proc/PID/exe itself: under valgrind that is
     * valgrind's own binary (valgrind answers this readlink with ours). */
    char self[4096], cmd[8192 + 4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    REQUIRE(len > 0, "readlink /proc/self/exe failed");
    self[len] = '\0';
    snprintf(cmd, sizeof cmd, "'%s' --child '%s'", self, cache_dir);
    FILE *p = popen(cmd, "r");
    REQUIRE(p, "popen failed");
    int n = fscanf(p, "%llu %llu %llu %d", &r.built, &r.hits, &r.rejected, &r.bad);
    int rc = pclose(p);
    REQUIRE(n == 4 && rc == 0, "child process failed (n=%d rc=%d)", n, rc);
    return r;
}

static uint64_t get_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void put_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* The check hash of the old entry format (CLVBIN01): FNV-1a 64, seeded. A
 * frozen copy on purpose: it forges entries of that retired format, so it must
 * not follow the library's clv__hash64 (which still names things) if that
 * ever changes. */
static uint64_t old_hash64(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull ^ (seed * 0x9E3779B97F4A7C15ull);
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h;
}

static int list_cache(const char *dir, char names[][512], int max)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        if (strstr(e->d_name, ".clvbin") && !strstr(e->d_name, ".tmp"))
            snprintf(names[n++], 512, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    return n;
}

static void test_cache(void)
{
    char dir[] = "/tmp/clv-test-cache-XXXXXX";
    REQUIRE(mkdtemp(dir), "mkdtemp");

    child_result first = run_child(dir);
    T(first.built > 0 && first.hits == 0, "first process built %llu, hit %llu", first.built,
      first.hits);
    T(first.bad == 0, "ops wrong in first process");
    child_result second = run_child(dir);
    T(second.built == 0, "second process compiled %llu programs (expected 0)", second.built);
    T(second.hits == first.built, "second process hit %llu of %llu", second.hits, first.built);
    T(second.bad == 0, "ops wrong with cached binaries");

    /* Damage entries three ways: truncate, flip a byte in the binary, and
     * swap one entry's content into another's name (key mismatch). */
    char names[64][512];
    int n = list_cache(dir, names, 64);
    T(n == (int)first.built, "cache holds %d entries, expected %llu", n, first.built);
    REQUIRE(n >= 4, "need four cache entries, have %d", n);
    REQUIRE(truncate(names[0], 100) == 0, "truncate");
    FILE *f = fopen(names[1], "r+b");
    REQUIRE(f, "open entry");
    fseek(f, -200, SEEK_END);
    int c = fgetc(f);
    fseek(f, -200, SEEK_END);
    fputc(c ^ 0x5A, f);
    fclose(f);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", names[3], names[2]);
    REQUIRE(system(cmd) == 0, "cp");

    child_result third = run_child(dir);
    T(third.rejected == 3, "third process rejected %llu entries, expected 3", third.rejected);
    T(third.built == 3, "third process rebuilt %llu programs, expected 3", third.built);
    T(third.bad == 0, "ops wrong after rebuilding corrupt entries");
    child_result fourth = run_child(dir);
    T(fourth.built == 0 && fourth.rejected == 0, "after repair: built %llu rejected %llu",
      fourth.built, fourth.rejected);

    /* Truncated binaries whose length field was fixed up (issue 13 #2): in
     * the old format with its check value recomputed, and in the current
     * format with the old SHA-256 left in place. Neither reaches the driver. */
    n = list_cache(dir, names, 64);
    REQUIRE(n >= 4, "need four cache entries, have %d", n);
    for (int k = 0; k < 2; k++) {
        size_t len = 0;
        unsigned char *e = test_slurp(names[k], &len);
        size_t klen = (size_t)get_le64(e + 8);
        REQUIRE(16 + klen + 8 + 32 < len, "entry layout");
        unsigned char *bin = e + 16 + klen + 8;
        size_t blen = (size_t)get_le64(e + 16 + klen);
        REQUIRE(16 + klen + 8 + blen + 32 == len, "entry layout (binary length)");
        size_t cut = blen / 2;
        put_le64(e + 16 + klen, cut);
        if (k == 0) {
            memcpy(e, "CLVBIN01", 8);
            put_le64(bin + cut, old_hash64(e + 16, klen, 3) ^ old_hash64(bin, cut, 4));
            test_spit(names[k], e, 16 + klen + 8 + cut + 8);
        } else {
            memmove(bin + cut, bin + blen, 32);
            test_spit(names[k], e, 16 + klen + 8 + cut + 32);
        }
        free(e);
    }
    child_result fifth = run_child(dir);
    T(fifth.rejected == 2 && fifth.built == 2 && fifth.bad == 0,
      "truncated binaries: rejected %llu built %llu bad %d (expected 2 2 0)", fifth.rejected,
      fifth.built, fifth.bad);

    /* Entries that are not the user's own regular files: group/other
     * writable, a FIFO (opening it must not hang), a symlink to a valid
     * entry, and (as root) another user's file. */
    n = list_cache(dir, names, 64);
    REQUIRE(n >= 4, "need four cache entries, have %d", n);
    REQUIRE(chmod(names[0], 0666) == 0, "chmod");
    char moved[600];
    snprintf(moved, sizeof moved, "%s.moved", names[2]);
    REQUIRE(rename(names[1], moved) == 0, "rename");
    REQUIRE(mkfifo(names[1], 0600) == 0, "mkfifo");
    REQUIRE(unlink(names[2]) == 0 && symlink(moved, names[2]) == 0, "symlink");
    unsigned long long want = 3;
    if (geteuid() == 0) {
        REQUIRE(chown(names[3], 12345, 12345) == 0, "chown");
        want = 4;
    } else {
        fprintf(stderr, "note: not root, foreign-owner entry not tested\n");
    }
    child_result sixth = run_child(dir);
    T(sixth.rejected == want && sixth.built == want && sixth.bad == 0,
      "untrusted entries: rejected %llu built %llu bad %d (expected %llu)", sixth.rejected,
      sixth.built, sixth.bad, want);
    (void)unlink(moved);
    child_result seventh = run_child(dir);
    T(seventh.built == 0 && seventh.rejected == 0, "after replacing untrusted entries: built "
      "%llu rejected %llu", seventh.built, seventh.rejected);

    /* An untrusted directory: group/other writable, or (as root) another
     * user's. Nothing is loaded from it (every lookup rejected), nothing
     * deleted or written; trusted again, its entries are used. */
    for (int k = 0; k < 2; k++) {
        if (k == 0)
            REQUIRE(chmod(dir, 0777) == 0, "chmod dir");
        else if (geteuid() == 0)
            REQUIRE(chown(dir, 12345, 12345) == 0, "chown dir");
        else
            break;
        child_result r = run_child(dir);
        T(r.hits == 0 && r.built == first.built && r.rejected == first.built && r.bad == 0,
          "untrusted dir (%s): hits %llu built %llu rejected %llu", k ? "owner" : "mode", r.hits,
          r.built, r.rejected);
        REQUIRE(chmod(dir, 0700) == 0 && chown(dir, geteuid(), getegid()) == 0, "restore dir");
        T(list_cache(dir, names, 64) == (int)first.built, "untrusted dir was modified");
        r = run_child(dir);
        T(r.built == 0 && r.rejected == 0, "trusted again: built %llu rejected %llu", r.built,
          r.rejected);
    }

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    REQUIRE(system(cmd) == 0, "rm");
}

/* FIPS 180-2 / NIST CAVP SHA-256 test vectors against the cache's hash. */
static void test_sha256(void)
{
    static const struct {
        const char *msg;
        const char *hex;
    } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnop"
         "qrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    char hex[65];
    unsigned char d[32];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        clv_debug_sha256(v[i].msg, strlen(v[i].msg), d);
        for (int k = 0; k < 32; k++)
            snprintf(hex + 2 * k, 3, "%02x", d[k]);
        T(strcmp(hex, v[i].hex) == 0, "sha256 vector %zu: %s", i, hex);
    }
    char *million = malloc(1000000);
    REQUIRE(million, "malloc");
    memset(million, 'a', 1000000);
    clv_debug_sha256(million, 1000000, d);
    free(million);
    for (int k = 0; k < 32; k++)
        snprintf(hex + 2 * k, 3, "%02x", d[k]);
    T(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0,
      "sha256 of a million 'a': %s", hex);
}

static int has_device_type(const char *type)
{
    char buf[16384];
    if (clv_list_devices(buf, sizeof buf) != CLV_OK)
        return 0;
    char pat[32];
    snprintf(pat, sizeof pat, "  %-4s  ", type);
    return strstr(buf, pat) != NULL;
}

static void test_device_forms(void)
{
    clv_context *ctx = NULL;
    char devs[16384];
    T(clv_list_devices(devs, sizeof devs) == CLV_OK && strlen(devs) > 0, "list devices");

    /* Default choice, then each explicit form that must find that device. */
    REQUIRE(clv_context_create(NULL, &ctx) == CLV_OK, "%s", clv_context_create_error());
    char name[256];
    snprintf(name, sizeof name, "%s", clv_context_device_name(ctx));
    clv_context_release(ctx);

    const char *forms[] = {"0:0", "cpu", "gpu", "PORTABLE computing", "nvidia"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        const char *f = forms[i];
        int expect_ok;
        if (strcmp(f, "cpu") == 0)
            expect_ok = has_device_type("cpu");
        else if (strcmp(f, "gpu") == 0)
            expect_ok = has_device_type("gpu");
        else if (strcmp(f, "0:0") == 0)
            expect_ok = 1;
        else {
            /* substring forms: expected iff the listing mentions it */
            char lower[16384], pat[64];
            size_t k;
            for (k = 0; devs[k] && k + 1 < sizeof lower; k++)
                lower[k] = (char)(devs[k] >= 'A' && devs[k] <= 'Z' ? devs[k] + 32 : devs[k]);
            lower[k] = '\0';
            for (k = 0; f[k] && k + 1 < sizeof pat; k++)
                pat[k] = (char)(f[k] >= 'A' && f[k] <= 'Z' ? f[k] + 32 : f[k]);
            pat[k] = '\0';
            expect_ok = strstr(lower, pat) != NULL;
        }
        for (int via_env = 0; via_env < 2; via_env++) {
            clv_context_options o = clv_context_options_default();
            if (via_env)
                setenv("CLV_DEVICE", f, 1);
            else
                o.device = f;
            clv_status s = clv_context_create(&o, &ctx);
            unsetenv("CLV_DEVICE");
            if (expect_ok) {
                T(s == CLV_OK, "device spec '%s' (%s) failed: %s", f, via_env ? "env" : "option",
                  clv_context_create_error());
                if (s == CLV_OK && strcmp(f, "cpu") == 0)
                    T(strstr(devs, clv_context_device_name(ctx)) != NULL, "cpu device listed");
                if (s == CLV_OK)
                    T(run_ops(ctx) == 0, "ops on '%s'", f);
            } else {
                T(s == CLV_ERROR_NO_DEVICE, "spec '%s' should match nothing, got %s", f,
                  clv_status_string(s));
                T(strstr(clv_context_create_error(), "available") != NULL,
                  "error lists devices: %s", clv_context_create_error());
            }
            clv_context_release(ctx);
            ctx = NULL;
        }
    }
    clv_context_options o = clv_context_options_default();
    o.device = "no-such-device-xyz";
    T(clv_context_create(&o, &ctx) == CLV_ERROR_NO_DEVICE && ctx == NULL, "bogus spec");
    T(strstr(clv_context_create_error(), name) != NULL,
      "message names the existing device '%s': %s", name, clv_context_create_error());
    o.device = "99:0";
    T(clv_context_create(&o, &ctx) == CLV_ERROR_NO_DEVICE, "99:0 must not match");
    /* Explicit option wins over CLV_DEVICE. */
    setenv("CLV_DEVICE", "no-such-device-xyz", 1);
    o.device = "0:0";
    T(clv_context_create(&o, &ctx) == CLV_OK, "option overrides env: %s",
      clv_context_create_error());
    clv_context_release(ctx);
    ctx = NULL;
    o.device = NULL;
    T(clv_context_create(&o, &ctx) == CLV_ERROR_NO_DEVICE, "env used when option unset");
    unsetenv("CLV_DEVICE");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    REQUIRE(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

/* fd 2 into a temporary file while a call runs: stderr_begin() returns the
 * saved descriptor, stderr_end() restores it and returns what was written
 * (malloc'd). */
static int stderr_begin(FILE **tmp)
{
    fflush(stderr);
    *tmp = tmpfile();
    REQUIRE(*tmp, "tmpfile");
    int saved = dup(2);
    REQUIRE(saved >= 0 && dup2(fileno(*tmp), 2) >= 0, "redirect fd 2");
    return saved;
}

static char *stderr_end(int saved, FILE *tmp)
{
    fflush(stderr);
    REQUIRE(dup2(saved, 2) >= 0, "restore fd 2");
    close(saved);
    long n = ftell(tmp);
    REQUIRE(n >= 0, "ftell");
    char *text = calloc(1, (size_t)n + 1);
    REQUIRE(text, "calloc");
    rewind(tmp);
    REQUIRE(fread(text, 1, (size_t)n, tmp) == (size_t)n, "fread");
    fclose(tmp);
    return text;
}

/* Lines of text (a last line without a newline counts). */
static int count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    if (*text && text[strlen(text) - 1] != '\n')
        n++;
    return n;
}

static void test_kernel_sources(void)
{
    clv_context *ctx = NULL;
    clv_context_options o = clv_context_options_default();
    o.kernel_path = "/nonexistent/clv-kernels";
    clv_status s = clv_context_create(&o, &ctx);
    T(s == CLV_ERROR_KERNEL_SOURCE, "missing dir: %s", clv_status_string(s));
    T(strstr(clv_context_create_error(), "/nonexistent/clv-kernels/common.cl") != NULL,
      "message names the path tried: %s", clv_context_create_error());
    const char *saved = getenv("CLV_KERNEL_PATH");
    char saved_copy[4096] = "";
    if (saved)
        snprintf(saved_copy, sizeof saved_copy, "%s", saved);
    setenv("CLV_KERNEL_PATH", "/nonexistent/env-kernels", 1);
    s = clv_context_create(NULL, &ctx);
    T(s == CLV_ERROR_KERNEL_SOURCE && strstr(clv_context_create_error(), "/nonexistent/env-kernels"),
      "CLV_KERNEL_PATH honoured: %s", clv_context_create_error());
    if (saved)
        setenv("CLV_KERNEL_PATH", saved_copy, 1);
    else
        unsetenv("CLV_KERNEL_PATH");

    /* A directory with a copy of the kernels, then one file removed, then a
     * syntax error planted. */
    const char *src = saved ? saved_copy : "cl";
    char dir[] = "/tmp/clv-test-kernels-XXXXXX";
    REQUIRE(mkdtemp(dir), "mkdtemp");
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cp '%s'/*.cl '%s'/", src, dir);
    REQUIRE(system(cmd) == 0, "copy kernels from %s", src);
    char path[4200];
    snprintf(path, sizeof path, "%s/box.cl", dir);
    REQUIRE(rename(path, "/tmp/clv-box-moved.cl") == 0 || unlink(path) == 0, "move box.cl");
    o = clv_context_options_default();
    o.kernel_path = dir;
    o.cache = -1;
    s = clv_context_create(&o, &ctx);
    T(s == CLV_ERROR_KERNEL_SOURCE && strstr(clv_context_create_error(), path),
      "missing box.cl named: %s", clv_context_create_error());
    /* Not regular files where box.cl belongs (issue 13 #6, #12): a FIFO
     * (opening it used to block forever), a link to /dev/zero (read until
     * memory ran out) and a file over the size limit; a link to a regular
     * file is fine. */
    {
        const char *what[] = {"FIFO", "character device", "limit"};
        for (int k = 0; k < 3; k++) {
            (void)unlink(path);
            if (k == 0)
                REQUIRE(mkfifo(path, 0600) == 0, "mkfifo");
            else if (k == 1)
                REQUIRE(symlink("/dev/zero", path) == 0, "symlink");
            else {
                write_file(path, "/* sparse */");
                REQUIRE(truncate(path, (off_t)CLV_MAX_KERNEL_SOURCE_BYTES + 1) == 0, "truncate");
            }
            alarm(30); /* a hang fails the test instead of stalling the suite */
            s = clv_context_create(&o, &ctx);
            alarm(0);
            T(s == CLV_ERROR_KERNEL_SOURCE && strstr(clv_context_create_error(), path) &&
                  strstr(clv_context_create_error(), what[k]),
              "box.cl as %s: %s: %s", what[k], clv_status_string(s), clv_context_create_error());
            clv_context_release(ctx);
            ctx = NULL;
        }
        (void)unlink(path);
        char real[4300];
        snprintf(real, sizeof real, "%s/box-real.cl", dir);
        snprintf(cmd, sizeof cmd, "cp '%s/box.cl' '%s'", src, real);
        REQUIRE(system(cmd) == 0, "copy box.cl");
        REQUIRE(symlink(real, path) == 0, "symlink");
        s = clv_context_create(&o, &ctx);
        T(s == CLV_OK, "box.cl as a symlink: %s", clv_context_create_error());
        clv_context_release(ctx);
        ctx = NULL;
        (void)unlink(path);
    }
    write_file(path, "/* planted error */\n__kernel void box_rows(__global int *p) { p[0] = ; }\n");
    s = clv_context_create(&o, &ctx);
    T(s == CLV_OK, "context with broken box.cl still creates: %s", clv_context_create_error());
    if (s == CLV_OK) {
        clv_image *a = NULL, *b = NULL;
        REQUIRE_OK(ctx, clv_image_create(ctx, 8, 8, 1, CLV_U8, &a));
        REQUIRE_OK(ctx, clv_image_create(ctx, 8, 8, 1, CLV_U8, &b));
        /* Nothing from the driver's compiler on stderr (issue 13 #5): its
         * output is in the message instead. */
        FILE *cap = NULL;
        int saved_fd = stderr_begin(&cap);
        s = clv_box_filter(ctx, a, b, 3, 3, CLV_BORDER_REPLICATE);
        char *chatter = stderr_end(saved_fd, cap);
        T(chatter[0] == '\0', "failed build wrote to stderr: [%s]", chatter);
        free(chatter);
        const char *msg = clv_last_error(ctx);
        T(s == CLV_ERROR_BUILD, "broken kernel gives CLV_ERROR_BUILD, got %s", clv_status_string(s));
        T(strstr(msg, "-DBORDER=BORDER_REPLICATE") != NULL, "message has options: %s", msg);
        T(strstr(msg, "box.cl") != NULL && strstr(msg, "log") != NULL,
          "message has the build log naming box.cl: %s", msg);
        T(strstr(msg, "expected expression") != NULL, "message has the compiler's error: %s",
          msg);
        /* An arbitrary file through the test-kernel hook: same rule. */
        char bad_cl[4300];
        snprintf(bad_cl, sizeof bad_cl, "%s/broken_test.cl", dir);
        write_file(bad_cl, "__kernel void k(__global float *p, int n) { p[0] = n +; }\n");
        saved_fd = stderr_begin(&cap);
        s = clv_debug_run_test_kernel(ctx, bad_cl, "k", 1, 4);
        chatter = stderr_end(saved_fd, cap);
        T(s == CLV_ERROR_BUILD, "broken test kernel: %s", clv_status_string(s));
        T(chatter[0] == '\0', "failed test-kernel build wrote to stderr: [%s]", chatter);
        T(strstr(clv_last_error(ctx), "broken_test.cl") != NULL, "log names the file: %s",
          clv_last_error(ctx));
        free(chatter);
        /* A successful build keeps the application's own stderr output. */
        saved_fd = stderr_begin(&cap);
        fprintf(stderr, "app line\n");
        T(clv_gaussian_blur(ctx, a, b, 1.0, 0.0, 0, 0, CLV_BORDER_REPLICATE) == CLV_OK,
          "gaussian: %s", clv_last_error(ctx));
        chatter = stderr_end(saved_fd, cap);
        T(strcmp(chatter, "app line\n") == 0, "application's stderr kept: [%s]", chatter);
        free(chatter);
        /* Other families keep working. */
        T(clv_transpose(ctx, a, b) == CLV_OK, "transpose after failed build: %s",
          clv_last_error(ctx));
        clv_image_release(a);
        clv_image_release(b);
        clv_context_release(ctx);
        ctx = NULL;
    }
    /* The CLI with the broken box.cl: exactly one line on stderr. */
    const char *cli = getenv("CLV_CLI");
    REQUIRE(cli, "CLV_CLI not set (run through meson test)");
    snprintf(cmd, sizeof cmd,
             "CLV_CACHE=0 CLV_KERNEL_PATH='%s' '%s' box --ksize 3x3 '%s' '%s/out.png' "
             "2>'%s/stderr.txt'",
             dir, cli, test_data_path("camera.png"), dir, dir);
    int rc = system(cmd);
    T(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "CLI exit status %d", rc);
    char errpath[4300];
    snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);
    size_t errlen = 0;
    char *errtext = (char *)test_slurp(errpath, &errlen);
    T(count_lines(errtext) == 1 && strncmp(errtext, "clv: ", 5) == 0 &&
          strstr(errtext, "box.cl") != NULL,
      "CLI: one stderr line, got [%s]", errtext);
    free(errtext);
    snprintf(errpath, sizeof errpath, "%s/out.png", dir);
    T(!test_file_exists(errpath), "CLI left an output file");
    snprintf(cmd, sizeof cmd, "rm -rf '%s' /tmp/clv-box-moved.cl", dir);
    REQUIRE(system(cmd) == 0, "rm");
}

static void test_misc(void)
{
    T(clv_context_create(NULL, NULL) == CLV_ERROR_INVALID_ARGUMENT, "NULL out");
    T(clv_finish(NULL) == CLV_ERROR_INVALID_ARGUMENT, "finish NULL");
    clv_context_release(NULL);
    T(strcmp(clv_status_string(CLV_OK), "ok") == 0, "status string");
    const clv_status all[] = {CLV_OK, CLV_ERROR_INVALID_ARGUMENT, CLV_ERROR_OUT_OF_MEMORY,
                              CLV_ERROR_NO_DEVICE, CLV_ERROR_OPENCL, CLV_ERROR_BUILD,
                              CLV_ERROR_KERNEL_SOURCE, CLV_ERROR_UNSUPPORTED, CLV_ERROR_IO,
                              CLV_ERROR_FORMAT, CLV_ERROR_KERNEL_FAULT};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        T((int)all[i] == -(int)i, "pinned value of status %zu", i);
        for (size_t j = 0; j < i; j++)
            T(strcmp(clv_status_string(all[i]), clv_status_string(all[j])) != 0,
              "distinct strings %zu %zu", i, j);
    }
    T(strcmp(clv_status_string((clv_status)-999), "unknown status") == 0, "unknown status");
    T(strlen(clv_version()) > 0 && strcmp(clv_version(), CLV_VERSION_STRING) == 0, "version");

    clv_border b;
    T(clv_border_from_string("Reflect101", &b) == CLV_OK && b == CLV_BORDER_REFLECT101, "b1");
    T(clv_border_from_string("wrap", &b) == CLV_OK && b == CLV_BORDER_WRAP, "b2");
    T(clv_border_from_string("mirror", &b) == CLV_ERROR_INVALID_ARGUMENT, "b3");
    T(clv_border_from_string(NULL, &b) == CLV_ERROR_INVALID_ARGUMENT, "b4");

    /* Profiling off: device time is refused; on: it is positive. */
    clv_context *ctx = test_context();
    double ms = -1;
    T(clv_last_op_device_time(ctx, &ms) != CLV_OK, "no profiling -> error");
    clv_context_release(ctx);
    clv_context_options o = clv_context_options_default();
    o.profiling = 1;
    REQUIRE(clv_context_create(&o, &ctx) == CLV_OK, "%s", clv_context_create_error());
    T(clv_last_op_device_time(ctx, &ms) == CLV_ERROR_INVALID_ARGUMENT, "no op yet");
    clv_image *a = NULL, *c = NULL;
    REQUIRE_OK(ctx, clv_image_create(ctx, 640, 480, 3, CLV_U8, &a));
    REQUIRE_OK(ctx, clv_image_create(ctx, 640, 480, 3, CLV_U8, &c));
    /* A 33x127 Gaussian is two passes (two launches) on every device: the
     * window is taller than the CPU band kernel's ring (32 rows), and its
     * halo (63 rows) taller than any block of the GPU one-pass kernel that
     * fits 32 KiB of local memory */
    REQUIRE_OK(ctx, clv_gaussian_blur(ctx, a, c, 6.0, 6.0, 33, 127, CLV_BORDER_REFLECT101));
    REQUIRE_OK(ctx, clv_finish(ctx));
    T(clv_last_op_device_time(ctx, &ms) == CLV_OK && ms > 0.0, "device time %g ms", ms);
    clv_context_stats st;
    T(clv_context_get_stats(ctx, &st) == CLV_OK && st.kernels_launched == 2,
      "gaussian 33x127 = 2 launches (%llu)", (unsigned long long)st.kernels_launched);
    /* Errors carry the op name; a failing call leaves the message. */
    T(clv_box_filter(ctx, a, c, 0, 3, CLV_BORDER_REFLECT101) == CLV_ERROR_INVALID_ARGUMENT &&
          strstr(clv_last_error(ctx), "box_filter") != NULL,
      "op name in message: %s", clv_last_error(ctx));
    T(clv_box_filter(ctx, a, c, 3, 3, (clv_border)77) == CLV_ERROR_INVALID_ARGUMENT, "border 77");
    /* Images of another context are refused. */
    clv_context *other = test_context();
    clv_image *x = NULL;
    REQUIRE_OK(other, clv_image_create(other, 640, 480, 3, CLV_U8, &x));
    T(clv_box_filter(ctx, a, x, 3, 3, CLV_BORDER_REFLECT101) == CLV_ERROR_INVALID_ARGUMENT &&
          strstr(clv_last_error(ctx), "another context"),
      "foreign image: %s", clv_last_error(ctx));
    clv_image_release(x);
    clv_context_release(other);
    clv_image_release(a);
    clv_image_release(c);
    clv_context_release(ctx);
}

/* ---- `test_runtime --limits`: run under tests/limits/cl_limits.c ----
 * (meson test 'runtime-limits': CLV_LIMIT_LOCAL_MEM=32768, CLV_LIMIT_WG=64,
 * POCL_MAX_WORK_GROUP_SIZE=64, CLV_TUNE=generic). */

static unsigned long long env_ull(const char *name)
{
    const char *s = getenv(name);
    return s ? strtoull(s, NULL, 10) : 0;
}

/* The interposer takes effect: every device reports the lowered limits. */
static void limits_reported(void)
{
    const unsigned long long lm = env_ull("CLV_LIMIT_LOCAL_MEM"), wg = env_ull("CLV_LIMIT_WG");
    REQUIRE(lm > 0 && wg > 0, "run under the cl_limits interposer (see tests/meson.build)");
    cl_platform_id plats[8];
    cl_uint np = 0;
    REQUIRE(clGetPlatformIDs(8, plats, &np) == CL_SUCCESS && np > 0, "no OpenCL platform");
    int devices = 0;
    for (cl_uint p = 0; p < np && p < 8; p++) {
        cl_device_id devs[8];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 8, devs, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd && d < 8; d++) {
            cl_ulong local = 0;
            size_t maxwg = 0, items[3] = {0, 0, 0};
            T(clGetDeviceInfo(devs[d], CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL) ==
                  CL_SUCCESS && local == lm,
              "device local memory %llu, want %llu", (unsigned long long)local, lm);
            T(clGetDeviceInfo(devs[d], CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof maxwg, &maxwg,
                              NULL) == CL_SUCCESS && maxwg <= wg,
              "device work-group limit %zu, want <= %llu", maxwg, wg);
            T(clGetDeviceInfo(devs[d], CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items,
                              NULL) == CL_SUCCESS && items[0] <= wg && items[1] <= wg,
              "device work-item sizes %zu x %zu, want <= %llu", items[0], items[1], wg);
            devices++;
        }
    }
    T(devices > 0, "no device checked");
}

/* Gaussian blur of a 4-channel f32 image into out (w*h*4 floats). */
static void blur_f32x4(clv_context *ctx, const float *in, float *out, int w, int h, double sy)
{
    clv_image *a = NULL, *b = NULL;
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 4, CLV_F32, &a));
    REQUIRE_OK(ctx, clv_image_create(ctx, w, h, 4, CLV_F32, &b));
    REQUIRE_OK(ctx, clv_image_upload(a, in, 0));
    REQUIRE_OK(ctx, clv_gaussian_blur(ctx, a, b, 1.0, sy, 0, 0, CLV_BORDER_REFLECT101));
    REQUIRE_OK(ctx, clv_image_download(b, out, 0));
    clv_image_release(a);
    clv_image_release(b);
}

/* More than the context's 32 cached kernel limits: transpose, box and resize
 * of every type and channel count (each its own program). */
static void many_kernels(clv_context *ctx)
{
    const clv_pixel_type types[] = {CLV_U8, CLV_U16, CLV_F32};
    const int chans[] = {1, 2, 3, 4};
    for (size_t t = 0; t < 3; t++) {
        for (size_t c = 0; c < 4; c++) {
            clv_image *a = NULL, *a2 = NULL, *b = NULL, *r = NULL;
            REQUIRE_OK(ctx, clv_image_create(ctx, 13, 9, chans[c], types[t], &a));
            REQUIRE_OK(ctx, clv_image_create(ctx, 13, 9, chans[c], types[t], &a2));
            REQUIRE_OK(ctx, clv_image_create(ctx, 9, 13, chans[c], types[t], &b));
            REQUIRE_OK(ctx, clv_image_create(ctx, 7, 5, chans[c], types[t], &r));
            REQUIRE_OK(ctx, clv_transpose(ctx, a, b));
            REQUIRE_OK(ctx, clv_resize(ctx, a, r));
            REQUIRE_OK(ctx, clv_box_filter(ctx, a, a2, 3, 3, CLV_BORDER_REFLECT101));
            clv_image_release(a);
            clv_image_release(a2);
            clv_image_release(b);
            clv_image_release(r);
        }
    }
}

/* Issue 13 #23: a long-lived context on a 32 KiB device runs ~35+ kernels
 * between two Gaussian blurs; the second must fit its tiles from the
 * kernel's own local-memory use (not the previous launch's __local
 * argument), finish, and give the same result. */
static void limits_long_context(void)
{
    enum { W = 37, H = 29 };
    static float in[W * H * 4], first[W * H * 4], again[W * H * 4];
    test_fill_random(in, W * H * 4, CLV_F32, 7);
    const double sigmas[] = {40.0, 12.0};
    clv_context *ctx = test_context();
    for (size_t i = 0; i < sizeof sigmas / sizeof sigmas[0]; i++) {
        clv_context *fresh = test_context();
        blur_f32x4(fresh, in, first, W, H, sigmas[i]);
        clv_context_release(fresh);
        for (int round = 0; round < 2; round++) {
            many_kernels(ctx);
            memset(again, 0, sizeof again);
            blur_f32x4(ctx, in, again, W, H, sigmas[i]);
            T(memcmp(first, again, sizeof first) == 0,
              "sigma_y %g round %d: blur after many kernels differs", sigmas[i], round);
        }
    }
    clv_context_release(ctx);
}

/* Issue 13 #23: 2 KiB of local memory and sigma_y 40: a clean "needs N
 * bytes" error naming the lowered budget, no hang. */
static void limits_tiny_local(void)
{
    REQUIRE(setenv("CLV_LIMIT_LOCAL_MEM", "2048", 1) == 0, "setenv");
    clv_context *ctx = test_context();
    const int chans[] = {1, 3};
    for (size_t c = 0; c < 2; c++) {
        clv_image *a = NULL, *b = NULL;
        REQUIRE_OK(ctx, clv_image_create(ctx, 40, 30, chans[c], CLV_U8, &a));
        REQUIRE_OK(ctx, clv_image_create(ctx, 40, 30, chans[c], CLV_U8, &b));
        const clv_status s = clv_gaussian_blur(ctx, a, b, 1.0, 40.0, 0, 0, CLV_BORDER_REFLECT101);
        const char *msg = clv_last_error(ctx);
        unsigned long long offers = 0;
        const char *o = strstr(msg, "offers ");
        if (o)
            offers = strtoull(o + 7, NULL, 10);
        if (chans[c] == 1) /* a 1 x 241 column of 4-byte pixels fits 2 KiB */
            T(s == CLV_OK, "1 channel: got %s: %s", clv_status_string(s), msg);
        else
            T(s == CLV_ERROR_UNSUPPORTED && strstr(msg, "needs ") && strstr(msg, " bytes") && o &&
                  offers <= 2048 && !strchr(msg, '\n'),
              "%d channels: got %s: %s", chans[c], clv_status_string(s), msg);
        clv_image_release(a);
        clv_image_release(b);
    }
    clv_context_release(ctx);
    REQUIRE(setenv("CLV_LIMIT_LOCAL_MEM", "32768", 1) == 0, "setenv");
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0) {
        alarm(120); /* a cache entry that blocks must fail the test, not hang it */
        return child(argv[2]);
    }
    if (argc == 2 && strcmp(argv[1], "--limits") == 0) {
        limits_reported();
        limits_tiny_local();
        limits_long_context();
        return test_finish("runtime-limits", passed);
    }
    clv_context_release(test_context()); /* skip (77) only when no device exists */
    test_sha256();
    test_misc();
    test_device_forms();
    test_kernel_sources();
    test_cache();
    return test_finish("runtime", passed);
}
