/* clvision — on-disk program binary cache.
 *
 * File: <dir>/<hash of key material>.clvbin holding
 *   "CLVBIN01" | u64 key length | key material | u64 binary length | binary |
 *   u64 check (hash over key material and binary)
 * all little-endian. On load every field is verified; anything off (short
 * file, other key, bad check, a binary the driver refuses) deletes the entry
 * and the caller rebuilds from source. Writes go to a temporary file that is
 * renamed into place, so readers never see a partial entry. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/internal.h"

static const char MAGIC[8] = {'C', 'L', 'V', 'B', 'I', 'N', '0', '1'};

uint64_t clv__hash64(const void *data, size_t len, uint64_t seed)
{
    /* FNV-1a 64 with a seed folded in, then a final avalanche (splitmix). */
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

static void entry_path(clv_context *ctx, const char *key, size_t key_len, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%016llx%016llx.clvbin", ctx->cache_dir,
             (unsigned long long)clv__hash64(key, key_len, 1),
             (unsigned long long)clv__hash64(key, key_len, 2));
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

static uint64_t check_value(const char *key, size_t key_len, const unsigned char *bin,
                            size_t bin_len)
{
    return clv__hash64(key, key_len, 3) ^ clv__hash64(bin, bin_len, 4);
}

static void reject(clv_context *ctx, const char *path)
{
    ctx->stats.cache_rejected++;
    (void)unlink(path); /* a stale entry that cannot be removed is simply overwritten later */
}

cl_program clv__cache_load(clv_context *ctx, const char *key, size_t key_len,
                           const char *options)
{
    char path[4200];
    entry_path(ctx, key, key_len, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL; /* plain miss */
    unsigned char *data = NULL;
    cl_program prog = NULL;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || st.st_size < 32 || (uint64_t)st.st_size > (1ull << 31)) {
        fclose(f);
        reject(ctx, path);
        return NULL;
    }
    size_t size = (size_t)st.st_size;
    data = malloc(size);
    if (!data || fread(data, 1, size, f) != size) {
        fclose(f);
        free(data);
        reject(ctx, path);
        return NULL;
    }
    fclose(f);

    size_t pos = 8;
    if (memcmp(data, MAGIC, 8) != 0)
        goto bad;
    uint64_t klen = get_u64(data + pos);
    pos += 8;
    if (klen != key_len || klen > size - pos || memcmp(data + pos, key, key_len) != 0)
        goto bad;
    pos += key_len;
    if (size - pos < 16)
        goto bad;
    uint64_t blen = get_u64(data + pos);
    pos += 8;
    if (blen == 0 || blen > size - pos - 8 || pos + blen + 8 != size)
        goto bad;
    const unsigned char *bin = data + pos;
    if (get_u64(data + pos + blen) != check_value(key, key_len, bin, (size_t)blen))
        goto bad;

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
    return prog;
bad:
    if (prog)
        (void)clReleaseProgram(prog);
    free(data);
    reject(ctx, path);
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
            if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

void clv__cache_store(clv_context *ctx, const char *key, size_t key_len, cl_program program)
{
    size_t bin_size = 0;
    unsigned char *bin = NULL, *head = NULL;
    char path[4200], tmp[4300];
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
    entry_path(ctx, key, key_len, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    fd = mkstemp(tmp);
    if (fd < 0)
        goto fail;
    head = malloc(16 + key_len);
    if (!head)
        goto fail;
    memcpy(head, MAGIC, 8);
    put_u64(head + 8, key_len);
    memcpy(head + 16, key, key_len);
    unsigned char lenbuf[8], checkbuf[8];
    put_u64(lenbuf, bin_size);
    put_u64(checkbuf, check_value(key, key_len, bin, bin_size));
    FILE *f = fdopen(fd, "wb");
    if (!f)
        goto fail_unlink;
    fd = -1;
    int ok = fwrite(head, 1, 16 + key_len, f) == 16 + key_len &&
             fwrite(lenbuf, 1, 8, f) == 8 && fwrite(bin, 1, bin_size, f) == bin_size &&
             fwrite(checkbuf, 1, 8, f) == 8;
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
