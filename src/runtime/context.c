/* clvision — context: platform/device choice, queue, lifetime, queries. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime/internal.h"

#include "version.h"

static _Thread_local char create_error[8192];

CLV_API const char *clv_version(void) { return CLV_VERSION_STRING; }

CLV_API const char *clv_context_create_error(void) { return create_error; }

CLV_API clv_context_options clv_context_options_default(void)
{
    clv_context_options o;
    memset(&o, 0, sizeof o);
    return o;
}

/* ---- device enumeration ---- */

typedef struct dev_entry {
    cl_platform_id platform;
    cl_device_id device;
    int p, d;
    cl_device_type type;
    char platform_name[256];
    char vendor[256];
    char name[256];
} dev_entry;


/* Collect every device of every platform. *n = 0 when there is none. */
static clv_status enumerate(clv_context *ctx, dev_entry **out, size_t *n)
{
    clv_status status = CLV_OK;
    cl_platform_id *plats = NULL;
    dev_entry *list = NULL;
    size_t count = 0;
    cl_uint np = 0;

    *out = NULL;
    *n = 0;
    clv__pocl_env_prepare(); /* before PoCL, if it is the ICD, starts its workers */
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && np == 0))
        return clv__fail(ctx, CLV_ERROR_NO_DEVICE, "context",
                         "no OpenCL platform found (is an ICD such as pocl-opencl-icd installed?)");
    CLV_CHECK_CL(ctx, err, "context", "clGetPlatformIDs");
    plats = calloc(np, sizeof *plats);
    if (!plats) {
        status = clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, "context", "out of host memory");
        goto out;
    }
    CLV_CHECK_CL(ctx, clGetPlatformIDs(np, plats, NULL), "context", "clGetPlatformIDs");
    for (cl_uint p = 0; p < np; p++) {
        cl_uint nd = 0;
        err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
        if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && nd == 0))
            continue;
        CLV_CHECK_CL(ctx, err, "context", "clGetDeviceIDs");
        cl_device_id *devs = calloc(nd, sizeof *devs);
        dev_entry *grown = realloc(list, (count + nd) * sizeof *list);
        if (!devs || !grown) {
            free(devs);
            if (grown)
                list = grown;
            status = clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, "context", "out of host memory");
            goto out;
        }
        list = grown;
        err = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL);
        if (err != CL_SUCCESS) {
            free(devs);
            CLV_CHECK_CL(ctx, err, "context", "clGetDeviceIDs");
        }
        char pname[256] = "";
        err = clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
        if (err != CL_SUCCESS) {
            free(devs);
            CLV_CHECK_CL(ctx, err, "context", "clGetPlatformInfo(CL_PLATFORM_NAME)");
        }
        for (cl_uint d = 0; d < nd; d++) {
            dev_entry *e = &list[count];
            memset(e, 0, sizeof *e);
            e->platform = plats[p];
            e->device = devs[d];
            e->p = (int)p;
            e->d = (int)d;
            snprintf(e->platform_name, sizeof e->platform_name, "%s", pname);
            err = clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof e->type, &e->type, NULL);
            if (err == CL_SUCCESS)
                err = clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof e->name - 1, e->name, NULL);
            if (err == CL_SUCCESS)
                err = clGetDeviceInfo(devs[d], CL_DEVICE_VENDOR, sizeof e->vendor - 1, e->vendor, NULL);
            if (err != CL_SUCCESS) {
                free(devs);
                CLV_CHECK_CL(ctx, err, "context", "clGetDeviceInfo");
            }
            count++;
        }
        free(devs);
    }
    if (count == 0) {
        status = clv__fail(ctx, CLV_ERROR_NO_DEVICE, "context",
                           "OpenCL platforms exist but none has a device");
        goto out;
    }
    *out = list;
    *n = count;
    list = NULL;
out:
    free(list);
    free(plats);
    return status;
}

static const char *type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU) return "gpu";
    if (t & CL_DEVICE_TYPE_CPU) return "cpu";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    return "other";
}

static int contains_ci(const char *hay, const char *needle)
{
    size_t nl = strlen(needle);
    if (nl == 0)
        return 0;
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < nl && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == nl)
            return 1;
    }
    return 0;
}

/* Parse "P:D" strictly. */
static int parse_index_pair(const char *s, int *p, int *d)
{
    char *end;
    if (!isdigit((unsigned char)s[0]))
        return 0;
    long a = strtol(s, &end, 10);
    if (*end != ':' || !isdigit((unsigned char)end[1]))
        return 0;
    long b = strtol(end + 1, &end, 10);
    if (*end != '\0' || a > 1000 || b > 1000)
        return 0;
    *p = (int)a;
    *d = (int)b;
    return 1;
}

enum { BY_DEFAULT, BY_TYPE, BY_INDEX, BY_NAME };

static int matches_name(const dev_entry *e, const char *spec)
{
    return contains_ci(e->name, spec) || contains_ci(e->vendor, spec) ||
           contains_ci(e->platform_name, spec);
}

/* First device of type want (-1: none); *count: how many there are. */
static int first_of_type(const dev_entry *list, size_t n, cl_device_type want, int *count)
{
    int first = -1;
    *count = 0;
    for (size_t i = 0; i < n; i++) {
        if (list[i].type & want) {
            if (first < 0)
                first = (int)i;
            ++*count;
        }
    }
    return first;
}

/* The device spec selects (index into list, -1 for none); *how: which form
 * of spec it was (BY_*); *count: the devices it matched, or of the type it
 * asked for (the default's: GPU, else CPU). */
static int match(const dev_entry *list, size_t n, const char *spec, int *count, int *how)
{
    *count = 0;
    if (!spec || !*spec) {
        *how = BY_DEFAULT;
        int i = first_of_type(list, n, CL_DEVICE_TYPE_GPU, count);
        return i >= 0 ? i : first_of_type(list, n, CL_DEVICE_TYPE_CPU, count);
    }
    int p, d;
    if (strcasecmp(spec, "gpu") == 0 || strcasecmp(spec, "cpu") == 0) {
        *how = BY_TYPE;
        return first_of_type(list, n,
                             tolower((unsigned char)spec[0]) == 'g' ? CL_DEVICE_TYPE_GPU
                                                                    : CL_DEVICE_TYPE_CPU,
                             count);
    }
    if (parse_index_pair(spec, &p, &d)) {
        *how = BY_INDEX;
        for (size_t i = 0; i < n; i++) {
            if (list[i].p == p && list[i].d == d) {
                *count = 1;
                return (int)i;
            }
        }
        return -1;
    }
    *how = BY_NAME;
    int first = -1;
    for (size_t i = 0; i < n; i++) {
        if (matches_name(&list[i], spec)) {
            if (first < 0)
                first = (int)i;
            ++*count;
        }
    }
    return first;
}

/* One line saying how spec resolved to list[idx] (see clv_device_choice). */
static void explain(const dev_entry *list, size_t n, int idx, int how, int count,
                    const char *spec, char *buf, size_t size)
{
    const dev_entry *e = &list[idx];
    char using[384];
    snprintf(using, sizeof using, "using %d:%d '%.256s' (%s)", e->p, e->d, e->name,
             type_name(e->type));
    if (how == BY_DEFAULT) {
        char first_of[64] = "";
        if (count > 1)
            snprintf(first_of, sizeof first_of, ", the first of %d %s devices", count,
                     type_name(e->type));
        snprintf(buf, size, "no device asked for (the first GPU, else the first CPU); %s%s", using,
                 first_of);
    } else if (how == BY_INDEX) {
        snprintf(buf, size, "'%s' is device %d:%d '%.256s' (%s)", spec, e->p, e->d, e->name,
                 type_name(e->type));
    } else {
        /* BY_TYPE, BY_NAME: say how many matched, and which for a name. */
        char which[256] = "";
        if (how == BY_NAME) {
            size_t used = 0;
            int shown = 0;
            for (size_t i = 0; i < n && used + 16 < sizeof which; i++) {
                if (!matches_name(&list[i], spec))
                    continue;
                int w = shown == 8 ? snprintf(which + used, sizeof which - used, ", ...")
                                   : snprintf(which + used, sizeof which - used, "%s%d:%d",
                                              shown ? ", " : " (", list[i].p, list[i].d);
                if (w < 0 || shown++ == 8)
                    break;
                used += (size_t)w;
            }
            if (used + 1 < sizeof which)
                strcat(which, ")");
        }
        snprintf(buf, size, "'%s' matched %d device%s %s%s; %s", spec, count,
                 count == 1 ? "" : "s", how == BY_NAME ? "by name" : "by type", which, using);
    }
}

static void describe_devices(const dev_entry *list, size_t n, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 1 < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%d:%d %s \"%s\" (%s)", i ? "; " : "",
                         list[i].p, list[i].d, type_name(list[i].type), list[i].name,
                         list[i].platform_name);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* ---- context ---- */

/* The CLV_EXT_* bits, in bit order (clvision/context.h). */
static const char *const ext_names[] = {
    "cl_khr_byte_addressable_store",      "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics", "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics", "cl_khr_fp16",
    "cl_khr_fp64",
};

CLV_API const char *clv_extension_name(unsigned bit)
{
    for (size_t i = 0; i < sizeof ext_names / sizeof ext_names[0]; i++)
        if (bit == 1u << i)
            return ext_names[i];
    return NULL;
}

/* 1 when the space-separated list names ext exactly (not as a prefix). */
static int has_word(const char *list, const char *ext)
{
    size_t n = strlen(ext);
    for (const char *p = list; (p = strstr(p, ext)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

static clv_status read_extensions(clv_context *ctx, unsigned *bits)
{
    clv_status status = CLV_OK;
    size_t len = 0;
    char *list = NULL;
    *bits = 0;
    CLV_CHECK_CL(ctx, clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, 0, NULL, &len),
                 "context", "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)");
    list = calloc(len + 1, 1);
    if (!list) {
        status = clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, "context", "out of host memory");
        goto out;
    }
    CLV_CHECK_CL(ctx, clGetDeviceInfo(ctx->device, CL_DEVICE_EXTENSIONS, len, list, NULL),
                 "context", "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)");
    for (size_t i = 0; i < sizeof ext_names / sizeof ext_names[0]; i++)
        if (has_word(list, ext_names[i]))
            *bits |= 1u << i;
out:
    free(list);
    return status;
}

static clv_status query_info(clv_context *ctx)
{
    clv_status status = CLV_OK;
    clv__device_info *in = &ctx->info;
    cl_device_id d = ctx->device;
#define Q(param, var) CLV_CHECK_CL(ctx, clGetDeviceInfo(d, param, sizeof(var), &(var), NULL), \
                                   "context", "clGetDeviceInfo(" #param ")")
#define QS(param, var) CLV_CHECK_CL(ctx, clGetDeviceInfo(d, param, sizeof(var) - 1, var, NULL), \
                                    "context", "clGetDeviceInfo(" #param ")")
    Q(CL_DEVICE_TYPE, in->type);
    QS(CL_DEVICE_NAME, in->name);
    QS(CL_DEVICE_VENDOR, in->vendor);
    QS(CL_DRIVER_VERSION, in->driver_version);
    QS(CL_DEVICE_OPENCL_C_VERSION, in->c_version);
    Q(CL_DEVICE_MAX_WORK_GROUP_SIZE, in->max_work_group_size);
    Q(CL_DEVICE_MAX_WORK_ITEM_SIZES, in->max_work_item_sizes);
    Q(CL_DEVICE_LOCAL_MEM_SIZE, in->local_mem_size);
    Q(CL_DEVICE_MAX_MEM_ALLOC_SIZE, in->max_mem_alloc_size);
    Q(CL_DEVICE_MAX_COMPUTE_UNITS, in->compute_units);
    Q(CL_DEVICE_GLOBAL_MEM_SIZE, in->global_mem_size);
    Q(CL_DEVICE_IMAGE_SUPPORT, in->image_support);
#undef Q
#undef QS
    in->p = in->d = -1;
    CLV_TRY(read_extensions(ctx, &in->ext));
    CLV_CHECK_CL(ctx, clGetPlatformInfo(ctx->platform, CL_PLATFORM_NAME,
                                        sizeof in->platform_name - 1, in->platform_name, NULL),
                 "context", "clGetPlatformInfo(CL_PLATFORM_NAME)");
    CLV_CHECK_CL(ctx, clGetPlatformInfo(ctx->platform, CL_PLATFORM_VERSION,
                                        sizeof in->platform_version - 1, in->platform_version,
                                        NULL),
                 "context", "clGetPlatformInfo(CL_PLATFORM_VERSION)");
out:
    return status;
}

static const struct {
    const char *name;
    int bit;
} reg_kernels[] = {
    {"box", CLV__REG_BOX}, {"gauss", CLV__REG_GAUSS}, {"pyr", CLV__REG_PYR},
    {"half", CLV__REG_HALF}, {"transpose", CLV__REG_TRANSPOSE}, {"boxw", CLV__REG_BOXW},
    {"gaussw", CLV__REG_GAUSSW}, {"up", CLV__REG_UP}, {"pyr2", CLV__REG_PYR2},
    {"pyr3", CLV__REG_PYR3}, {"boxfw", CLV__REG_BOXFW}, {"boxf", CLV__REG_BOXF},
    {"gaussfw", CLV__REG_GAUSSFW}, {"halfw", CLV__REG_HALFW},
};

/* CLV_U8_REG: which u8 register kernels run, overriding the table below
 * (bench/run_gpu.sh times each against the kernel it replaces): "all",
 * "none" or "0", or a comma list of box, gauss, pyr, half, transpose, boxw,
 * gaussw, up, pyr2, pyr3, boxf, boxfw, gaussfw, halfw (any channel count), each also with a 1
 * (box1: one-channel images only).
 * -1: a word it does not know. */
static int parse_u8_reg(const char *s)
{
    if (strcmp(s, "all") == 0)
        return CLV__REG_ALL;
    if (strcmp(s, "none") == 0 || strcmp(s, "0") == 0)
        return 0;
    int mask = 0;
    while (*s) {
        size_t n = strcspn(s, ",");
        size_t i;
        int one = 0;
        for (i = 0; i < sizeof reg_kernels / sizeof reg_kernels[0]; i++) {
            const size_t len = strlen(reg_kernels[i].name);
            if (strncmp(s, reg_kernels[i].name, len) != 0)
                continue;
            if (n == len)
                break;
            if (n == len + 1 && s[len] == '1') {
                one = 1;
                break;
            }
        }
        if (i == sizeof reg_kernels / sizeof reg_kernels[0])
            return -1;
        mask |= one ? reg_kernels[i].bit : CLV__REG_ANY(reg_kernels[i].bit);
        s += n;
        if (*s == ',')
            s++;
    }
    return mask;
}

/* A work-group shape "WxH" (CLV_REG_LOCAL, CLV_FB_BLUR): each side 1 to
 * 1024, W * H at most max_wg. 0, or -1 for anything else. */
static int parse_shape(const char *s, size_t max_wg, size_t out[2])
{
    char *end, *end2 = NULL;
    if (!isdigit((unsigned char)s[0]))
        return -1;
    const long w = strtol(s, &end, 10);
    const long h = *end == 'x' && isdigit((unsigned char)end[1]) ? strtol(end + 1, &end2, 10) : 0;
    if (!end2 || *end2 || w < 1 || h < 1 || w > 1024 || h > 1024 || (size_t)(w * h) > max_wg)
        return -1;
    out[0] = (size_t)w;
    out[1] = (size_t)h;
    return 0;
}

/* GPU rows of the tuning table, CLBlast's scheme: the first row whose
 * vendor and device name contain the row's strings (NULL: any) gives a GPU
 * its u8 register kernels and their work-group shape; the last row is the
 * default for GPUs no row names. A row only for a device where its choices
 * were timed (bench/run_gpu.sh, bench/RESULTS.md); the default is the
 * H200's choice, untimed elsewhere. */
typedef struct gpu_row {
    const char *vendor, *name;
    int u8_reg;                       /* tune.u8_reg */
    size_t reg_local[CLV__SHAPES][2]; /* tune.reg_local; 0: the driver's choice */
    int fb_fused;                     /* tune.fb_fused */
    size_t fb_local[2];               /* tune.fb_local; 0: farneback.c's */
    size_t pyrn_max_pixels;           /* tune.pyrn_max_pixels */
} gpu_row;
/* box_reg for every channel count since its interior took packed lanes
 * (2026-12-06, 3840x2160 box 5x5 device us against box_wh + box_wv: H100
 * three channels 53.5-54.2 against 67.6, four 63.3-65.0 against 93.7-94.4;
 * H200 three 59.1-59.4 against 64.5-65.8; at 1920x1080 three channels the
 * same, 27.9-28.0 against 27.4-27.9 on the H100, four slower, 30.8-31.6
 * against 28.2-28.9); the f32 box's register kernels (2026-12-06, H100,
 * run_gpu.sh boxf10 and boxfw10, device us, three interleaved rounds):
 * box_regf, 5x5 at 1920x1080 15.3-16.3 against box_small's 20.7-21.5,
 * 3840x2160 38.6-39.6 against 58.6-59.3; on three channels too since its
 * interior's rows are unrolled (before, 110.9-111.5 against 104.0-104.6;
 * see box.cl); the wider windows' two passes on every channel count (see
 * box.c); the f32 Gaussian's two wide passes, gauss_whf + gauss_wvf, against
 * gauss_fused (2026-12-06, H100, 13x13, device us, three interleaved
 * rounds, run_gpu.sh gfw11, 8 rows then; 4 rows took 1-3 % more off):
 * 3840x2160 one channel 62.7-63.3 against 106.1-107.1, three 156.3-156.9
 * against 393.9-395.4, four 201.2-201.9 against 1389-1394; 1920x1080 one
 * 24.1-26.1 against 32.1-32.6, three 46.9-47.2 against 114.4-115.0, four
 * 60.2-60.7 against 370.0-370.5; transpose_rgb for three channels
 * (2026-12-06, H100, run_gpu.sh s14, device us, three interleaved rounds,
 * against the local-memory tile): 3840x2160 28.7-29.9 against 31.3-31.6,
 * 2560x1440 13.2-13.4 against 13.9-14.9, 7680x4320 95.2-95.3 against
 * 105.0-105.1; 1280x720 the same (7.5-7.7 against 7.1-8.0) and 1920x1080
 * 3 % slower (10.4-10.5 against 10.1-10.2); untimed on the H200;
 * resize_half_reg for f32 and u16 too, one channel (exact halving; 2026-12-07,
 * H100, run_gpu.sh s18h, device us, three interleaved rounds, against
 * resize_bilinear): 3840x2160 f32 13.9-14.7 against 22.6-23.1, u16 7.9-8.2
 * against 17.1-17.5; 1920x1080 f32 6.6-7.1 against 8.3-8.5, u16 6.6-6.8
 * against 8.9-9.1. Not for three channels: f32 70.5-71.3 against 46.0-47.1
 * at 3840x2160 (resize_bilinear's 124 MB there already run at the copy
 * rate), u16 28.4-28.7 against 31.1-31.7; untimed on the H200 */
#define GPU_REG_H200                                                                          \
    (CLV__REG_ANY(CLV__REG_BOX) | CLV__REG_PYR | CLV__REG_ANY(CLV__REG_HALF) |                \
     CLV__REG_ANY(CLV__REG_TRANSPOSE) | CLV__REG_ANY(CLV__REG_BOXW) |                         \
     CLV__REG_ANY(CLV__REG_GAUSSW) | CLV__REG_ANY(CLV__REG_UP) | CLV__REG_PYR3 |              \
     CLV__REG_ANY(CLV__REG_BOXF) | CLV__REG_ANY(CLV__REG_BOXFW) |                             \
     CLV__REG_ANY(CLV__REG_GAUSSFW) | CLV__REG_HALFW)
static const gpu_row gpu_rows[] = {
    /* NVIDIA H200, driver 580 (2026-12-05, the figures below). Shapes,
     * 3840x2160 u8 device us, the driver's choice against the row's: box
     * 31x31 three channels
     * 149 against 136, the Gaussian 121 against 116, box 5x5 one channel 31
     * against 30 (16x16); the upscaling resize three channels 74 against
     * 65 (64x1); the halving resize and the pyramid keep the driver's
     * (no shape won by more than the noise). transpose_reg takes the
     * driver's: on its 16x4 blocks (H100, 2026-12-05, bench/RESULTS.md, one
     * channel, 3840x2160) the driver's 8.6-8.8 against 8x32's 9.1-9.6, 32x8
     * 8.6-9.4, 32x4 8.5-9.3 (8x32 was the 4x4 blocks' shape). */
    {"NVIDIA",
     "H200",
     GPU_REG_H200,
     {[CLV__SHAPE_FILTER] = {16, 16}, [CLV__SHAPE_BOXW] = {16, 16}, [CLV__SHAPE_UP] = {64, 1}},
     /* fb_blur_solve off: slower on the H200 at every shape tried (Farneback
      * device ms, 2026-12-05: 1920x1080 0.88-0.90 two passes against
      * 0.92-1.12 in one launch; 3840x2160 2.68-2.70 against 2.79-3.47) */
     0,
     {0, 0},
     /* a pyramid's levels three per launch (pyr_reg3) at every frame size:
      * 4 levels, device us, H100 (2026-12-05, run_gpu.sh span2, after its
      * later levels' taps went through one reflection), against pyr_reg's
      * three launches: 1280x720 19.0-19.7 against 25.6-28.4, 1920x1080
      * 20.0-20.8 against 28.9-31.2, 3200x1800 23.7 (twice) against
      * 31.7-35.8, 3840x2160 30.8-32.0 against 35.5-37.9. Before that fix
      * (H200) it lost above 2560x1440: 3840x2160 49.2-50.2 against
      * 42.5-43.5. */
     0},
    /* NVIDIA H100, driver 580 (2026-12-06, bench/RESULTS.md, 3840x2160 u8
     * device us, two rounds each): the H200's kernels; the upscaling resize
     * at the H200's 64x1 (one channel 28.3 / 28.2 against the driver's 29.2
     * / 28.6, three 58.9 / 58.6 against 62.4 / 62.8); the box and Gaussian
     * passes at 32x4, which was as fast or faster on every row (three
     * channels: the Gaussian 97.5 / 97.4 against 106.6 / 105.9, box 31x31
     * 129.2 / 128.7 against 134.0 / 134.3, box 5x5 68.7 / 69.0 against 70.4
     * / 70.7; one channel 2-4 % faster; at 1920x1080 the same or 4-7 %
     * faster), where the H200's 16x16 was mixed here. The u8 box's wide
     * passes (box_wh, box_wv) at 16x16 since box_wh's values were packed and
     * box_wv walks 8 rows (2026-12-06, run_gpu.sh look11, 3840x2160 box
     * 31x31, two rounds, all filter kernels at each shape): three channels
     * 97.8 / 97.6 against 32x4's 104.6 / 104.3, one 30.8 / 30.0 against
     * 31.5 / 31.6; 1920x1080 the same within 1.5 us; 16x16 slowed box_reg
     * (box 5x5 three channels 59.2 / 58.4 against 52.2 / 52.3) and the
     * Gaussian (one channel 34.3 / 34.6 against 31.6 / 31.8). */
    {"NVIDIA",
     "H100",
     GPU_REG_H200,
     {[CLV__SHAPE_FILTER] = {32, 4}, [CLV__SHAPE_BOXW] = {16, 16}, [CLV__SHAPE_UP] = {64, 1}},
     0,
     {0, 0},
     0},
    /* any other GPU */
    {NULL, NULL, GPU_REG_H200, {{0, 0}}, 0, {0, 0}, 0},
};

static const gpu_row *gpu_row_for(const clv__device_info *in)
{
    const size_t n = sizeof gpu_rows / sizeof gpu_rows[0];
    for (size_t i = 0; i + 1 < n; i++)
        if ((!gpu_rows[i].vendor || strstr(in->vendor, gpu_rows[i].vendor)) &&
            (!gpu_rows[i].name || strstr(in->name, gpu_rows[i].name)))
            return &gpu_rows[i];
    return &gpu_rows[n - 1];
}

/* Tuning table: device type, then for GPUs the rows above -> defaults.
 * CPUs (PoCL) vectorise explicit VEC-wide code far better than implicit
 * work-item loops, and pay per work-group, so they get wide groups and the
 * flat vector kernels; GPUs get coalesced scalar work-items and local-memory
 * tiles, and the u8 register kernels where they won on the H200 (3840x2160
 * device us, register kernel against the one it replaces, bench/RESULTS.md):
 * box 5x5 one channel 31 against 51 (3 channels 115 against 86: no, until
 * the packed lanes above), exact
 * halving 9 against 18 and 12 against 21, transpose one channel 17 against
 * 25 on 4x4 blocks (3 channels 36 against 31: no; on 16x4 blocks, H100,
 * 8.6-8.9 against the 4x4 blocks' 14.5-14.6, 3 channels 30.7-31.0
 * against the tile's 31.1-31.2, at 1920x1080 10.5-10.7 against 10.0: no),
 * the pyramid at 1 row per work-item
 * 43 against 57 (4 levels); the Gaussian's register kernel (135 against
 * 79, 3 channels 541 against 163) stays off. The u8 wide passes (box_wh +
 * box_wv, gauss_wh + gauss_wv) won wherever they apply (2026-12-05, same
 * units): box 31x31 45 against 133 and 144 against 465 (3 channels), box
 * 5x5 with 3 channels 66 against 85 (one channel keeps box_reg, which comes
 * first: 31 against 32), the Gaussian 13x13 44 against 77 and 120 against
 * 161; the upscaling resize (resize_up_reg, 1.5x) 34 against 62 and 65
 * against 100. */
static clv_status tuning_for(clv_context *ctx, clv__tuning *out)
{
    clv__tuning t;
    memset(&t, 0, sizeof t);
    /* CLV_TUNE=generic|gpu|cpu forces one family of kernel variants, so
     * tests can run the GPU-style kernels on PoCL too; generic: the
     * GPU-style kernels without the GPU extras, gpu: with them (radii and
     * box windows compiled in, the u8 register kernels), which multiply the
     * programs built. */
    const char *force = getenv("CLV_TUNE");
    int cpu_style = (ctx->info.type & CL_DEVICE_TYPE_CPU) != 0;
    int gpu = (ctx->info.type & CL_DEVICE_TYPE_GPU) != 0;
    if (force && *force) {
        if (strcmp(force, "generic") == 0) {
            cpu_style = 0;
            gpu = 0;
        } else if (strcmp(force, "gpu") == 0) {
            cpu_style = 0;
            gpu = 1;
        } else if (strcmp(force, "cpu") == 0) {
            cpu_style = 1;
        } else {
            return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, "context",
                             "CLV_TUNE=\"%s\": expected generic, gpu or cpu", force);
        }
    }
    t.fixed_radius = !cpu_style && gpu ? 8 : 0;
    t.bil_fixed_radius = !cpu_style && gpu ? 16 : 0;
    /* CLV_TUNE=gpu: all of them, so that tests run each */
    if (!cpu_style && gpu) {
        const gpu_row *row = gpu_row_for(&ctx->info);
        t.u8_reg = force && *force ? CLV__REG_ALL : row->u8_reg;
        memcpy(t.reg_local, row->reg_local, sizeof t.reg_local);
        t.fb_fused = force && *force ? 1 : row->fb_fused;
        memcpy(t.fb_local, row->fb_local, sizeof t.fb_local);
        t.pyrn_max_pixels = force && *force ? 0 : row->pyrn_max_pixels;
    }
    const char *fbb = getenv("CLV_FB_BLUR");
    if (fbb && *fbb) {
        if (strcmp(fbb, "two") == 0) {
            t.fb_fused = 0;
        } else if (strncmp(fbb, "fused", 5) == 0 && (fbb[5] == '\0' || fbb[5] == ':')) {
            t.fb_fused = 1;
            if (fbb[5] == ':' &&
                parse_shape(fbb + 6, ctx->info.max_work_group_size, t.fb_local) != 0)
                return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, "context",
                                 "CLV_FB_BLUR=\"%s\": expected fused:WxH, each side 1 to 1024, "
                                 "a work-group of at most %zu work-items",
                                 fbb, ctx->info.max_work_group_size);
        } else {
            return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, "context",
                             "CLV_FB_BLUR=\"%s\": expected fused, fused:WxH or two", fbb);
        }
    }
    const char *reg = getenv("CLV_U8_REG");
    if (reg && *reg) {
        int mask = parse_u8_reg(reg);
        if (mask < 0)
            return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, "context",
                             "CLV_U8_REG=\"%s\": expected all, none or a comma list of "
                             "box, gauss, pyr, half, transpose, boxw, gaussw, up, pyr2, pyr3, boxf, boxfw, "
                             "gaussfw, halfw (or box1 ...: one channel only)",
                             reg);
        t.u8_reg = mask;
        t.pyrn_max_pixels = 0; /* named: at every size */
    }
    const char *py = getenv("CLV_REG_PY");
    if (py && *py) {
        char *end;
        long v = strtol(py, &end, 10);
        if (*end || v < 1 || v > 32)
            return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, "context",
                             "CLV_REG_PY=\"%s\": expected rows per work-item, 1 to 32", py);
        t.reg_py = (int)v;
    }
    const char *rl = getenv("CLV_REG_LOCAL");
    if (rl && strcmp(rl, "driver") == 0) {
        memset(t.reg_local, 0, sizeof t.reg_local);
    } else if (rl && *rl) {
        size_t shape[2];
        if (parse_shape(rl, ctx->info.max_work_group_size, shape) != 0)
            return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, "context",
                             "CLV_REG_LOCAL=\"%s\": expected driver or WxH, each side 1 to "
                             "1024, a work-group of at most %zu work-items",
                             rl, ctx->info.max_work_group_size);
        for (int f = 0; f < CLV__SHAPES; f++) {
            t.reg_local[f][0] = shape[0];
            t.reg_local[f][1] = shape[1];
        }
    }
    if (cpu_style) {
        t.vec = 16;
        t.local2d[0] = 256;
        t.local2d[1] = 1;
        t.grid_zc = 64; /* one pass over the pixels; the accumulators live on the stack */
        t.grid_max_bands = 1;
        t.poly_math = 1;
    } else {
        t.vec = 0;
        t.local2d[0] = 32;
        t.local2d[1] = 8;
        t.grid_zc = 8; /* accumulators stay in registers */
        t.grid_max_bands = 16;
        t.poly_math = 0;
    }
    *out = t;
    return CLV_OK;
}

static void choose_cache_dir(clv_context *ctx, const clv_context_options *o)
{
    const char *env_on = getenv("CLV_CACHE");
    if (o->cache == 1)
        ctx->cache_enabled = 1;
    else if (o->cache < 0)
        ctx->cache_enabled = 0;
    else
        ctx->cache_enabled = !(env_on && strcmp(env_on, "0") == 0);

    if (clv__cache_dir_resolve(o->cache_dir, ctx->cache_dir, sizeof ctx->cache_dir) != 0)
        ctx->cache_enabled = 0; /* nowhere to put it; builds still work */
}

/* What both ways of creating a context check first: out, options.cache. */
static clv_status check_create_args(const clv_context_options *o, clv_context **out)
{
    if (!out) {
        snprintf(create_error, sizeof create_error, "context: out is NULL");
        return CLV_ERROR_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (o->cache < -1 || o->cache > 1) {
        snprintf(create_error, sizeof create_error,
                 "context: options.cache must be -1 (off), 0 (CLV_CACHE decides) or 1 (on), "
                 "got %d",
                 o->cache);
        return CLV_ERROR_INVALID_ARGUMENT;
    }
    return CLV_OK;
}

/* Everything after the device is known: its description, tuning, profiling
 * print level, cache, debug mode and the kernel sources. */
static clv_status setup_device(clv_context *ctx, const clv_context_options *o)
{
    clv_status status = CLV_OK;
    CLV_TRY(query_info(ctx));
    CLV_TRY(tuning_for(ctx, &ctx->tune));
    choose_cache_dir(ctx, o);
    const char *dbg = getenv("CLV_DEBUG");
    ctx->debug = o->debug || (dbg && *dbg && strcmp(dbg, "0") != 0);

    const char *kdir = o->kernel_path;
    if (!kdir || !*kdir)
        kdir = getenv("CLV_KERNEL_PATH");
    if (kdir && !*kdir)
        kdir = NULL;
    CLV_TRY(clv__load_sources(ctx, kdir));
out:
    return status;
}

/* On failure: the message for clv_context_create_error(), and everything
 * acquired so far released. */
static void create_failed(clv_context *ctx)
{
    snprintf(create_error, sizeof create_error, "%s", ctx->err ? ctx->err : "");
    clv_context_release(ctx);
}

CLV_API clv_status clv_context_create(const clv_context_options *opts, clv_context **out)
{
    clv_status status = CLV_OK;
    dev_entry *list = NULL;
    size_t n = 0;
    clv_context_options o = opts ? *opts : clv_context_options_default();

    create_error[0] = '\0';
    if ((status = check_create_args(&o, out)) != CLV_OK)
        return status;
    clv_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        snprintf(create_error, sizeof create_error, "context: out of host memory");
        return CLV_ERROR_OUT_OF_MEMORY;
    }

    CLV_TRY(enumerate(ctx, &list, &n));

    const char *spec = o.device;
    const char *spec_origin = "device option";
    if (!spec || !*spec) {
        spec = getenv("CLV_DEVICE");
        spec_origin = "CLV_DEVICE";
    }
    int count = 0, how = BY_DEFAULT;
    int idx = match(list, n, spec, &count, &how);
    if (idx < 0) {
        char avail[4096];
        describe_devices(list, n, avail, sizeof avail);
        if (spec && *spec)
            status = clv__fail(ctx, CLV_ERROR_NO_DEVICE, "context",
                               "%s \"%s\" matches no device; available: %s", spec_origin, spec,
                               avail);
        else
            status = clv__fail(ctx, CLV_ERROR_NO_DEVICE, "context",
                               "no GPU or CPU device; available: %s", avail);
        goto out;
    }
    ctx->platform = list[idx].platform;
    ctx->device = list[idx].device;
    const char *prof = getenv("CLV_PROFILE");
    ctx->profiling = o.profiling ? 1 : 0;
    if (prof && (strcmp(prof, "1") == 0 || strcmp(prof, "2") == 0))
        ctx->profiling = prof[0] - '0';
    CLV_TRY(setup_device(ctx, &o));
    ctx->info.p = list[idx].p;
    ctx->info.d = list[idx].d;

    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)ctx->platform,
                                     0};
    ctx->cl = clCreateContext(props, 1, &ctx->device, NULL, NULL, &err);
    CLV_CHECK_CL(ctx, err, "context", "clCreateContext");
    ctx->queue = clCreateCommandQueue(ctx->cl, ctx->device,
                                      ctx->profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
    CLV_CHECK_CL(ctx, err, "context", "clCreateCommandQueue");

    *out = ctx;
    ctx = NULL;
out:
    free(list);
    if (ctx)
        create_failed(ctx);
    return status;
}

/* ---- contexts on the application's OpenCL objects (cl_interop.h) ---- */

/* CLV_OK when device is one of cl's devices. */
static clv_status check_context_device(clv_context *ctx, cl_context cl, cl_device_id device)
{
    clv_status status = CLV_OK;
    cl_device_id *devs = NULL;
    cl_uint nd = 0;
    CLV_CHECK_CL(ctx, clGetContextInfo(cl, CL_CONTEXT_NUM_DEVICES, sizeof nd, &nd, NULL),
                 "context", "clGetContextInfo(CL_CONTEXT_NUM_DEVICES)");
    devs = calloc(nd ? nd : 1, sizeof *devs);
    if (!devs)
        return clv__fail(ctx, CLV_ERROR_OUT_OF_MEMORY, "context", "out of host memory");
    CLV_CHECK_CL(ctx, clGetContextInfo(cl, CL_CONTEXT_DEVICES, nd * sizeof *devs, devs, NULL),
                 "context", "clGetContextInfo(CL_CONTEXT_DEVICES)");
    cl_uint i = 0;
    while (i < nd && devs[i] != device)
        i++;
    if (i == nd)
        status = clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, "context",
                           "device is not one of the cl_context's %u device(s)", nd);
out:
    free(devs);
    return status;
}

/* The application's queue: of cl and device, in order; its profiling
 * property decides ctx->profiling. */
static clv_status check_queue(clv_context *ctx, const clv_context_options *o, cl_context cl,
                              cl_device_id device, cl_command_queue queue)
{
    clv_status status = CLV_OK;
    cl_context qc = NULL;
    cl_device_id qd = NULL;
    cl_command_queue_properties qp = 0;
    CLV_CHECK_CL(ctx, clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qc, &qc, NULL),
                 "context", "clGetCommandQueueInfo(CL_QUEUE_CONTEXT)");
    if (qc != cl)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, "context",
                         "queue belongs to another cl_context than the one given");
    CLV_CHECK_CL(ctx, clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL),
                 "context", "clGetCommandQueueInfo(CL_QUEUE_DEVICE)");
    if (qd != device)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, "context",
                         "queue is for another device than the one given");
    CLV_CHECK_CL(ctx, clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof qp, &qp, NULL),
                 "context", "clGetCommandQueueInfo(CL_QUEUE_PROPERTIES)");
    if (qp & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, "context",
                         "queue has CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE; clvision orders its "
                         "work by queue order and needs an in-order queue (pass NULL to have "
                         "one made on the cl_context)");
    if (!(qp & CL_QUEUE_PROFILING_ENABLE) && o->profiling)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, "context",
                         "options.profiling is set but the queue was made without "
                         "CL_QUEUE_PROFILING_ENABLE (the queue decides)");
    const char *prof = getenv("CLV_PROFILE");
    ctx->profiling = (qp & CL_QUEUE_PROFILING_ENABLE)
                         ? (prof && strcmp(prof, "2") == 0 ? 2 : 1)
                         : 0;
out:
    return status;
}

CLV_API clv_status clv_context_create_cl(cl_context cl, cl_device_id device,
                                         cl_command_queue queue, const clv_context_options *opts,
                                         clv_context **out)
{
    clv_status status = CLV_OK;
    clv_context_options o = opts ? *opts : clv_context_options_default();

    create_error[0] = '\0';
    if ((status = check_create_args(&o, out)) != CLV_OK)
        return status;
    if (!cl || !device) {
        snprintf(create_error, sizeof create_error, "context: %s is NULL",
                 !cl ? "cl_context" : "device");
        return CLV_ERROR_INVALID_ARGUMENT;
    }
    if (o.device && *o.device) {
        snprintf(create_error, sizeof create_error,
                 "context: options.device must be NULL with a cl_context and device given "
                 "(got \"%.200s\")",
                 o.device);
        return CLV_ERROR_INVALID_ARGUMENT;
    }
    clv_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        snprintf(create_error, sizeof create_error, "context: out of host memory");
        return CLV_ERROR_OUT_OF_MEMORY;
    }
    CLV_TRY(check_context_device(ctx, cl, device));
    if (queue) {
        CLV_TRY(check_queue(ctx, &o, cl, device, queue));
    } else {
        const char *prof = getenv("CLV_PROFILE");
        ctx->profiling = o.profiling ? 1 : 0;
        if (prof && (strcmp(prof, "1") == 0 || strcmp(prof, "2") == 0))
            ctx->profiling = prof[0] - '0';
    }
    CLV_CHECK_CL(ctx, clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof ctx->platform,
                                      &ctx->platform, NULL),
                 "context", "clGetDeviceInfo(CL_DEVICE_PLATFORM)");

    /* clvision's own references: released by clv_context_release, the
     * application's stay as they are. */
    CLV_CHECK_CL(ctx, clRetainContext(cl), "context", "clRetainContext");
    ctx->cl = cl;
    CLV_CHECK_CL(ctx, clRetainDevice(device), "context", "clRetainDevice");
    ctx->device = device;
    ctx->device_retained = 1;
    cl_int err;
    if (queue) {
        CLV_CHECK_CL(ctx, clRetainCommandQueue(queue), "context", "clRetainCommandQueue");
        ctx->queue = queue;
    } else {
        ctx->queue = clCreateCommandQueue(ctx->cl, ctx->device,
                                          ctx->profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
        CLV_CHECK_CL(ctx, err, "context", "clCreateCommandQueue");
    }
    CLV_TRY(setup_device(ctx, &o));

    *out = ctx;
    ctx = NULL;
out:
    if (ctx)
        create_failed(ctx);
    return status;
}

CLV_API cl_context clv_context_cl_context(const clv_context *ctx) { return ctx ? ctx->cl : NULL; }
CLV_API cl_device_id clv_context_cl_device(const clv_context *ctx)
{
    return ctx ? ctx->device : NULL;
}
CLV_API cl_command_queue clv_context_cl_queue(const clv_context *ctx)
{
    return ctx ? ctx->queue : NULL;
}

static void release_events(clv_context *ctx)
{
    for (size_t i = 0; i < ctx->nevents; i++)
        clv__release_event(ctx->events[i]);
    ctx->nevents = 0;
}

CLV_API void clv_context_release(clv_context *ctx)
{
    if (!ctx)
        return;
    if (ctx->queue)
        (void)clFinish(ctx->queue); /* nothing useful to do on failure at teardown */
    if (ctx->transfer)
        (void)clFinish(ctx->transfer);
    release_events(ctx);
    for (size_t i = 0; i < ctx->nwaits; i++)
        clv__release_event(ctx->waits[i]);
    free(ctx->waits);
    free(ctx->foreign);
    for (int i = 0; i < CLV__WS_COUNT; i++)
        if (ctx->ws[i] && ctx->ws_free[i])
            ctx->ws_free[i](ctx->ws[i]);
    free(ctx->events);
    free(ctx->event_kernels);
    for (int i = 0; i < CLV__SCRATCH_SLOTS; i++)
        clv__release_mem(ctx->scratch[i]);
    for (int i = 0; i < CLV__PARAM_SLOTS; i++)
        clv__release_mem(ctx->params[i].mem);
    clv__release_mem(ctx->dbg_sizes);
    clv__release_mem(ctx->dbg_err);
    clv__free_programs(ctx);
    for (int i = 0; i < CLV__SRC_COUNT; i++)
        free(ctx->sources[i].text);
    if (ctx->transfer)
        (void)clReleaseCommandQueue(ctx->transfer);
    if (ctx->queue)
        (void)clReleaseCommandQueue(ctx->queue);
    if (ctx->cl)
        (void)clReleaseContext(ctx->cl);
    if (ctx->device_retained)
        (void)clReleaseDevice(ctx->device);
    free(ctx->err);
    free(ctx);
}

CLV_API clv_status clv_finish(clv_context *ctx)
{
    if (!ctx)
        return CLV_ERROR_INVALID_ARGUMENT;
    cl_int err = clFinish(ctx->queue);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, "finish", "clFinish");
    if (ctx->transfer) {
        err = clFinish(ctx->transfer);
        if (err != CL_SUCCESS)
            return clv__fail_cl(ctx, err, "finish", "clFinish(transfer)");
    }
    return CLV_OK;
}

CLV_API clv_status clv_enqueue_wait_events(clv_context *ctx, cl_uint n, const cl_event *events)
{
    static const char OP[] = "enqueue_wait_events";
    if (!ctx)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv__clear_error(ctx);
    if (n == 0)
        return CLV_OK;
    if (!events)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "events is NULL (n %u)", n);
    for (cl_uint i = 0; i < n; i++) {
        if (!events[i])
            return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "event %u of %u is NULL", i,
                             n);
        cl_context c = NULL;
        cl_int err = clGetEventInfo(events[i], CL_EVENT_CONTEXT, sizeof c, &c, NULL);
        if (err != CL_SUCCESS)
            return clv__fail_cl(ctx, err, OP, "clGetEventInfo(CL_EVENT_CONTEXT)");
        if (c != ctx->cl)
            return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP,
                             "event %u of %u belongs to another OpenCL context", i, n);
    }
    /* In order: everything enqueued after the barrier waits for it. */
    cl_int err = clEnqueueBarrierWithWaitList(ctx->queue, n, events, NULL);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, OP, "clEnqueueBarrierWithWaitList");
    return CLV_OK;
}

CLV_API clv_status clv_enqueue_marker(clv_context *ctx, cl_event *event)
{
    static const char OP[] = "enqueue_marker";
    if (event)
        *event = NULL;
    if (!ctx)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv__clear_error(ctx);
    if (!event)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, OP, "event is NULL");
    /* Uploads still in flight on the transfer queue count as enqueued work. */
    cl_event up = NULL;
    cl_int err;
    if (ctx->transfer) {
        err = clEnqueueMarkerWithWaitList(ctx->transfer, 0, NULL, &up);
        if (err != CL_SUCCESS)
            return clv__fail_cl(ctx, err, OP, "clEnqueueMarkerWithWaitList(transfer)");
        err = clFlush(ctx->transfer);
        if (err != CL_SUCCESS) {
            clv__release_event(up);
            return clv__fail_cl(ctx, err, OP, "clFlush(transfer)");
        }
    }
    cl_event ev = NULL;
    err = clEnqueueMarkerWithWaitList(ctx->queue, up ? 1 : 0, up ? &up : NULL, &ev);
    clv__release_event(up);
    if (err != CL_SUCCESS)
        return clv__fail_cl(ctx, err, OP, "clEnqueueMarkerWithWaitList");
    /* The application may wait for it from another queue or the host: the
     * work before it must be submitted. */
    err = clFlush(ctx->queue);
    if (err != CL_SUCCESS) {
        clv__release_event(ev);
        return clv__fail_cl(ctx, err, OP, "clFlush");
    }
    clv__disown_event(ev);
    *event = ev;
    return CLV_OK;
}

CLV_API const char *clv_last_error(const clv_context *ctx)
{
    if (!ctx || !ctx->err)
        return "";
    return ctx->err;
}

void clv__drop_waits(clv_context *ctx)
{
    for (size_t i = 0; i < ctx->nwaits; i++)
        clv__release_event(ctx->waits[i]);
    ctx->nwaits = 0;
    ctx->nforeign = 0;
}

void clv__op_begin(clv_context *ctx)
{
    clv__clear_error(ctx);
    release_events(ctx);
    /* waits gathered by an op that failed before launching are dropped */
    clv__drop_waits(ctx);
    ctx->op_ran = 1;
}

void clv__forget_kernel(clv_context *ctx, cl_kernel k)
{
    release_events(ctx); /* they may name k */
    for (int i = 0; i < ctx->nlimits; i++) {
        if (ctx->limits[i].k == k) {
            ctx->limits[i] = ctx->limits[ctx->nlimits - 1];
            ctx->nlimits--;
            i--;
        }
    }
}

CLV_API clv_status clv_last_op_device_time(clv_context *ctx, double *ms)
{
    clv_status status = CLV_OK;
    if (!ctx)
        return CLV_ERROR_INVALID_ARGUMENT;
    if (!ms)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, "device time", "ms is NULL");
    *ms = 0.0;
    if (!ctx->profiling)
        return clv__fail(ctx, CLV_ERROR_UNSUPPORTED, "device time",
                         "profiling is off (set clv_context_options.profiling or CLV_PROFILE=1)");
    if (!ctx->op_ran)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, "device time", "no operation ran yet");
    if (ctx->nevents) {
        CLV_CHECK_CL(ctx, clWaitForEvents((cl_uint)ctx->nevents, ctx->events), "device time",
                     "clWaitForEvents");
    }
    double total = 0.0;
    for (size_t i = 0; i < ctx->nevents; i++) {
        cl_ulong t0 = 0, t1 = 0;
        CLV_CHECK_CL(ctx, clGetEventProfilingInfo(ctx->events[i], CL_PROFILING_COMMAND_START,
                                                  sizeof t0, &t0, NULL),
                     "device time", "clGetEventProfilingInfo(START)");
        CLV_CHECK_CL(ctx, clGetEventProfilingInfo(ctx->events[i], CL_PROFILING_COMMAND_END,
                                                  sizeof t1, &t1, NULL),
                     "device time", "clGetEventProfilingInfo(END)");
        if (t1 > t0)
            total += (double)(t1 - t0);
        if (ctx->profiling == 2) {
            char name[128] = "?";
            cl_int e = clGetKernelInfo(ctx->event_kernels[i], CL_KERNEL_FUNCTION_NAME,
                                       sizeof name - 1, name, NULL);
            fprintf(stderr, "clv: kernel %-20s %10.3f ms%s\n", name, (double)(t1 - t0) / 1e6,
                    e == CL_SUCCESS ? "" : " (name unavailable)");
        }
    }
    *ms = total / 1e6;
out:
    return status;
}

CLV_API clv_status clv_context_get_stats(const clv_context *ctx, clv_context_stats *stats)
{
    if (!ctx || !stats)
        return CLV_ERROR_INVALID_ARGUMENT;
    *stats = ctx->stats;
    clv__live_objects_of(ctx->cl, &stats->live_mem_objects, &stats->live_kernels,
                         &stats->live_programs, &stats->live_events, &stats->live_queues);
    return CLV_OK;
}

CLV_API clv_status clv_debug_limit_max_alloc(clv_context *ctx, uint64_t bytes)
{
    if (!ctx)
        return CLV_ERROR_INVALID_ARGUMENT;
    clv__clear_error(ctx);
    if (bytes == 0)
        return clv__fail(ctx, CLV_ERROR_INVALID_ARGUMENT, "debug_limit_max_alloc",
                         "bytes must be > 0");
    if (bytes < ctx->info.max_mem_alloc_size)
        ctx->info.max_mem_alloc_size = bytes;
    return CLV_OK;
}

CLV_API const char *clv_context_device_name(const clv_context *ctx)
{
    return ctx ? ctx->info.name : "";
}

CLV_API const char *clv_context_platform_name(const clv_context *ctx)
{
    return ctx ? ctx->info.platform_name : "";
}

CLV_API clv_status clv_list_devices(char *buf, size_t size)
{
    if (!buf || size == 0)
        return CLV_ERROR_INVALID_ARGUMENT;
    buf[0] = '\0';
    clv_context tmp;
    memset(&tmp, 0, sizeof tmp);
    dev_entry *list = NULL;
    size_t n = 0;
    clv_status status = enumerate(&tmp, &list, &n);
    if (status != CLV_OK) {
        snprintf(buf, size, "%s\n", tmp.err ? tmp.err : clv_status_string(status));
        free(tmp.err);
        return status;
    }
    size_t used = 0;
    for (size_t i = 0; i < n && used + 1 < size; i++) {
        char drv[256] = "?", cver[128] = "?";
        cl_int e1 = clGetDeviceInfo(list[i].device, CL_DRIVER_VERSION, sizeof drv - 1, drv, NULL);
        cl_int e2 = clGetDeviceInfo(list[i].device, CL_DEVICE_OPENCL_C_VERSION, sizeof cver - 1,
                                    cver, NULL);
        if (e1 != CL_SUCCESS)
            snprintf(drv, sizeof drv, "? (%s)", clv__cl_error_name(e1));
        if (e2 != CL_SUCCESS)
            snprintf(cver, sizeof cver, "? (%s)", clv__cl_error_name(e2));
        int w = snprintf(buf + used, size - used,
                         "%d:%d  %-4s  %s  [platform: %s]  driver %s  %s\n", list[i].p, list[i].d,
                         type_name(list[i].type), list[i].name, list[i].platform_name, drv, cver);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    free(list);
    free(tmp.err);
    return CLV_OK;
}

CLV_API clv_status clv_device_resolve(const char *spec, clv_device_choice *out)
{
    if (!out)
        return CLV_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    /* The same order as clv_context_create: the spec, CLV_DEVICE, the default. */
    const char *source = "argument";
    if (!spec || !*spec) {
        spec = getenv("CLV_DEVICE");
        source = "CLV_DEVICE";
    }
    if (!spec || !*spec) {
        spec = "";
        source = "default";
    }
    snprintf(out->source, sizeof out->source, "%s", source);
    /* Quoted in a line of text: control characters become '?'. */
    size_t k = 0;
    for (; spec[k] && k + 1 < sizeof out->spec; k++)
        out->spec[k] = iscntrl((unsigned char)spec[k]) ? '?' : spec[k];
    out->spec[k] = '\0';

    clv_context tmp;
    memset(&tmp, 0, sizeof tmp);
    dev_entry *list = NULL;
    size_t n = 0;
    clv_status status = enumerate(&tmp, &list, &n);
    if (status != CLV_OK) {
        snprintf(out->explanation, sizeof out->explanation, "%s",
                 tmp.err ? tmp.err : clv_status_string(status));
        goto out;
    }
    int count = 0, how = BY_DEFAULT;
    int idx = match(list, n, spec, &count, &how);
    if (idx < 0) {
        char avail[768]; /* with the words and spec, fits the explanation */
        describe_devices(list, n, avail, sizeof avail);
        if (*spec)
            snprintf(out->explanation, sizeof out->explanation,
                     "%s '%s' matches no device; available: %s",
                     strcmp(source, "CLV_DEVICE") == 0 ? "CLV_DEVICE" : "device", out->spec, avail);
        else
            snprintf(out->explanation, sizeof out->explanation,
                     "no GPU or CPU device; available: %s", avail);
        status = CLV_ERROR_NO_DEVICE;
        goto out;
    }
    out->platform_index = list[idx].p;
    out->device_index = list[idx].d;
    out->matches = count;
    out->by_name = how == BY_NAME;
    snprintf(out->device_name, sizeof out->device_name, "%s", list[idx].name);
    snprintf(out->type, sizeof out->type, "%s", type_name(list[idx].type));
    explain(list, n, idx, how, count, out->spec, out->explanation, sizeof out->explanation);
out:
    free(list);
    free(tmp.err);
    return status;
}

/* ---- device information ---- */

static void public_info(const clv__device_info *in, clv_device_info *out)
{
    memset(out, 0, sizeof *out);
    out->platform_index = in->p;
    out->device_index = in->d;
    snprintf(out->type, sizeof out->type, "%s", type_name(in->type));
    snprintf(out->name, sizeof out->name, "%s", in->name);
    snprintf(out->vendor, sizeof out->vendor, "%s", in->vendor);
    snprintf(out->driver_version, sizeof out->driver_version, "%s", in->driver_version);
    snprintf(out->platform_name, sizeof out->platform_name, "%s", in->platform_name);
    snprintf(out->platform_version, sizeof out->platform_version, "%s", in->platform_version);
    snprintf(out->opencl_c_version, sizeof out->opencl_c_version, "%s", in->c_version);
    out->compute_units = in->compute_units;
    out->max_work_group_size = in->max_work_group_size;
    memcpy(out->max_work_item_sizes, in->max_work_item_sizes, sizeof out->max_work_item_sizes);
    out->local_mem_size = in->local_mem_size;
    out->global_mem_size = in->global_mem_size;
    out->max_mem_alloc_size = in->max_mem_alloc_size;
    out->image_support = in->image_support ? 1 : 0;
    out->extensions = in->ext;
    out->fp16 = (in->ext & CLV_EXT_FP16) != 0;
}

CLV_API clv_status clv_context_device_info(const clv_context *ctx, clv_device_info *out)
{
    if (!ctx || !out)
        return CLV_ERROR_INVALID_ARGUMENT;
    public_info(&ctx->info, out);
    return CLV_OK;
}

CLV_API clv_status clv_device_info_get(const char *spec, clv_device_info *out)
{
    create_error[0] = '\0';
    if (!out) {
        snprintf(create_error, sizeof create_error, "device info: out is NULL");
        return CLV_ERROR_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    clv_device_choice c;
    clv_status status = clv_device_resolve(spec, &c);
    if (status != CLV_OK) {
        snprintf(create_error, sizeof create_error, "%s", c.explanation);
        return status;
    }
    /* A scratch context carries the handles and the error message through
     * the same queries clv_context_create makes. */
    clv_context tmp;
    memset(&tmp, 0, sizeof tmp);
    dev_entry *list = NULL;
    size_t n = 0;
    CLV_TRY(enumerate(&tmp, &list, &n));
    for (size_t i = 0; i < n; i++)
        if (list[i].p == c.platform_index && list[i].d == c.device_index) {
            tmp.platform = list[i].platform;
            tmp.device = list[i].device;
        }
    if (!tmp.device) {
        status = clv__fail(&tmp, CLV_ERROR_NO_DEVICE, "device info",
                           "device %d:%d went away while it was looked up", c.platform_index,
                           c.device_index);
        goto out;
    }
    CLV_TRY(query_info(&tmp));
    tmp.info.p = c.platform_index;
    tmp.info.d = c.device_index;
    public_info(&tmp.info, out);
out:
    if (status != CLV_OK)
        snprintf(create_error, sizeof create_error, "%s",
                 tmp.err ? tmp.err : clv_status_string(status));
    free(list);
    free(tmp.err);
    return status;
}
