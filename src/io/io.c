/* clvision — host images, the per-thread I/O error and size limit, format
 * dispatch (magic bytes when reading, extension when writing) and the
 * temporary-file-then-rename writer shared by every format. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/io_internal.h"

#define CLV__IO_DEFAULT_MAX_PIXELS ((size_t)1 << 28)

/* Long enough for a message that quotes a full path. */
#define CLV__IO_MSG_SIZE 4608

static _Thread_local char io_error[CLV__IO_MSG_SIZE];
static _Thread_local size_t io_max_pixels = CLV__IO_DEFAULT_MAX_PIXELS;

/* ---- errors ---- */

static void io_set_messagev(const char *fmt, va_list ap, int err)
{
    int n = vsnprintf(io_error, sizeof io_error, fmt, ap);
    if (n < 0) {
        io_error[0] = '\0';
        n = 0;
    }
    if (err != 0 && (size_t)n < sizeof io_error - 1) {
        char buf[256];
        /* XSI strerror_r (we do not define _GNU_SOURCE): thread-safe. */
        if (strerror_r(err, buf, sizeof buf) != 0)
            snprintf(buf, sizeof buf, "error %d", err);
        snprintf(io_error + n, sizeof io_error - (size_t)n, ": %s", buf);
    }
}

clv_status clv__io_fail(clv_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    io_set_messagev(fmt, ap, 0);
    va_end(ap);
    return status;
}

clv_status clv__io_fail_errno(clv_status status, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    io_set_messagev(fmt, ap, err ? err : EIO);
    va_end(ap);
    return status;
}

CLV_API const char *clv_io_last_error(void)
{
    return io_error;
}

/* ---- limits ---- */

CLV_API void clv_io_set_max_pixels(size_t max_pixels)
{
    io_max_pixels = max_pixels;
}

CLV_API size_t clv_io_max_pixels(void)
{
    return io_max_pixels;
}

/* ---- host images ---- */

size_t clv__io_type_size(clv_pixel_type type)
{
    switch (type) {
    case CLV_U8: return 1;
    case CLV_U16: return 2;
    case CLV_F32: return 4;
    }
    return 0;
}

static const char *type_name(clv_pixel_type type)
{
    switch (type) {
    case CLV_U8: return "u8";
    case CLV_U16: return "u16";
    case CLV_F32: return "f32";
    }
    return "?";
}

void clv__io_printable(char *dst, size_t cap, const char *src)
{
    if (cap == 0)
        return;
    size_t i = 0;
    for (; src && src[i] && i + 1 < cap; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = c >= 0x20 && c < 0x7F ? (char)c : '?';
    }
    dst[i] = '\0';
}

int clv__io_host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

int clv__io_stride_fits(size_t stride, size_t row_bytes, int height)
{
    const size_t rows = height > 1 ? (size_t)height - 1 : 0;
    return rows == 0 || stride <= (SIZE_MAX - row_bytes) / rows;
}

/* Row and total bytes of a packed image whose arguments were checked. */
static int packed_sizes(int width, int height, int channels, size_t elem, size_t *row_bytes,
                        size_t *total)
{
    size_t w = (size_t)width, h = (size_t)height, c = (size_t)channels;
    if (w > SIZE_MAX / c || w * c > SIZE_MAX / elem)
        return 0;
    size_t row = w * c * elem;
    if (row > SIZE_MAX / h)
        return 0;
    *row_bytes = row;
    *total = row * h;
    return 1;
}

CLV_API clv_status clv_host_image_alloc(clv_host_image *img, int width, int height, int channels,
                                        clv_pixel_type type)
{
    if (!img)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "host image: img must not be NULL");
    memset(img, 0, sizeof *img);
    if (width < 1 || width > CLV_MAX_DIMENSION || height < 1 || height > CLV_MAX_DIMENSION)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "host image: size %dx%d is outside 1..%d per side", width, height,
                            CLV_MAX_DIMENSION);
    if (channels < 1 || channels > 4)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "host image: channels must be 1 to 4 (got %d)", channels);
    size_t elem = clv__io_type_size(type);
    if (elem == 0)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "host image: unknown pixel type %d",
                            (int)type);
    size_t row = 0, total = 0;
    if (!packed_sizes(width, height, channels, elem, &row, &total))
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "host image: %dx%dx%d %s does not fit in memory", width, height,
                            channels, type_name(type));
    void *data = calloc(total, 1);
    if (!data)
        return clv__io_fail(CLV_ERROR_OUT_OF_MEMORY,
                            "host image: cannot allocate %zu bytes for %dx%dx%d %s", total,
                            width, height, channels, type_name(type));
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->type = type;
    img->stride = row;
    img->data = data;
    return CLV_OK;
}

CLV_API void clv_host_image_free(clv_host_image *img)
{
    if (!img)
        return;
    free(img->data);
    memset(img, 0, sizeof *img);
}

CLV_API clv_status clv_host_image_to_f32(const clv_host_image *in, clv_host_image *out,
                                         double scale)
{
    if (!out)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "to_f32: out must not be NULL");
    if (out == in)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "to_f32: out must not be the input image");
    memset(out, 0, sizeof *out);
    if (!in || !in->data)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "to_f32: input image %s",
                            in ? "has no data" : "is NULL");
    if (!isfinite(scale))
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "to_f32: scale must be finite (got %g)",
                            scale);
    size_t elem = clv__io_type_size(in->type);
    size_t row = 0, total = 0;
    if (elem == 0 || in->width < 1 || in->width > CLV_MAX_DIMENSION || in->height < 1 ||
        in->height > CLV_MAX_DIMENSION ||
        (in->channels != 1 && in->channels != 3 && in->channels != 4) ||
        !packed_sizes(in->width, in->height, in->channels, elem, &row, &total) ||
        in->stride < row || !clv__io_stride_fits(in->stride, row, in->height))
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "to_f32: malformed input image (%dx%dx%d, type %d, stride %zu)",
                            in->width, in->height, in->channels, (int)in->type, in->stride);
    clv_host_image img;
    clv_status status = clv_host_image_alloc(&img, in->width, in->height, in->channels, CLV_F32);
    if (status != CLV_OK)
        return status;
    size_t n = (size_t)in->width * (size_t)in->channels;
    for (int y = 0; y < in->height; y++) {
        const unsigned char *src = (const unsigned char *)in->data + (size_t)y * in->stride;
        float *dst = (float *)((unsigned char *)img.data + (size_t)y * img.stride);
        for (size_t i = 0; i < n; i++) {
            double v;
            if (in->type == CLV_U8) {
                v = src[i];
            } else if (in->type == CLV_U16) {
                uint16_t u;
                memcpy(&u, src + 2 * i, sizeof u);
                v = u;
            } else {
                float f;
                memcpy(&f, src + 4 * i, sizeof f);
                v = f;
            }
            dst[i] = (float)(v * scale);
        }
    }
    *out = img;
    return CLV_OK;
}

clv_status clv__io_alloc_for_read(clv_host_image *img, const char *fmt, const char *path,
                                  unsigned long width, unsigned long height, int channels,
                                  clv_pixel_type type)
{
    clv_status status = clv__io_check_read_size(fmt, path, width, height);
    if (status != CLV_OK)
        return status;
    status = clv_host_image_alloc(img, (int)width, (int)height, channels, type);
    if (status != CLV_OK) /* the arguments were checked: out of memory */
        return clv__io_fail(status, "%s: reading '%s': cannot allocate %llu bytes for %lux%lu "
                            "pixels", fmt, path,
                            (unsigned long long)((uint64_t)width * height * (uint64_t)channels *
                                                 clv__io_type_size(type)),
                            width, height);
    return CLV_OK;
}

clv_status clv__io_check_read_size(const char *fmt, const char *path, unsigned long width,
                                   unsigned long height)
{
    if (width == 0 || height == 0)
        return clv__io_fail(CLV_ERROR_FORMAT, "%s: '%s' has an empty size (%lux%lu)", fmt, path,
                            width, height);
    if (width > CLV_MAX_DIMENSION || height > CLV_MAX_DIMENSION)
        return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                            "%s: '%s' is %lux%lu pixels; clvision images are at most %d pixels "
                            "per side",
                            fmt, path, width, height, CLV_MAX_DIMENSION);
    /* Both sides are <= 2^16, so the product fits in 64 bits. */
    uint64_t pixels = (uint64_t)width * (uint64_t)height;
    size_t limit = clv_io_max_pixels();
    if (pixels > (uint64_t)limit)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "%s: '%s' is %lux%lu = %llu pixels, more than the limit of %zu "
                            "(raise it with clv_io_set_max_pixels())",
                            fmt, path, width, height, (unsigned long long)pixels, limit);
    return CLV_OK;
}

clv_status clv__io_check_host_image(const clv_host_image *img, const char *fmt,
                                    const char *path, size_t *row_bytes)
{
    if (!img)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "%s: writing '%s': image is NULL", fmt,
                            path);
    if (!img->data)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "%s: writing '%s': image data is NULL",
                            fmt, path);
    if (img->width < 1 || img->width > CLV_MAX_DIMENSION || img->height < 1 ||
        img->height > CLV_MAX_DIMENSION)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "%s: writing '%s': size %dx%d is outside 1..%d per side", fmt, path,
                            img->width, img->height, CLV_MAX_DIMENSION);
    if (img->channels != 1 && img->channels != 3 && img->channels != 4)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "%s: writing '%s': channels must be 1, 3 or 4 (got %d)", fmt, path,
                            img->channels);
    size_t elem = clv__io_type_size(img->type);
    if (elem == 0)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "%s: writing '%s': unknown pixel type %d", fmt, path,
                            (int)img->type);
    size_t row = 0, total = 0;
    if (!packed_sizes(img->width, img->height, img->channels, elem, &row, &total) ||
        img->stride < row)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "%s: writing '%s': stride %zu is smaller than a row (%d x %d x %zu "
                            "bytes)",
                            fmt, path, img->stride, img->width, img->channels, elem);
    if (!clv__io_stride_fits(img->stride, row, img->height))
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "%s: writing '%s': stride %zu over %d rows overflows the address "
                            "space",
                            fmt, path, img->stride, img->height);
    *row_bytes = row;
    return CLV_OK;
}

/* ---- opening input files ---- */

static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

clv_status clv__io_open_read(const char *fmt, const char *path, FILE **out)
{
    *out = NULL;
    /* O_NONBLOCK: opening a FIFO without a writer must not block (it is
     * refused below); symbolic links are followed on purpose. */
    int fd;
    do
        fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return clv__io_fail_errno(CLV_ERROR_IO, errno, "%s: cannot open '%s'", fmt, path);
    clv_status status = CLV_OK;
    struct stat st;
    int flags;
    if (fstat(fd, &st) != 0) {
        status = clv__io_fail_errno(CLV_ERROR_IO, errno, "%s: cannot open '%s'", fmt, path);
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        status = clv__io_fail(CLV_ERROR_IO, "%s: cannot read '%s': it is %s, not a regular file",
                              fmt, path, file_kind(st.st_mode));
        goto out;
    }
    flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        status = clv__io_fail_errno(CLV_ERROR_IO, errno, "%s: cannot open '%s'", fmt, path);
        goto out;
    }
    *out = fdopen(fd, "rb");
    if (!*out)
        status = clv__io_fail_errno(CLV_ERROR_IO, errno, "%s: cannot open '%s'", fmt, path);
out:
    if (status != CLV_OK)
        close(fd); /* read-only: nothing to lose */
    return status;
}

/* ---- format dispatch ---- */

static const unsigned char png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
static const unsigned char jpeg_magic[3] = {0xff, 0xd8, 0xff};
static const unsigned char exr_magic[4] = {0x76, 0x2f, 0x31, 0x01};

typedef enum file_format {
    FORMAT_UNKNOWN,
    FORMAT_PNG,
    FORMAT_JPEG,
    FORMAT_EXR,
    FORMAT_HDR,
    FORMAT_PFM,
} file_format;

static int has_prefix(const unsigned char *magic, size_t n, const void *prefix, size_t len)
{
    return n >= len && memcmp(magic, prefix, len) == 0;
}

static file_format sniff(const unsigned char *magic, size_t n)
{
    if (has_prefix(magic, n, png_magic, sizeof png_magic))
        return FORMAT_PNG;
    if (has_prefix(magic, n, jpeg_magic, sizeof jpeg_magic))
        return FORMAT_JPEG;
    if (has_prefix(magic, n, exr_magic, sizeof exr_magic))
        return FORMAT_EXR;
    if (has_prefix(magic, n, "#?RADIANCE", 10) || has_prefix(magic, n, "#?RGBE", 6))
        return FORMAT_HDR;
    /* "PF" or "Pf", then whitespace (a newline in every PFM seen so far). */
    if (n >= 3 && magic[0] == 'P' && (magic[1] == 'F' || magic[1] == 'f') &&
        (magic[2] == '\n' || magic[2] == '\r' || magic[2] == ' ' || magic[2] == '\t'))
        return FORMAT_PFM;
    return FORMAT_UNKNOWN;
}

CLV_API clv_status clv_image_read(const char *path, clv_host_image *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !out)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "image: read: path and out must not be NULL");

    FILE *fp;
    clv_status status = clv__io_open_read("image", path, &fp);
    if (status != CLV_OK)
        return status;

    unsigned char magic[16];
    size_t n = fread(magic, 1, sizeof magic, fp);
    file_format format = sniff(magic, n);
    if (n < sizeof magic && ferror(fp)) {
        status = clv__io_fail_errno(CLV_ERROR_IO, errno, "image: cannot read '%s'", path);
    } else if (n == 0) {
        status = clv__io_fail(CLV_ERROR_FORMAT, "image: '%s' is empty (not an image file)",
                              path);
    } else if (format != FORMAT_UNKNOWN) {
        if (fseek(fp, 0, SEEK_SET) != 0)
            status = clv__io_fail_errno(CLV_ERROR_IO, errno, "image: cannot seek in '%s'", path);
        else if (format == FORMAT_PNG)
            status = clv__png_read_stream(fp, path, out);
        else if (format == FORMAT_JPEG)
            status = clv__jpeg_read_stream(fp, path, out);
        else if (format == FORMAT_EXR)
            status = clv__exr_read_stream(fp, path, out);
        else if (format == FORMAT_HDR)
            status = clv__hdr_read_stream(fp, path, out);
        else
            status = clv__pfm_read_stream(fp, path, out);
    } else {
        char hex[3 * 8 + 1] = "";
        for (size_t i = 0; i < n && i < 8; i++)
            snprintf(hex + 3 * i, sizeof hex - 3 * i, "%s%02x", i ? " " : "", magic[i]);
        status = clv__io_fail(CLV_ERROR_FORMAT,
                              "image: '%s' is not a PNG, JPEG, OpenEXR, Radiance HDR or PFM "
                              "file (starts with %s)",
                              path, hex);
    }
    fclose(fp); /* read-only: nothing to lose */
    return status;
}

static int ascii_lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int ext_equals(const char *ext, const char *want)
{
    while (*ext && *want && ascii_lower((unsigned char)*ext) == *want) {
        ext++;
        want++;
    }
    return *ext == '\0' && *want == '\0';
}

/* Extension of the last path component without the dot, or NULL. A leading
 * dot (".png") names a hidden file, not an extension. */
static const char *path_extension(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base)
        return NULL;
    return dot + 1;
}

CLV_API clv_status clv_image_write(const char *path, const clv_host_image *img, int quality)
{
    if (!path || !img)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT,
                            "image: write: path and img must not be NULL");
    const char *ext = path_extension(path);
    if (ext && ext_equals(ext, "png"))
        return clv_png_write(path, img);
    if (ext && (ext_equals(ext, "jpg") || ext_equals(ext, "jpeg")))
        return clv_jpeg_write(path, img, quality);
    if (ext && ext_equals(ext, "exr"))
        return clv_exr_write(path, img);
    if (ext && ext_equals(ext, "hdr"))
        return clv_hdr_write(path, img);
    if (ext && ext_equals(ext, "pfm"))
        return clv_pfm_write(path, img);
    return clv__io_fail(CLV_ERROR_UNSUPPORTED,
                        "image: cannot choose a format for '%s' from its extension "
                        "(use .png, .jpg, .jpeg, .exr, .hdr or .pfm)",
                        path);
}

/* ---- atomic writes ---- */

/* Fill the last 6 characters of name (the "XXXXXX") with a fresh suffix. */
static void temp_suffix(char *name, unsigned attempt)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static _Thread_local uint64_t counter;
    struct timespec ts = {0, 0};
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
                 ((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)&counter ^
                 (++counter * 0x9E3779B97F4A7C15ull) ^ attempt;
    /* splitmix64 finaliser */
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    char *p = name + strlen(name) - 6;
    for (int i = 0; i < 6; i++) {
        p[i] = digits[x % (sizeof digits - 1)];
        x /= sizeof digits - 1;
    }
}

/* ---- live temporaries (removed on a signal) ----
 *
 * A fixed table, filled and cleared with lock-free atomics only, so that
 * clv_remove_temporaries() can run in a signal handler: it never waits for
 * a lock a thread interrupted by the signal could hold, and each slot keeps
 * its own copy of the path, so no freed memory is ever read. */

#define TEMP_SLOTS 64
#define TEMP_PATH_MAX 4096

enum { SLOT_FREE, SLOT_FILLING, SLOT_LIVE, SLOT_REMOVED };

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the temporaries table needs lock-free atomic int");

static struct temp_slot {
    atomic_int state;
    char path[TEMP_PATH_MAX];
} temp_slots[TEMP_SLOTS];

CLV_API int clv_io_track_temporary(const char *path)
{
    if (!path)
        return -1;
    size_t len = strlen(path);
    if (len >= TEMP_PATH_MAX)
        return -1;
    for (int i = 0; i < TEMP_SLOTS; i++) {
        int expect = SLOT_FREE;
        if (atomic_compare_exchange_strong(&temp_slots[i].state, &expect, SLOT_FILLING)) {
            memcpy(temp_slots[i].path, path, len + 1);
            atomic_store(&temp_slots[i].state, SLOT_LIVE);
            return i;
        }
    }
    return -1;
}

CLV_API void clv_io_untrack_temporary(int slot)
{
    if (slot >= 0 && slot < TEMP_SLOTS)
        atomic_store(&temp_slots[slot].state, SLOT_FREE);
}

CLV_API void clv_remove_temporaries(void)
{
    int saved = errno; /* a signal handler must leave errno as it was */
    for (int i = 0; i < TEMP_SLOTS; i++) {
        int expect = SLOT_LIVE;
        /* Claimed so that two callers (two signals, two threads) do not
         * both unlink; the slot stays taken until its owner untracks it. */
        if (atomic_compare_exchange_strong(&temp_slots[i].state, &expect, SLOT_REMOVED))
            unlink(temp_slots[i].path);
    }
    errno = saved;
}

/* Blocks SIGINT, SIGTERM and SIGHUP in this thread (so a file cannot be
 * created without being tracked yet); *old gets the mask to restore. */
static void block_stop_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

/* Test hook (tests/test_cli.py): with CLV_TEST_HOLD_WRITE set, a write
 * pauses up to 30 s once its temporary file exists, after saying so on
 * stderr, so that a test can signal the process at that point. */
static void test_hold_write(const char *tmp)
{
    const char *hold = getenv("CLV_TEST_HOLD_WRITE");
    if (!hold || !*hold)
        return;
    fprintf(stderr, "clv-test: holding '%s'\n", tmp);
    fflush(stderr);
    for (int i = 0; i < 300; i++) {
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
    }
}

/* Creates name (its "XXXXXX" filled in) with O_EXCL, a fresh suffix on
 * each EEXIST, so a leftover is never reused; mode 0666 minus the umask,
 * as fopen() would, or perm when >= 0 (the file being replaced). */
static int create_temp(char *name, int perm)
{
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        temp_suffix(name, attempt);
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 && perm >= 0 && fchmod(fd, (mode_t)perm) != 0) {
            int err = errno;
            close(fd);
            unlink(name);
            errno = err;
            return -1;
        }
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

clv_status clv__io_write_atomic(const char *path, const char *fmt, clv__io_write_fn fn,
                                const void *user)
{
    size_t len = strlen(path);
    if (len == 0)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "%s: empty output path", fmt);
    if (len > SIZE_MAX - 8)
        return clv__io_fail(CLV_ERROR_INVALID_ARGUMENT, "%s: output path too long", fmt);
    char *tmp = malloc(len + 8);
    if (!tmp)
        return clv__io_fail(CLV_ERROR_OUT_OF_MEMORY, "%s: writing '%s': out of memory", fmt,
                            path);
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".XXXXXX", 8);

    /* Keep the permission bits of the file being replaced. */
    struct stat st;
    int perm = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (int)(st.st_mode & 0777) : -1;

    clv_status status = CLV_OK;
    sigset_t old_mask;
    block_stop_signals(&old_mask);
    int fd = create_temp(tmp, perm);
    int err = errno;
    int slot = fd >= 0 ? clv_io_track_temporary(tmp) : -1;
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    if (fd < 0) {
        status = clv__io_fail_errno(CLV_ERROR_IO, err,
                                    "%s: cannot create a temporary file next to '%s'", fmt,
                                    path);
        free(tmp);
        return status;
    }
    test_hold_write(tmp);
    FILE *fp = fdopen(fd, "wb");
    if (!fp) {
        status = clv__io_fail_errno(CLV_ERROR_IO, errno, "%s: cannot write '%s'", fmt, tmp);
        close(fd);
        goto out;
    }

    status = fn(fp, path, user);
    if (status == CLV_OK && fflush(fp) != 0)
        status = clv__io_fail_errno(CLV_ERROR_IO, errno, "%s: cannot write '%s'", fmt, tmp);
    /* EINVAL: the file system cannot sync (nothing more we could do). */
    if (status == CLV_OK && fsync(fileno(fp)) != 0 && errno != EINVAL)
        status = clv__io_fail_errno(CLV_ERROR_IO, errno, "%s: cannot sync '%s'", fmt, tmp);
    if (fclose(fp) != 0 && status == CLV_OK)
        status = clv__io_fail_errno(CLV_ERROR_IO, errno, "%s: cannot close '%s'", fmt, tmp);
    if (status == CLV_OK && rename(tmp, path) != 0)
        status = clv__io_fail_errno(CLV_ERROR_IO, errno, "%s: cannot rename '%s' to '%s'", fmt,
                                    tmp, path);
out:
    if (status != CLV_OK)
        unlink(tmp);
    clv_io_untrack_temporary(slot); /* after the rename or unlink: no window */
    free(tmp);
    return status;
}
