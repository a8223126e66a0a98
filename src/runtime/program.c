/* clvision — kernel sources, program builds (with the disk cache), kernels. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/internal.h"

#include "version.h"

/* File names of the kernel sources, from src/ops/ops.def. */
const char *const clv__source_names[CLV__SRC_COUNT] = {
#define CLV_SOURCE(id, file) [CLV__SRC_##id] = file,
#define CLV_OP(sym, file)
#define CLV_OP_FILE(file)
#include "ops/ops.def"
#undef CLV_SOURCE
#undef CLV_OP
#undef CLV_OP_FILE
};

/* Read a whole kernel source file into a NUL-terminated buffer. Symlinks
 * are followed (installs link .cl files), but the target must be a regular
 * file: it is opened with O_NONBLOCK so a FIFO or device is refused at once
 * instead of blocking, and reading stops past CLV_MAX_KERNEL_SOURCE bytes
 * (a link to /dev/zero or a growing file). NULL on failure, with a reason in
 * why (errno text or the rule broken). */
static char *read_file(const char *path, size_t *len, char *why, size_t why_size)
{
    char *buf = NULL;
    size_t cap = 0, n = 0;
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, why_size, "%s", strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0) {
        snprintf(why, why_size, "%s", strerror(errno));
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "not a regular file (%s)",
                 S_ISFIFO(st.st_mode)  ? "a FIFO"
                 : S_ISCHR(st.st_mode) ? "a character device"
                 : S_ISBLK(st.st_mode) ? "a block device"
                 : S_ISDIR(st.st_mode) ? "a directory"
                                       : "a special file");
        goto fail;
    }
    if ((uintmax_t)st.st_size > CLV_MAX_KERNEL_SOURCE) {
        snprintf(why, why_size, "larger than the %u-byte kernel source limit",
                 (unsigned)CLV_MAX_KERNEL_SOURCE);
        goto fail;
    }
    for (;;) {
        if (n + 4096 + 1 > cap) {
            size_t ncap = cap ? cap * 2 : 16384;
            char *p = realloc(buf, ncap);
            if (!p) {
                snprintf(why, why_size, "%s", strerror(ENOMEM));
                goto fail;
            }
            buf = p;
            cap = ncap;
        }
        ssize_t got = read(fd, buf + n, cap - n - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(why, why_size, "%s", strerror(errno));
            goto fail;
        }
        if (got == 0)
            break;
        n += (size_t)got;
        if (n > CLV_MAX_KERNEL_SOURCE) {
            snprintf(why, why_size, "larger than the %u-byte kernel source limit",
                     (unsigned)CLV_MAX_KERNEL_SOURCE);
            goto fail;
        }
    }
    close(fd);
    buf[n] = '\0';
    *len = n;
    return buf;
fail:
    close(fd);
    free(buf);
    return NULL;
}

/* The installed kernel directory as seen from the library's own file:
 * <its directory>/CLV_KERNEL_RELDIR (meson's path from libdir to
 * <datadir>/clvision/cl), ".." resolved, so an installed tree still finds its
 * kernels after being moved. 0 when there is no such path: a build without
 * CLV_KERNEL_RELDIR (libdir or datadir outside the prefix), or no file name
 * from the loader. Linked statically, the file is the program, and the
 * directory is then normally not there. */
static int kernel_dir_near_library(char *out, size_t size)
{
#ifdef CLV_KERNEL_RELDIR
    Dl_info info;
    if (!dladdr((const void *)clv__source_names, &info) || !info.dli_fname ||
        !info.dli_fname[0])
        return 0;
    char *real = realpath(info.dli_fname, NULL); /* the file, not a link to it */
    const char *lib = real ? real : info.dli_fname;
    const char *slash = strrchr(lib, '/');
    size_t n = slash ? (size_t)(slash - lib) : 0;
    int ok = slash && n < size;
    if (ok) {
        memcpy(out, lib, n);
        out[n] = '\0';
    }
    free(real);
    for (const char *p = CLV_KERNEL_RELDIR; ok && *p;) {
        size_t len = strcspn(p, "/");
        if (len == 2 && p[0] == '.' && p[1] == '.') {
            char *last = strrchr(out, '/');
            if (last)
                *last = '\0';
            else
                ok = 0;
        } else if (len > 0 && !(len == 1 && p[0] == '.')) {
            size_t used = strlen(out);
            ok = used + 1 + len < size;
            if (ok) {
                out[used] = '/';
                memcpy(out + used + 1, p, len);
                out[used + 1 + len] = '\0';
            }
        }
        p += len;
        p += *p == '/';
    }
    return ok && out[0];
#else
    (void)out;
    (void)size;
    return 0;
#endif
}

clv_status clv__load_sources(clv_context *ctx, const char *explicit_dir)
{
    const char *dirs[3];
    const char *origin[3];
    char near_lib[PATH_MAX];
    int ndirs = 0;
    if (explicit_dir) {
        dirs[ndirs] = explicit_dir;
        origin[ndirs++] = "explicit";
    } else {
        /* Next to the library first: once an installed tree has moved, the
         * configured directory may hold another version, or nothing. */
        if (kernel_dir_near_library(near_lib, sizeof near_lib) &&
            strcmp(near_lib, CLV_KERNEL_DATADIR) != 0) {
            dirs[ndirs] = near_lib;
            origin[ndirs++] = "installed, relative to the library";
        }
        dirs[ndirs] = CLV_KERNEL_DATADIR;
        origin[ndirs++] = "installed";
        dirs[ndirs] = CLV_KERNEL_SRCDIR;
        origin[ndirs++] = "source tree";
    }
    /* The directory is the first one holding the prelude; all files come from
     * it, so sources of two versions are never mixed. */
    char tried[8192] = "";
    size_t used = 0;
    int chosen = -1;
    for (int i = 0; i < ndirs && chosen < 0; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dirs[i], clv__source_names[CLV__SRC_COMMON]);
        size_t len = 0;
        char why[128];
        char *text = read_file(path, &len, why, sizeof why);
        if (text) {
            free(text);
            chosen = i;
            break;
        }
        int w = snprintf(tried + used, sizeof tried - used, "%s%s (%s: %s)", used ? ", " : "",
                         path, origin[i], why);
        if (w > 0 && (size_t)w < sizeof tried - used)
            used += (size_t)w;
    }
    if (chosen < 0)
        return clv__fail(ctx, CLV_ERROR_KERNEL_SOURCE, "context",
                         "kernel sources not found; tried %s. Set CLV_KERNEL_PATH to the "
                         "directory holding the .cl files",
                         tried);
    for (int s = 0; s < CLV__SRC_COUNT; s++) {
        clv__source *src = &ctx->sources[s];
        snprintf(src->path, sizeof src->path, "%s/%s", dirs[chosen], clv__source_names[s]);
        char why[128];
        src->text = read_file(src->path, &src->len, why, sizeof why);
        if (!src->text)
            return clv__fail(ctx, CLV_ERROR_KERNEL_SOURCE, "context",
                             "cannot read kernel source %s: %s (directory chosen: %s, %s)",
                             src->path, why, dirs[chosen], origin[chosen]);
    }
    return CLV_OK;
}

void clv__free_programs(clv_context *ctx)
{
    clv__program *p = ctx->programs;
    while (p) {
        clv__program *next = p->next;
        for (int i = 0; i < p->nkernels; i++) {
            if (p->kernels[i])
                (void)clReleaseKernel(p->kernels[i]);
            free(p->kernel_names[i]);
        }
        if (p->program)
            (void)clReleaseProgram(p->program);
        free(p->options);
        free(p);
        p = next;
    }
    ctx->programs = NULL;
}

/* Driver chatter. PoCL's compiler writes diagnostics ("1 error generated.")
 * straight to file descriptor 2 during clBuildProgram, even with -w. A
 * library must not print, so fd 2 points at an anonymous temporary file
 * around the call (process-wide lock: fd 2 is process-wide). What was
 * captured is handed back on failure (the caller adds it to the error
 * message) and written back to fd 2 on success, so output the application
 * itself wrote there meanwhile (another thread) is not lost. When no
 * temporary file can be made the build runs uncaptured. */
static pthread_mutex_t stderr_lock = PTHREAD_MUTEX_INITIALIZER;

#define CLV__CHATTER_MAX (64 * 1024)

/* Write all of buf to fd (best effort: stderr may be closed). */
static void write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        buf += w;
        n -= (size_t)w;
    }
}

cl_int clv__build_program(clv_context *ctx, cl_program prog, const char *options,
                          char **chatter)
{
    *chatter = NULL;
    pthread_mutex_lock(&stderr_lock);
    fflush(stderr);
    FILE *tmp = tmpfile();
    int saved = -1;
    if (tmp) {
        saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
        if (saved < 0 || dup2(fileno(tmp), 2) < 0) {
            if (saved >= 0)
                close(saved);
            saved = -1;
        }
    }
    cl_int err = clBuildProgram(prog, 1, &ctx->device, options, NULL, NULL);
    if (saved >= 0) {
        fflush(stderr);
        (void)dup2(saved, 2);
        close(saved);
        /* Read what was captured: all of it goes back to fd 2 on success,
         * the first CLV__CHATTER_MAX bytes into the message on failure. */
        int fd = fileno(tmp);
        char *keep = NULL;
        size_t kept = 0;
        if (err != CL_SUCCESS)
            keep = malloc(CLV__CHATTER_MAX + 1);
        if (lseek(fd, 0, SEEK_SET) == 0) {
            char chunk[4096];
            for (;;) {
                ssize_t got = read(fd, chunk, sizeof chunk);
                if (got < 0 && errno == EINTR)
                    continue;
                if (got <= 0)
                    break;
                if (err == CL_SUCCESS) {
                    write_all(2, chunk, (size_t)got);
                } else if (keep && kept < CLV__CHATTER_MAX) {
                    size_t take = (size_t)got;
                    if (take > CLV__CHATTER_MAX - kept)
                        take = CLV__CHATTER_MAX - kept;
                    memcpy(keep + kept, chunk, take);
                    kept += take;
                }
            }
        }
        if (keep && kept > 0) {
            keep[kept] = '\0';
            *chatter = keep;
        } else {
            free(keep);
        }
    }
    if (tmp)
        fclose(tmp);
    pthread_mutex_unlock(&stderr_lock);
    return err;
}

/* Options every program gets, after the op's own. */
static void final_options(clv_context *ctx, const char *options, char *buf, size_t size)
{
    /* -w: compilers such as PoCL's print warnings straight to stderr, which a
     * library must not do; a failed build still returns its full log. */
    /* -DCLV_NV_PTX: NVIDIA's own compiler, which takes inline PTX (see
     * clv_exp2_weight in common.cl). */
    const int nv = strncmp(ctx->info.platform_name, "NVIDIA CUDA", 11) == 0;
    snprintf(buf, size, "-cl-std=CL1.2 -w %s%s%s%s", options ? options : "",
             (ctx->info.type & CL_DEVICE_TYPE_GPU) ? " -DCLV_GPU=1" : " -DCLV_GPU=0",
             nv ? " -DCLV_NV_PTX=1" : "", ctx->debug ? " -DCLV_DEBUG=1" : "");
}

/* Full program text: prelude, then the family source, with #line markers so
 * build logs point at the right file and line. */
static char *program_text(clv_context *ctx, clv__source_id src, size_t *len)
{
    const clv__source *pre = &ctx->sources[CLV__SRC_COMMON];
    const clv__source *fam = &ctx->sources[src];
    size_t cap = pre->len + fam->len + 256;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    int w = snprintf(buf, cap, "#line 1 \"%s\"\n%s\n#line 1 \"%s\"\n%s\n",
                     clv__source_names[CLV__SRC_COMMON], pre->text, clv__source_names[src],
                     fam->text);
    if (w < 0 || (size_t)w >= cap) {
        free(buf);
        return NULL;
    }
    *len = (size_t)w;
    return buf;
}

/* Key material: everything that can change the binary, in plain text. */
static char *key_material(clv_context *ctx, const char *text, size_t text_len,
                          const char *final_opts, size_t *len)
{
    size_t cap = strlen(final_opts) + 2048;
    char *key = malloc(cap);
    if (!key)
        return NULL;
    int w = snprintf(key, cap,
                     "clvision %s\nplatform-version: %s\ndevice: %s\ndriver: %s\n"
                     "options: %s\nsource-bytes: %zu\nsource-hash: %016llx%016llx\n",
                     CLV_VERSION_STRING, ctx->info.platform_version, ctx->info.name,
                     ctx->info.driver_version, final_opts, text_len,
                     (unsigned long long)clv__hash64(text, text_len, 0x5eed0001u),
                     (unsigned long long)clv__hash64(text, text_len, 0x5eed0002u));
    if (w < 0 || (size_t)w >= cap) {
        free(key);
        return NULL;
    }
    *len = (size_t)w;
    return key;
}

static void append_chatter(clv_context *ctx, const char *chatter)
{
    if (!chatter)
        return;
    clv__append_error(ctx, "\ncompiler output: ");
    clv__append_error(ctx, chatter);
}

static clv_status build_log_error(clv_context *ctx, cl_program prog, cl_int err,
                                  const char *src_name, const char *final_opts,
                                  const char *chatter)
{
    clv_status st = clv__fail(ctx, CLV_ERROR_BUILD, "build",
                              "building %s failed: clBuildProgram returned %s (%d); options: %s; log:\n",
                              src_name,
                              clv__cl_error_name(err), (int)err, final_opts);
    size_t log_size = 0;
    cl_int e = clGetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size);
    if (e != CL_SUCCESS) {
        char note[128];
        snprintf(note, sizeof note, "(build log unavailable: %s)", clv__cl_error_name(e));
        clv__append_error(ctx, note);
        append_chatter(ctx, chatter);
        return st;
    }
    char *log = malloc(log_size + 1);
    if (!log) {
        clv__append_error(ctx, "(build log: out of memory)");
        append_chatter(ctx, chatter);
        return st;
    }
    e = clGetProgramBuildInfo(prog, ctx->device, CL_PROGRAM_BUILD_LOG, log_size, log, NULL);
    if (e == CL_SUCCESS) {
        log[log_size] = '\0';
        clv__append_error(ctx, log);
    } else {
        clv__append_error(ctx, "(build log unavailable)");
    }
    free(log);
    append_chatter(ctx, chatter);
    return st;
}

/* Test and diagnostic hook: with CLV_RECORD_BUILDS=<file>, every distinct
 * program a context builds (or loads from the cache) appends one line
 * "<family>.cl<TAB><op options>" (the options before final_options()), in one
 * write() to a file opened O_APPEND, so several processes can share the file.
 * tests/portability/ rebuilds that list with the GPU toolchains. */
static clv_status record_build(clv_context *ctx, clv__source_id src, const char *options)
{
    const char *path = getenv("CLV_RECORD_BUILDS");
    if (!path || !*path)
        return CLV_OK;
    char line[2300];
    int n = snprintf(line, sizeof line, "%s\t%s\n", clv__source_names[src], options);
    if (n < 0 || (size_t)n >= sizeof line)
        return clv__fail(ctx, CLV_ERROR_IO, "build", "CLV_RECORD_BUILDS: options too long");
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    int ok = fd >= 0 && write(fd, line, (size_t)n) == (ssize_t)n;
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (!ok)
        return clv__fail(ctx, CLV_ERROR_IO, "build", "CLV_RECORD_BUILDS: cannot append to %s: %s",
                         path, strerror(saved ? saved : EIO));
    return CLV_OK;
}

static clv_status get_program(clv_context *ctx, clv__source_id src, const char *options,
                              clv__program **out)
{
    clv_status status = CLV_OK;
    char *text = NULL, *key = NULL;
    cl_program prog = NULL;
    clv__program *entry = NULL;

    for (clv__program *p = ctx->programs; p; p = p->next) {
        if (p->src == src && strcmp(p->options, options) == 0) {
            *out = p;
            return CLV_OK;
        }
    }

    CLV_TRY(record_build(ctx, src, options));
    char final_opts[2048];
    final_options(ctx, options, final_opts, sizeof final_opts);
    size_t text_len = 0, key_len = 0;
    text = program_text(ctx, src, &text_len);
    if (text)
        key = key_material(ctx, text, text_len, final_opts, &key_len);
    entry = calloc(1, sizeof *entry);
    if (!text || !key || !entry) {
        status = clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, "build", "out of host memory");
        goto out;
    }
    entry->options = strdup(options);
    if (!entry->options) {
        status = clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, "build", "out of host memory");
        goto out;
    }

    if (ctx->cache_enabled)
        prog = clv__cache_load(ctx, key, key_len, final_opts);
    if (prog) {
        ctx->stats.cache_hits++;
    } else {
        cl_int err;
        const char *strings[] = {text};
        prog = clCreateProgramWithSource(ctx->cl, 1, strings, &text_len, &err);
        CLV_CHECK_CL(ctx, err, "build", "clCreateProgramWithSource");
        char *chatter = NULL;
        err = clv__build_program(ctx, prog, final_opts, &chatter);
        if (err != CL_SUCCESS) {
            status = build_log_error(ctx, prog, err, clv__source_names[src], final_opts, chatter);
            free(chatter);
            goto out;
        }
        ctx->stats.programs_built++;
        if (ctx->cache_enabled)
            clv__cache_store(ctx, key, key_len, prog);
    }
    entry->src = src;
    entry->program = prog;
    prog = NULL;
    entry->next = ctx->programs;
    ctx->programs = entry;
    *out = entry;
    entry = NULL;
out:
    if (prog)
        (void)clReleaseProgram(prog);
    if (entry) {
        free(entry->options);
        free(entry);
    }
    free(text);
    free(key);
    return status;
}

clv_status clv__get_kernel(clv_context *ctx, clv__source_id src, const char *options,
                           const char *name, cl_kernel *out)
{
    clv_status status = CLV_OK;
    clv__program *p = NULL;
    *out = NULL;
    CLV_TRY(get_program(ctx, src, options ? options : "", &p));
    for (int i = 0; i < p->nkernels; i++) {
        if (strcmp(p->kernel_names[i], name) == 0) {
            *out = p->kernels[i];
            return CLV_OK;
        }
    }
    if (p->nkernels == CLV__MAX_KERNELS_PER_PROGRAM)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, "build",
                         "too many kernels taken from %s (raise CLV__MAX_KERNELS_PER_PROGRAM)",
                         clv__source_names[src]);
    char *kname = strdup(name);
    if (!kname)
        return clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, "build", "out of host memory");
    cl_int err;
    cl_kernel k = clCreateKernel(p->program, name, &err);
    if (err != CL_SUCCESS) {
        free(kname);
        char call[256];
        snprintf(call, sizeof call, "clCreateKernel(%s from %s)", name, clv__source_names[src]);
        return clv__fail_cl(ctx, err, "build", call);
    }
    p->kernel_names[p->nkernels] = kname;
    p->kernels[p->nkernels] = k;
    p->nkernels++;
    *out = k;
out:
    return status;
}

CLV_API clv_status clv_debug_run_test_kernel(clv_context *ctx, const char *cl_path,
                                             const char *kernel_name, size_t global_size,
                                             size_t n_elems)
{
    static const char OP[] = "test kernel";
    clv_status status = CLV_OK;
    char *file = NULL, *text = NULL;
    cl_program prog = NULL;
    cl_kernel k = NULL;
    cl_mem buf = NULL;
    cl_int err;
    if (!ctx)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv__op_begin(ctx);
    if (!cl_path || !kernel_name)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "%s is NULL",
                         !cl_path ? "cl_path" : "kernel_name");
    if (n_elems == 0 || n_elems > INT32_MAX || global_size == 0)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                         "n_elems must be 1..%d and global_size > 0 (got %zu, %zu)", INT32_MAX,
                         n_elems, global_size);
    size_t file_len = 0;
    char why[128];
    file = read_file(cl_path, &file_len, why, sizeof why);
    if (!file)
        return clv__fail(ctx, CLV_ERROR_KERNEL_SOURCE, OP, "cannot read %s: %s", cl_path, why);
    const clv__source *pre = &ctx->sources[CLV__SRC_COMMON];
    size_t cap = pre->len + file_len + strlen(cl_path) + 64;
    text = malloc(cap);
    if (!text) {
        status = clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, OP, "out of host memory");
        goto out;
    }
    int w = snprintf(text, cap, "#line 1 \"%s\"\n%s\n#line 1 \"%s\"\n%s\n",
                     clv__source_names[CLV__SRC_COMMON], pre->text, cl_path, file);
    if (w < 0 || (size_t)w >= cap) {
        status = clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, OP, "out of host memory");
        goto out;
    }
    size_t text_len = (size_t)w;
    char final_opts[2048];
    final_options(ctx, "", final_opts, sizeof final_opts);
    const char *strings[] = {text};
    prog = clCreateProgramWithSource(ctx->cl, 1, strings, &text_len, &err);
    CLV_CHECK_CL(ctx, err, OP, "clCreateProgramWithSource");
    char *chatter = NULL;
    err = clv__build_program(ctx, prog, final_opts, &chatter);
    if (err != CL_SUCCESS) {
        status = build_log_error(ctx, prog, err, cl_path, final_opts, chatter);
        free(chatter);
        goto out;
    }
    k = clCreateKernel(prog, kernel_name, &err);
    CLV_CHECK_CL(ctx, err, OP, "clCreateKernel");
    buf = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, n_elems * sizeof(float), NULL, &err);
    CLV_CHECK_CL(ctx, err, OP, "clCreateBuffer");
    float zero = 0.0f;
    CLV_CHECK_CL(ctx,
                 clEnqueueFillBuffer(ctx->queue, buf, &zero, sizeof zero, 0,
                                     n_elems * sizeof(float), 0, NULL, NULL),
                 OP, "clEnqueueFillBuffer");
    int n = (int)n_elems;
    size_t global[1] = {global_size};
    size_t local[1] = {1};
    CLV_TRY(CLV_LAUNCH(ctx, OP, k, 1, global, local, CLV_ARG(buf), CLV_ARG(n)));
    CLV_CHECK_CL(ctx, clFinish(ctx->queue), OP, "clFinish");
out:
    clv__release_mem(buf);
    if (k) {
        clv__forget_kernel(ctx, k);
        (void)clReleaseKernel(k);
    }
    if (prog)
        (void)clReleaseProgram(prog);
    free(text);
    free(file);
    return status;
}
