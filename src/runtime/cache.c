/* clvision — on-disk program binary cache.
 *
 * Trust model: an entry is native code the driver loads and runs without
 * further checks (PoCL overflows a heap buffer on a truncated binary), so
 * the cache is only as trustworthy as its directory. clvision uses a
 * directory only when it is owned by the effective user and writable by
 * nobody else (no group or other write bit), and an entry only when it is a
 * regular file (opened with O_NOFOLLOW | O_NONBLOCK: no symlink, no FIFO)
 * owned by that user and writable by nobody else. Anything else is refused
 * (counted in cache_rejected) and the program is built from source. Inside a
 * trusted directory, damage (truncation, bit flips, a copied entry) is caught
 * by a SHA-256 over the whole entry; a binary whose length or hash disagrees
 * with the header never reaches the driver.
 *
 * File: <dir>/<32 hex digits of SHA-256(key material)>.clvbin holding
 *   "CLVBIN02" | u64 key length | key material | u64 binary length | binary |
 *   SHA-256 of everything before it (32 bytes)
 * integers little-endian. On load every field is verified; anything off
 * deletes the entry and the caller rebuilds from source. Writes go to a
 * temporary file (mode 0600) that is renamed into place, so readers never
 * see a partial entry. Entries of older formats (CLVBIN01) are rejected. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/internal.h"

static const char MAGIC[8] = {'C', 'L', 'V', 'B', 'I', 'N', '0', '2'};

/* Largest entry read (a program binary is far smaller). */
#define MAX_ENTRY_BYTES ((uint64_t)1 << 31)

uint64_t clv__hash64(const void *data, size_t len, uint64_t seed)
{
    /* FNV-1a 64 with a seed folded in, then a final avalanche (splitmix).
     * Not for integrity: only to name things (source text in the key). */
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

/* ---- SHA-256 (FIPS 180-4), streaming ---- */

static const uint32_t SHA_K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void sha_block(clv__sha256_ctx *c, const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = c->h[0], b = c->h[1], cc = c->h[2], d = c->h[3];
    uint32_t e = c->h[4], f = c->h[5], g = c->h[6], h = c->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                      SHA_K[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & cc) ^ (b & cc));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = cc;
        cc = b;
        b = a;
        a = t1 + t2;
    }
    c->h[0] += a;
    c->h[1] += b;
    c->h[2] += cc;
    c->h[3] += d;
    c->h[4] += e;
    c->h[5] += f;
    c->h[6] += g;
    c->h[7] += h;
}

void clv__sha256_init(clv__sha256_ctx *c)
{
    static const uint32_t H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, H0, sizeof H0);
    c->len = 0;
    c->used = 0;
}

void clv__sha256_update(clv__sha256_ctx *c, const void *data, size_t len)
{
    const unsigned char *p = data;
    c->len += len;
    if (c->used) {
        size_t take = 64 - c->used < len ? 64 - c->used : len;
        memcpy(c->buf + c->used, p, take);
        c->used += take;
        p += take;
        len -= take;
        if (c->used < 64)
            return;
        sha_block(c, c->buf);
        c->used = 0;
    }
    for (; len >= 64; p += 64, len -= 64)
        sha_block(c, p);
    memcpy(c->buf, p, len);
    c->used = len;
}

void clv__sha256_final(clv__sha256_ctx *c, unsigned char out[32])
{
    uint64_t bits = c->len * 8;
    unsigned char pad[72] = {0x80};
    size_t padlen = (c->used < 56 ? 56 : 120) - c->used;
    unsigned char lenbuf[8];
    for (int i = 0; i < 8; i++)
        lenbuf[i] = (unsigned char)(bits >> (56 - 8 * i));
    clv__sha256_update(c, pad, padlen);
    clv__sha256_update(c, lenbuf, 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(c->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)c->h[i];
    }
}

CLV_API void clv_debug_sha256(const void *data, size_t len, unsigned char out[32])
{
    clv__sha256_ctx c;
    clv__sha256_init(&c);
    clv__sha256_update(&c, data, len);
    clv__sha256_final(&c, out);
}

/* ---- entries ---- */

static void entry_name(const char *key, size_t key_len, char *buf, size_t size)
{
    unsigned char d[32];
    clv_debug_sha256(key, key_len, d);
    char hex[33];
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    snprintf(buf, size, "%s.clvbin", hex);
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* 1 when st (of the cache directory or an entry) is owned by the effective
 * user and writable by nobody else. */
static int trusted(const struct stat *st)
{
    return st->st_uid == geteuid() && (st->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* The cache directory, opened, when it exists and can be trusted: >= 0 fd;
 * -1 when it does not exist (a plain miss); -2 when it exists but is not a
 * directory or not trusted (refused). */
static int open_dir(clv_context *ctx)
{
    int dfd = open(ctx->cache_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return errno == ENOENT ? -1 : -2;
    struct stat st;
    if (fstat(dfd, &st) != 0 || !S_ISDIR(st.st_mode) || !trusted(&st)) {
        close(dfd);
        return -2;
    }
    return dfd;
}

static void reject(clv_context *ctx, int dfd, const char *name)
{
    ctx->stats.cache_rejected++;
    /* the directory is ours: a stale entry that cannot be removed is simply
     * replaced by the next store */
    (void)unlinkat(dfd, name, 0);
}

cl_program clv__cache_load(clv_context *ctx, const char *key, size_t key_len,
                           const char *options)
{
    char name[64];
    entry_name(key, key_len, name, sizeof name);
    int dfd = open_dir(ctx);
    if (dfd == -1)
        return NULL; /* no cache yet */
    if (dfd == -2) {
        ctx->stats.cache_rejected++; /* untrusted directory: never load from it */
        return NULL;
    }
    unsigned char *data = NULL;
    cl_program prog = NULL;
    struct stat st;
    /* No symlink, and a FIFO or device must not block the open. */
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            goto bad; /* ELOOP (a symlink), EACCES, ... */
        close(dfd);
        return NULL; /* plain miss */
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !trusted(&st) || st.st_size < 64 ||
        (uint64_t)st.st_size > MAX_ENTRY_BYTES)
        goto bad;
    size_t size = (size_t)st.st_size, got = 0;
    data = malloc(size);
    if (!data)
        goto bad;
    while (got < size) {
        ssize_t r = read(fd, data + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            goto bad;
        got += (size_t)r;
    }
    close(fd);
    fd = -1;

    /* magic | klen | key | blen | bin | sha256 */
    if (memcmp(data, MAGIC, 8) != 0)
        goto bad;
    size_t pos = 8;
    uint64_t klen = get_u64(data + pos);
    pos += 8;
    if (klen != key_len || klen > size - pos || memcmp(data + pos, key, key_len) != 0)
        goto bad;
    pos += key_len;
    if (size - pos < 8 + 32)
        goto bad;
    uint64_t blen = get_u64(data + pos);
    pos += 8;
    if (blen == 0 || blen != size - pos - 32)
        goto bad;
    unsigned char digest[32];
    clv_debug_sha256(data, pos + (size_t)blen, digest);
    if (memcmp(digest, data + pos + blen, 32) != 0)
        goto bad;

    const unsigned char *bin = data + pos;
    size_t bin_size = (size_t)blen;
    cl_int bin_status = CL_SUCCESS, err;
    prog = clCreateProgramWithBinary(ctx->cl, 1, &ctx->device, &bin_size, &bin, &bin_status,
                                     &err);
    if (err != CL_SUCCESS || bin_status != CL_SUCCESS)
        goto bad;
    char *chatter = NULL;
    err = clv__build_program(ctx, prog, options, &chatter);
    free(chatter); /* a binary the driver refuses is only a rejected entry */
    if (err != CL_SUCCESS)
        goto bad;
    free(data);
    close(dfd);
    return prog;
bad:
    if (fd >= 0)
        close(fd);
    if (prog)
        (void)clReleaseProgram(prog);
    free(data);
    reject(ctx, dfd, name);
    close(dfd);
    return NULL;
}

/* mkdir -p; returns 0 on success. */
static int make_dirs(const char *dir)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    }
    if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

void clv__cache_store(clv_context *ctx, const char *key, size_t key_len, cl_program program)
{
    size_t bin_size = 0;
    unsigned char *bin = NULL, *head = NULL;
    char name[64], path[4200], tmp[4300];
    int fd = -1;
    cl_int err = clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof bin_size, &bin_size,
                                  NULL);
    if (err != CL_SUCCESS || bin_size == 0)
        goto fail;
    bin = malloc(bin_size);
    if (!bin)
        goto fail;
    err = clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
    if (err != CL_SUCCESS)
        goto fail;
    if (make_dirs(ctx->cache_dir) != 0)
        goto fail;
    int dfd = open_dir(ctx);
    if (dfd < 0)
        goto fail; /* an untrusted directory gets no entries either */
    close(dfd);
    entry_name(key, key_len, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", ctx->cache_dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    fd = mkstemp(tmp); /* mode 0600 */
    if (fd < 0)
        goto fail;
    head = malloc(16 + key_len);
    if (!head)
        goto fail_unlink;
    memcpy(head, MAGIC, 8);
    put_u64(head + 8, key_len);
    memcpy(head + 16, key, key_len);
    unsigned char lenbuf[8], digest[32];
    put_u64(lenbuf, bin_size);
    clv__sha256_ctx sc;
    clv__sha256_init(&sc);
    clv__sha256_update(&sc, head, 16 + key_len);
    clv__sha256_update(&sc, lenbuf, 8);
    clv__sha256_update(&sc, bin, bin_size);
    clv__sha256_final(&sc, digest);
    FILE *f = fdopen(fd, "wb");
    if (!f)
        goto fail_unlink;
    fd = -1;
    int ok = fwrite(head, 1, 16 + key_len, f) == 16 + key_len &&
             fwrite(lenbuf, 1, 8, f) == 8 && fwrite(bin, 1, bin_size, f) == bin_size &&
             fwrite(digest, 1, 32, f) == 32;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0)
        goto fail_unlink;
    ctx->stats.cache_writes++;
    free(head);
    free(bin);
    return;
fail_unlink:
    (void)unlink(tmp);
fail:
    if (fd >= 0)
        close(fd);
    free(head);
    free(bin);
    ctx->stats.cache_write_failures++;
}

/* ---- the directory: resolution, info, clear ---- */

int clv__cache_dir_resolve(const char *explicit_dir, char *buf, size_t size)
{
    const char *env_dir = getenv("CLV_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (explicit_dir && *explicit_dir)
        n = snprintf(buf, size, "%s", explicit_dir);
    else if (env_dir && *env_dir)
        n = snprintf(buf, size, "%s", env_dir);
    else if (xdg && *xdg)
        n = snprintf(buf, size, "%s/clvision", xdg);
    else if (home && *home)
        n = snprintf(buf, size, "%s/.cache/clvision", home);
    else
        n = -1;
    if (n < 0 || (size_t)n >= size) {
        if (size)
            buf[0] = '\0';
        return -1; /* none, or too long to hold */
    }
    return 0;
}

/* 1 when name is one of clvision's entries: <32 hex>.clvbin, or the
 * temporary <32 hex>.clvbin.tmp.XXXXXX a store left behind. */
static int entry_file_name(const char *name)
{
    for (int i = 0; i < 32; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return 0;
    const char *rest = name + 32;
    if (strcmp(rest, ".clvbin") == 0)
        return 1;
    return strncmp(rest, ".clvbin.tmp.", 12) == 0 && strlen(rest + 12) == 6;
}

/* Opens the directory for clv_cache_info / clv_cache_clear: *dfd >= 0, or
 * -1 when it does not exist. */
static clv_status open_cache_dir(const char *dir, clv_cache_dir_info *out, int *dfd)
{
    *dfd = -1;
    if (!out)
        return CLV_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (clv__cache_dir_resolve(dir, out->dir, sizeof out->dir) != 0) {
        snprintf(out->message, sizeof out->message,
                 "no cache directory: none given, CLV_CACHE_DIR, XDG_CACHE_HOME and HOME unset "
                 "(or the path is longer than %zu bytes)",
                 sizeof out->dir - 1);
        return CLV_ERROR_INVALID_ARGUMENT;
    }
    int fd = open(out->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return CLV_OK;
        snprintf(out->message, sizeof out->message, "%s", strerror(errno));
        return CLV_ERROR_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(out->message, sizeof out->message, "%s", strerror(errno));
        close(fd);
        return CLV_ERROR_IO;
    }
    out->exists = 1;
    out->trusted = trusted(&st);
    *dfd = fd;
    return CLV_OK;
}

/* Counts (remove 0) or removes (remove 1) the entries of the open
 * directory dfd (closed here). */
static clv_status walk_entries(int dfd, int remove, clv_cache_dir_info *out)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        snprintf(out->message, sizeof out->message, "%s", strerror(errno));
        close(dfd);
        return CLV_ERROR_IO;
    }
    clv_status status = CLV_OK;
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            if (errno != 0) {
                snprintf(out->message, sizeof out->message, "reading: %s", strerror(errno));
                status = CLV_ERROR_IO;
            }
            break;
        }
        if (!entry_file_name(e->d_name))
            continue;
        struct stat st;
        /* the entry itself, never what a symbolic link points to */
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT)
                continue; /* removed meanwhile (another process's store or clear) */
            snprintf(out->message, sizeof out->message, "%s: %s", e->d_name, strerror(errno));
            status = CLV_ERROR_IO;
            break;
        }
        if (!S_ISREG(st.st_mode))
            continue;
        if (remove && unlinkat(dfd, e->d_name, 0) != 0) {
            if (errno == ENOENT)
                continue;
            snprintf(out->message, sizeof out->message, "cannot remove %s: %s", e->d_name, strerror(errno));
            status = CLV_ERROR_IO;
            break;
        }
        out->entries++;
        out->bytes += (uint64_t)st.st_size;
    }
    if (closedir(d) != 0 && status == CLV_OK) {
        snprintf(out->message, sizeof out->message, "%s", strerror(errno));
        status = CLV_ERROR_IO;
    }
    return status;
}

CLV_API clv_status clv_cache_info(const char *dir, clv_cache_dir_info *out)
{
    int dfd;
    clv_status status = open_cache_dir(dir, out, &dfd);
    if (status != CLV_OK || dfd < 0)
        return status;
    return walk_entries(dfd, 0, out);
}

CLV_API clv_status clv_cache_clear(const char *dir, clv_cache_dir_info *out)
{
    int dfd;
    clv_status status = open_cache_dir(dir, out, &dfd);
    if (status != CLV_OK || dfd < 0)
        return status;
    return walk_entries(dfd, 1, out);
}
