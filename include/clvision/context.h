/* clvision — context: one OpenCL device, its queue, its built programs.
 *
 * Thread safety: a context and everything made from it (images) may be used
 * by one thread at a time. Separate contexts in separate threads are safe.
 * Functions that take no context (clv_status_string, clv_version, image file
 * I/O) are thread-safe.
 */
#ifndef CLVISION_CONTEXT_H
#define CLVISION_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct clv_context clv_context;

/* Largest kernel source (.cl) file clvision reads, in bytes (16 MiB). Kernel
 * files may be symbolic links, but the file reached must be a regular file
 * of at most this size: a FIFO, device or directory (opened without
 * blocking) or a larger file is CLV_ERROR_KERNEL_SOURCE naming the file. */
#define CLV_MAX_KERNEL_SOURCE_BYTES (16u * 1024u * 1024u)

typedef struct clv_context_options {
    /* Device spec, same syntax as CLV_DEVICE: "gpu", "cpu", "P:D" (platform
     * and device index, from 0) or a case-insensitive substring of the
     * platform, vendor or device name. NULL: use CLV_DEVICE, else the first
     * GPU, else the first CPU device. */
    const char *device;
    /* Directory holding the .cl files. NULL: CLV_KERNEL_PATH, else the
     * installed <datadir>/clvision/cl found relative to the library's own
     * file (a moved install still works), else the configured install
     * directory, else the source tree next to the build. An explicit
     * directory (here or in CLV_KERNEL_PATH) is the only one tried. */
    const char *kernel_path;
    /* Program binary cache directory. NULL: CLV_CACHE_DIR, else
     * $XDG_CACHE_HOME/clvision, else ~/.cache/clvision (created mode 0700).
     * Trust model: cache entries are native code the driver loads as is, so
     * the directory must be owned by the effective user and writable by
     * nobody else (no group/other write bit), and so must each entry, which
     * must also be a regular file (not a symlink, FIFO or device; opened
     * without blocking). Otherwise nothing is loaded from or stored in it:
     * each refused entry (or lookup in a refused directory) counts in
     * cache_rejected and the program is built from source. Damage inside a
     * trusted directory (truncation, flipped bits, a copied entry) is caught
     * by a SHA-256 over the whole entry, and a binary whose length or hash
     * disagrees with its header never reaches the driver. */
    const char *cache_dir;
    /* 0: use CLV_CACHE (unset or anything but "0" means on); 1: on; -1: off;
     * anything else: CLV_ERROR_INVALID_ARGUMENT. */
    int cache;
    /* Non-zero: create the queue with profiling so clv_last_op_device_time()
     * works. Also switched on by CLV_PROFILE=1 (2: also print each kernel's
     * time on stderr when clv_last_op_device_time() reads them). */
    int profiling;
    /* Non-zero: debug mode, also switched on by CLV_DEBUG=1. Kernels are
     * built with bounds checks on every global buffer access; the first
     * out-of-bounds access of a launch is reported as CLV_ERROR_KERNEL_FAULT
     * naming the kernel, the work-item, the buffer argument and the index.
     * Every launch waits for its kernel: slow, for finding bugs only. */
    int debug;
} clv_context_options;

/* Runtime statistics, for tests and tools. */
typedef struct clv_context_stats {
    uint64_t programs_built;   /* programs compiled from source */
    uint64_t cache_hits;       /* programs loaded from the disk cache */
    uint64_t cache_rejected;   /* disk entries refused: corrupt, truncated, mismatched, not
                                * a regular file, untrusted owner/mode (entry or directory) */
    uint64_t cache_writes;     /* entries written to disk */
    uint64_t cache_write_failures; /* entries that could not be written (no space, no rights) */
    uint64_t kernels_launched; /* kernel enqueues since creation */
    /* OpenCL objects of this context alive now (created or retained by
     * clvision and not yet released). Flat over a long run; see also
     * clv_debug_live_objects() for the whole process. */
    uint64_t live_mem_objects;
    uint64_t live_kernels;
    uint64_t live_programs;
    uint64_t live_events;
    uint64_t live_queues;
} clv_context_stats;

/* Options with every field at its default (all NULL / 0). */
CLV_API clv_context_options clv_context_options_default(void);

/* Create a context on the chosen device. Reads every .cl file now (a missing
 * one is CLV_ERROR_KERNEL_SOURCE), builds programs lazily on first use.
 * opts may be NULL. On failure *out is NULL and, when the failure happened
 * after the message could be recorded, clv_context_create_error() explains.
 * Returns CLV_OK, CLV_ERROR_INVALID_ARGUMENT, CLV_ERROR_NO_DEVICE,
 * CLV_ERROR_KERNEL_SOURCE, CLV_ERROR_OPENCL, CLV_ERROR_OUT_OF_MEMORY. */
CLV_API clv_status clv_context_create(const clv_context_options *opts, clv_context **out);

/* Message of the last clv_context_create() failure in this thread ("" if none). */
CLV_API const char *clv_context_create_error(void);

/* Waits for queued work, releases everything the context owns. NULL is fine.
 * Images made from the context must be released before it. A context made
 * on the application's objects (clv_context_create_cl, cl_interop.h)
 * releases only its own references to them. */
CLV_API void clv_context_release(clv_context *ctx);

/* Block until every operation enqueued on the context has finished.
 * Returns CLV_OK or CLV_ERROR_OPENCL. */
CLV_API clv_status clv_finish(clv_context *ctx);

/* Human-readable detail of the last error on this context: the op name, the
 * failed OpenCL call with its CL_* name, or the build options and full build
 * log. "" when none. Valid until the next call on the context.
 * clvision prints nothing itself. Some drivers' compilers (PoCL's) write to
 * file descriptor 2 while building; clvision points fd 2 at an anonymous
 * temporary file around each program build (under a process-wide lock) and
 * puts that output into this message when the build fails; after a
 * successful build whatever was captured (the driver's, or another thread's
 * output of the application) is written back to fd 2. */
CLV_API const char *clv_last_error(const clv_context *ctx);

/* Device time of the kernels of the last operation, in milliseconds (sum of
 * kernel execution times from profiling events). Waits for them. Returns
 * CLV_ERROR_UNSUPPORTED when profiling is off, CLV_ERROR_INVALID_ARGUMENT
 * when no operation ran yet. */
CLV_API clv_status clv_last_op_device_time(clv_context *ctx, double *ms);

/* Counters since creation. */
CLV_API clv_status clv_context_get_stats(const clv_context *ctx, clv_context_stats *stats);

/* Names of the chosen device and its platform (valid while ctx lives). */
CLV_API const char *clv_context_device_name(const clv_context *ctx);
CLV_API const char *clv_context_platform_name(const clv_context *ctx);

/* Writes one line per platform and device (index P:D, type, name, driver
 * version, OpenCL C version) into buf (always NUL-terminated, truncated if
 * small). Returns CLV_ERROR_NO_DEVICE when there is no platform at all. */
CLV_API clv_status clv_list_devices(char *buf, size_t size);

/* How a device spec resolves: the device clv_context_create() takes for it,
 * and why. */
typedef struct clv_device_choice {
    int platform_index; /* P and D of the chosen device, as clv_list_devices() */
    int device_index;   /* prints them */
    /* Devices the spec matched (a name substring), or of the type it asked
     * for ("gpu", "cpu", and the default's type); the first is used. 1 for P:D. */
    int matches;
    /* 1 when the spec was taken as a substring of the platform, vendor or
     * device name (it is not "gpu", "cpu" or P:D): it may have matched a
     * device of another type than meant (CLV_DEVICE=amd and an AMD CPU). */
    int by_name;
    /* Where the spec came from: "argument" (the spec passed in), "CLV_DEVICE"
     * or "default" (neither: the first GPU, else the first CPU). */
    char source[16];
    char spec[128];        /* the spec used ("" for the default), truncated */
    char device_name[256]; /* CL_DEVICE_NAME of the chosen device */
    char type[16];         /* its type: "gpu", "cpu", "accelerator" or "other" */
    /* One line saying how the spec resolved, e.g. "'amd' matched 2 devices
     * by name (0:0, 0:1); using 0:0 'pthread-haswell-AMD EPYC' (cpu)",
     * "'0:1' is device 0:1 '...' (cpu)", "no device asked for (the first
     * GPU, else the first CPU); using 0:0 '...' (cpu)". On failure the error:
     * "CLV_DEVICE 'x' matches no device; available: ...". */
    char explanation[1024];
} clv_device_choice;

/* Resolve a device spec exactly as clv_context_create() does with
 * options.device = spec (NULL or "": CLV_DEVICE, else the default), without
 * creating anything or reading kernels. Fills *out (zeroed first). Returns
 * CLV_OK, CLV_ERROR_INVALID_ARGUMENT (out NULL), CLV_ERROR_NO_DEVICE (no
 * platform or device, or the spec matches none: out->explanation says so
 * and lists the devices), CLV_ERROR_OPENCL. Thread-safe. */
CLV_API clv_status clv_device_resolve(const char *spec, clv_device_choice *out);

/* ---- what a device is ----
 *
 * The OpenCL extensions clvision's kernels use or check (bits of
 * clv_device_info.extensions): set when CL_DEVICE_EXTENSIONS names them.
 * On OpenCL 1.1 and later devices the first five are core features (every
 * OpenCL 1.2 device has them, whether it lists them or not); clvision's
 * kernels use 32-bit global and local atomics (histograms, corner lists,
 * work-group maxima) and byte stores (u8 images). fp16 and fp64 are not
 * used today and are reported for applications that choose kernels by them. */
#define CLV_EXT_BYTE_ADDRESSABLE_STORE   (1u << 0) /* cl_khr_byte_addressable_store */
#define CLV_EXT_GLOBAL_INT32_BASE_ATOMICS (1u << 1) /* cl_khr_global_int32_base_atomics */
#define CLV_EXT_GLOBAL_INT32_EXT_ATOMICS (1u << 2) /* cl_khr_global_int32_extended_atomics */
#define CLV_EXT_LOCAL_INT32_BASE_ATOMICS (1u << 3) /* cl_khr_local_int32_base_atomics */
#define CLV_EXT_LOCAL_INT32_EXT_ATOMICS  (1u << 4) /* cl_khr_local_int32_extended_atomics */
#define CLV_EXT_FP16                     (1u << 5) /* cl_khr_fp16 */
#define CLV_EXT_FP64                     (1u << 6) /* cl_khr_fp64 */

/* Name of one CLV_EXT_* bit ("cl_khr_fp16", ...); NULL for anything else. */
CLV_API const char *clv_extension_name(unsigned bit);

/* A device as clvision sees it: what clGetDeviceInfo / clGetPlatformInfo
 * report, copied (strings truncated to their arrays, always NUL-terminated). */
typedef struct clv_device_info {
    int platform_index;        /* P and D as clv_list_devices() prints them; -1 for */
    int device_index;          /* a context on an application's device (cl_interop.h) */
    char type[16];             /* "gpu", "cpu", "accelerator" or "other" */
    char name[256];            /* CL_DEVICE_NAME */
    char vendor[256];          /* CL_DEVICE_VENDOR */
    char driver_version[256];  /* CL_DRIVER_VERSION */
    char platform_name[256];   /* CL_PLATFORM_NAME */
    char platform_version[256]; /* CL_PLATFORM_VERSION */
    char opencl_c_version[128]; /* CL_DEVICE_OPENCL_C_VERSION, e.g. "OpenCL C 1.2 PoCL" */
    unsigned compute_units;    /* CL_DEVICE_MAX_COMPUTE_UNITS */
    size_t max_work_group_size; /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    size_t max_work_item_sizes[3]; /* CL_DEVICE_MAX_WORK_ITEM_SIZES */
    unsigned long long local_mem_size;     /* CL_DEVICE_LOCAL_MEM_SIZE, bytes */
    unsigned long long global_mem_size;    /* CL_DEVICE_GLOBAL_MEM_SIZE, bytes */
    unsigned long long max_mem_alloc_size; /* CL_DEVICE_MAX_MEM_ALLOC_SIZE, bytes:
                                              the largest image clvision makes */
    int image_support;         /* CL_DEVICE_IMAGE_SUPPORT (clvision uses buffers only) */
    unsigned extensions;       /* CLV_EXT_* bits */
    int fp16;                  /* extensions & CLV_EXT_FP16, for convenience */
} clv_device_info;

/* The device of ctx (whichever way the context was made). Returns CLV_OK,
 * CLV_ERROR_INVALID_ARGUMENT (ctx or out NULL). No device call: the values
 * were read when ctx was created. */
CLV_API clv_status clv_context_device_info(const clv_context *ctx, clv_device_info *out);

/* The device a spec resolves to (as clv_device_resolve(): NULL or "" means
 * CLV_DEVICE, else the default), without creating a context. Fills *out
 * (zeroed first). On failure clv_context_create_error() says why. Returns
 * CLV_OK, CLV_ERROR_INVALID_ARGUMENT (out NULL), CLV_ERROR_NO_DEVICE (no
 * device, or none matches the spec), CLV_ERROR_OPENCL (a query failed: the
 * message names it), CLV_ERROR_OUT_OF_MEMORY. Thread-safe. */
CLV_API clv_status clv_device_info_get(const char *spec, clv_device_info *out);

/* ---- PoCL's CPU worker threads ---- */

/* Before it first enumerates OpenCL platforms in the process (the first
 * clv_context_create, clv_list_devices, clv_device_resolve or
 * clv_device_info_get), clvision sets POCL_AFFINITY=1 (setenv) when the
 * variable is unset, so that PoCL's CPU driver pins worker thread i to CPU i:
 * unpinned, its workers often share one CPU for a whole process (kernels at
 * one core's speed). It leaves any value the user set alone (POCL_AFFINITY=0
 * turns pinning off), and sets nothing when the process may not run on
 * exactly CPUs 0..N-1 of the N online ones (taskset, cpuset), or when
 * POCL_MAX_PTHREAD_COUNT or POCL_PTHREAD_MIN_THREADS asks for more than N
 * workers. Other OpenCL implementations do not read the variable; child
 * processes inherit it. Too late for PoCL if the application touched OpenCL
 * first (clv_context_create_cl): set it yourself then. Like any setenv, the
 * first enumeration must not run while another thread reads or changes the
 * environment.
 * Returns a sentence saying what was decided, e.g. "POCL_AFFINITY=1 set by
 * clvision (...)", "POCL_AFFINITY=0 left as the user set it",
 * "POCL_AFFINITY not set: <why>", or "not decided yet: ..." before the
 * first enumeration. Static storage; thread-safe. */
CLV_API const char *clv_pocl_affinity_note(void);

/* ---- the program cache directory ---- */

/* What clv_cache_info found, or clv_cache_clear removed. */
typedef struct clv_cache_dir_info {
    char dir[4096];   /* the directory (the default resolved, as contexts resolve it) */
    int exists;       /* 1: dir exists and is a directory */
    int trusted;      /* 1: owned by the effective user, writable by nobody else
                         (the rule of clv_context_options.cache_dir) */
    uint64_t entries; /* clvision's entries: regular files named <32 hex>.clvbin, and
                         temporaries <32 hex>.clvbin.tmp.XXXXXX left by a crash */
    uint64_t bytes;   /* their sizes, summed */
    char message[512]; /* on failure: what failed (about dir, or an entry by name) */
} clv_cache_dir_info;

/* The cache directory a context made with options.cache_dir = dir would use
 * (NULL or "": CLV_CACHE_DIR, else $XDG_CACHE_HOME/clvision, else
 * ~/.cache/clvision), and clvision's entries in it, counted without
 * following symbolic links (a link named like an entry is not counted; the
 * directory path itself may be one). Other files are not counted. A
 * directory that does not exist is CLV_OK with exists 0. Fills *out (zeroed
 * first). Returns CLV_OK; CLV_ERROR_INVALID_ARGUMENT (out NULL, or no
 * directory: none given and neither variable nor HOME set); CLV_ERROR_IO
 * (dir is not a directory or cannot be read: out->message says why).
 * Thread-safe. */
CLV_API clv_status clv_cache_info(const char *dir, clv_cache_dir_info *out);

/* Remove clvision's entries (the files clv_cache_info counts) from the
 * cache directory dir (resolved as clv_cache_info does) and nothing else:
 * other files, subdirectories and symbolic links stay, and links are never
 * followed. *out (zeroed first) says what was removed (entries, bytes), the
 * directory and whether it is trusted. A directory that does not exist is
 * CLV_OK with nothing removed. Returns as clv_cache_info, and CLV_ERROR_IO
 * when an entry cannot be removed (out->message names it; entries removed
 * before it are counted). Thread-safe; a context using the directory at the
 * same time rebuilds what it misses. */
CLV_API clv_status clv_cache_clear(const char *dir, clv_cache_dir_info *out);

/* ---- Debugging and testing ---- */

/* OpenCL objects alive in the whole process (all contexts). All zero once
 * every context and image has been released. */
typedef struct clv_live_objects {
    uint64_t mem_objects, kernels, programs, events, queues, contexts;
} clv_live_objects;
CLV_API void clv_debug_live_objects(clv_live_objects *out);

/* Fault injection, only in builds configured with -Dfault_injection=true
 * (elsewhere any n other than 0 returns CLV_ERROR_UNSUPPORTED). Every OpenCL
 * call clvision makes, except releases, is numbered from 1 in process order
 * (clv_debug_cl_calls() reads the counter); clv_debug_fail_at(n) makes call
 * number n fail with a plausible CL error (CL_OUT_OF_RESOURCES,
 * CL_OUT_OF_HOST_MEMORY, CL_MEM_OBJECT_ALLOCATION_FAILURE) instead of
 * running it; 0 turns injection off. clv_debug_injected_call() names the
 * call that was made to fail ("" if none since the last clv_debug_fail_at).
 * Process-wide, not thread-safe against concurrent clvision use. */
CLV_API clv_status clv_debug_fail_at(uint64_t n);
CLV_API uint64_t clv_debug_cl_calls(void);
CLV_API const char *clv_debug_injected_call(void);

/* Test hook for debug mode: builds the kernel file cl_path (after the
 * prelude, with the context's options), creates a buffer of n_elems floats
 * (zeroed), and launches kernel_name over a 1-D range of global_size items
 * with arguments (buffer, (int)n_elems), then waits. Returns the launch's
 * status: in debug mode an out-of-bounds access is CLV_ERROR_KERNEL_FAULT. */
CLV_API clv_status clv_debug_run_test_kernel(clv_context *ctx, const char *cl_path,
                                             const char *kernel_name, size_t global_size,
                                             size_t n_elems);

/* Test hook: lower the device's largest allocation as clvision sees it
 * (CL_DEVICE_MAX_MEM_ALLOC_SIZE) to bytes for this context (never raises
 * it), so "too large for the device" paths can be tested with small images.
 * CLV_ERROR_INVALID_ARGUMENT for a NULL ctx or bytes 0. */
CLV_API clv_status clv_debug_limit_max_alloc(clv_context *ctx, uint64_t bytes);

/* Test hook: SHA-256 (FIPS 180-4) of len bytes, as the program cache uses it. */
CLV_API void clv_debug_sha256(const void *data, size_t len, unsigned char out[32]);

/* Runtime version string, e.g. "0.1.0". */
CLV_API const char *clv_version(void);

#ifdef __cplusplus
}
#endif

#endif
