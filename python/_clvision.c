/* clvision._clvision — the C half of the Python binding.
 *
 * Small on purpose (pyvips's shape): contexts, device images, pyramids, one
 * generic call through clv_op_call with the arguments bound from the
 * operation's descriptor, the descriptors themselves for clvision/__init__.py
 * to generate the operation functions from, image and flow file I/O, and the
 * OpenCL handles for interop. There is no code per operation here.
 *
 * Threads: the GIL is released around every library call that may take
 * time. A clvision context (and its images) may be used by one thread at a
 * time, so each Context carries a lock taken, with the GIL released, around
 * every library call on it and its images; two Python threads sharing a
 * Context are serialised instead of racing. Images of several contexts in
 * one call: every context involved is locked, in address order. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
/* numpy 2 hides PyArray_Descr's fields behind accessors (static inline
 * functions of npy_2_compat.h); numpy 1 (Debian 12's 1.24) has the field
 * only. */
#if NPY_ABI_VERSION < 0x02000000
#define PyDataType_ELSIZE(d) ((d)->elsize)
#endif

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <clvision/cl_interop.h>
#include <clvision/clvision.h>

/* ---- exceptions: clvision.Error and one subclass per clv_status ---- */

#define N_STATUS 11 /* CLV_OK .. -CLV_ERROR_KERNEL_FAULT */
static PyObject *Error;
static PyObject *status_class[N_STATUS];

static const struct {
    clv_status status;
    const char *name;   /* the class name */
    const char *extra;  /* a builtin base besides Error, or NULL */
} status_names[] = {
    {CLV_ERROR_INVALID_ARGUMENT, "InvalidArgumentError", "ValueError+TypeError"},
    {CLV_ERROR_OUT_OF_MEMORY, "OutOfMemoryError", "MemoryError"},
    {CLV_ERROR_NO_DEVICE, "NoDeviceError", NULL},
    {CLV_ERROR_OPENCL, "OpenCLError", NULL},
    {CLV_ERROR_BUILD, "BuildError", NULL},
    {CLV_ERROR_KERNEL_SOURCE, "KernelSourceError", NULL},
    {CLV_ERROR_UNSUPPORTED, "UnsupportedError", NULL},
    {CLV_ERROR_IO, "IoError", "OSError"},
    {CLV_ERROR_FORMAT, "FormatError", "ValueError"},
    {CLV_ERROR_KERNEL_FAULT, "KernelFaultError", NULL},
};

/* Raise the class of status s with message msg (s's own string when msg is
 * empty); .status and .message are set on the exception. Returns NULL. */
static PyObject *raise_status(clv_status s, const char *msg)
{
    PyObject *cls = (s < 0 && -s < N_STATUS && status_class[-s]) ? status_class[-s] : Error;
    const char *text = msg && msg[0] ? msg : clv_status_string(s);
    PyObject *exc = PyObject_CallFunction(cls, "s", text);
    if (!exc)
        return NULL;
    PyObject *st = PyLong_FromLong((long)s), *m = PyUnicode_FromString(text);
    if (st && m && PyObject_SetAttrString(exc, "status", st) == 0 &&
        PyObject_SetAttrString(exc, "message", m) == 0)
        PyErr_SetObject(cls, exc);
    Py_XDECREF(st);
    Py_XDECREF(m);
    Py_DECREF(exc);
    return NULL;
}

/* An argument error found here, before the library: InvalidArgumentError. */
static PyObject *raise_arg(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return raise_status(CLV_ERROR_INVALID_ARGUMENT, buf);
}

/* The library's message for a failed call, copied before the lock is let go
 * (clv_last_error is valid until the next call on the context). */
typedef struct {
    char text[8192];
} message;

static void copy_message(message *m, const char *s)
{
    snprintf(m->text, sizeof m->text, "%s", s ? s : "");
}

/* ---- types ---- */

typedef struct {
    PyObject_HEAD
    clv_context *ctx;
    PyThread_type_lock lock;
    PyObject *owner; /* objects an interop context was made on (kept alive), or NULL */
} ContextObject;

typedef struct {
    PyObject_HEAD
    clv_image *img;
    ContextObject *context; /* strong: the context outlives its images */
    PyObject *owner;        /* the image of a view, the pyramid of a level, a wrapped buffer */
    int borrowed;           /* a pyramid's level: the pyramid releases it */
} ImageObject;

typedef struct {
    PyObject_HEAD
    clv_pyramid *pyr;
    ContextObject *context;
} PyramidObject;

static PyTypeObject ContextType, ImageType, PyramidType;

/* Take c's lock; the GIL must be released by the caller. */
static void lock_ctx(ContextObject *c) { PyThread_acquire_lock(c->lock, WAIT_LOCK); }
static void unlock_ctx(ContextObject *c) { PyThread_release_lock(c->lock); }

/* s = CALL, a clvision call on co's context, with the GIL released and co
 * locked; on failure m (a message) gets the context's last error. */
#define CTX_CALL(co, s, m, CALL)                                                                \
    do {                                                                                        \
        Py_BEGIN_ALLOW_THREADS                                                                  \
        lock_ctx(co);                                                                           \
        (s) = (CALL);                                                                           \
        if ((s) != CLV_OK)                                                                      \
            copy_message(&(m), clv_last_error((co)->ctx));                                      \
        unlock_ctx(co);                                                                         \
        Py_END_ALLOW_THREADS                                                                    \
    } while (0)

/* ---- dtypes ---- */

static int dtype_to_clv(PyObject *obj, clv_pixel_type *out)
{
    PyArray_Descr *d = NULL;
    if (!PyArray_DescrConverter2(obj, &d) || !d) {
        PyErr_Clear();
        raise_arg("dtype must be uint8, uint16 or float32");
        return 0;
    }
    int num = d->type_num, native = PyArray_ISNBO(d->byteorder);
    Py_DECREF(d);
    if (native && num == NPY_UINT8)
        *out = CLV_U8;
    else if (native && num == NPY_UINT16)
        *out = CLV_U16;
    else if (native && num == NPY_FLOAT32)
        *out = CLV_F32;
    else {
        raise_arg("dtype must be uint8, uint16 or float32 (native byte order)");
        return 0;
    }
    return 1;
}

static int clv_to_npy(clv_pixel_type t)
{
    return t == CLV_U8 ? NPY_UINT8 : t == CLV_U16 ? NPY_UINT16 : NPY_FLOAT32;
}

/* An int argument in [lo, hi] (Python ints and numpy integers). */
static int get_int(PyObject *obj, const char *what, long long lo, long long hi, long long *out)
{
    if (!obj || obj == Py_None || PyFloat_Check(obj) || !PyIndex_Check(obj)) {
        raise_arg("%s must be an integer (got %s)", what, obj ? Py_TYPE(obj)->tp_name : "nothing");
        return 0;
    }
    PyObject *idx = PyNumber_Index(obj);
    if (!idx)
        return 0;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(idx, &overflow);
    Py_DECREF(idx);
    if (v == -1 && PyErr_Occurred())
        return 0;
    if (overflow || v < lo || v > hi) {
        raise_arg("%s must be in %lld..%lld", what, lo, hi);
        return 0;
    }
    *out = v;
    return 1;
}

/* ---- host arrays <-> images ----
 * An array is (H, W) for one channel or (H, W, C); its pixels within a row
 * must be packed (the last two strides C*itemsize and itemsize); rows may be
 * any positive distance apart: that distance is the C API's host stride.
 * Anything else (a column slice with a step, a transposed array, negative
 * strides) is refused rather than copied. */
static int check_array(PyArrayObject *a, int width, int height, int channels, clv_pixel_type t,
                       int writable, const char *what, size_t *stride)
{
    const int nd = PyArray_NDIM(a);
    const npy_intp *dims = PyArray_DIMS(a), *st = PyArray_STRIDES(a);
    const size_t item = clv_pixel_type_size(t);
    if (PyArray_TYPE(a) != clv_to_npy(t) || !PyArray_ISNOTSWAPPED(a))
        return raise_arg("%s: dtype is %s, the image's is %s", what,
                         PyArray_DESCR(a)->typeobj->tp_name,
                         t == CLV_U8 ? "uint8" : t == CLV_U16 ? "uint16" : "float32"),
               0;
    const int ok_shape = (nd == 2 && channels == 1) || nd == 3;
    if (!ok_shape || dims[0] != height || dims[1] != width || (nd == 3 && dims[2] != channels)) {
        char want[64], got[96] = "";
        if (channels == 1)
            snprintf(want, sizeof want, "(%d, %d) or (%d, %d, 1)", height, width, height, width);
        else
            snprintf(want, sizeof want, "(%d, %d, %d)", height, width, channels);
        for (int i = 0; i < nd && i < 8; i++) {
            size_t n = strlen(got);
            snprintf(got + n, sizeof got - n, "%s%zd", i ? ", " : "", (Py_ssize_t)dims[i]);
        }
        return raise_arg("%s: shape must be %s for the image (got (%s))", what, want, got), 0;
    }
    if ((nd == 3 && channels > 1 && st[2] != (npy_intp)item) ||
        (width > 1 && st[1] != (npy_intp)(item * (size_t)channels)) ||
        (height > 1 && st[0] < (npy_intp)(item * (size_t)channels * (size_t)width)))
        return raise_arg("%s: pixels within a row must be contiguous and rows in order "
                         "(strides %zd, %zd): pass np.ascontiguousarray(a), a copy",
                         what, (Py_ssize_t)st[0], (Py_ssize_t)st[1]),
               0;
    if (writable && !PyArray_ISWRITEABLE(a))
        return raise_arg("%s: the array is read-only", what), 0;
    if (!PyArray_ISALIGNED(a))
        return raise_arg("%s: the array is not aligned", what), 0;
    *stride = height > 1 ? (size_t)st[0] : item * (size_t)channels * (size_t)width;
    return 1;
}

/* ---- 64-byte aligned numpy memory (NEP 49) ----
 * A numpy memory handler ("mem_handler" capsule) whose blocks start on
 * CLV_PITCH_ALIGN bytes: arrays allocated under it meet clv_image_create_host's
 * data rule, so a CPU device uses them in place instead of copying them
 * (their rows must still be multiples of 64 bytes). Each block is one malloc
 * (calloc for np.zeros: fresh pages stay lazily zeroed) with the aligned
 * start past a header {raw pointer, size}; realloc moves the data when the
 * new block's alignment offset differs. Blocks of 4 MiB or more are marked
 * for transparent huge pages, as numpy's own handler does. An array records
 * the handler it was allocated with, so it is freed correctly whatever the
 * current handler is when it dies. */
#if NPY_API_VERSION >= 0x00000010 /* numpy 1.22: PyDataMem_SetHandler */
#define CLV_PY_HANDLER 1
#include <sys/mman.h>

typedef struct {
    void *raw;
    size_t size;
} block_head;

#define BLOCK_SLACK (sizeof(block_head) + CLV_PITCH_ALIGN - 1)

static char *block_start(char *raw)
{
    return (char *)(((uintptr_t)raw + sizeof(block_head) + CLV_PITCH_ALIGN - 1) &
                    ~(uintptr_t)(CLV_PITCH_ALIGN - 1));
}

/* Write the header of the block at raw holding size bytes (after the data is
 * in place: the header may lie where a moved block's data was). */
static void *block_place(char *raw, size_t size)
{
    char *p = block_start(raw);
    block_head h = {raw, size};
    memcpy(p - sizeof h, &h, sizeof h);
#ifdef MADV_HUGEPAGE
    if (size >= ((size_t)1 << 22)) {
        const uintptr_t page = 4096, start = ((uintptr_t)p + page - 1) & ~(page - 1);
        const uintptr_t end = ((uintptr_t)p + size) & ~(page - 1);
        if (end > start)
            (void)madvise((void *)start, end - start, MADV_HUGEPAGE); /* advice only */
    }
#endif
    return p;
}

static block_head block_of(void *p)
{
    block_head h;
    memcpy(&h, (char *)p - sizeof h, sizeof h);
    return h;
}

static void *aligned_malloc(void *ctx, size_t size)
{
    (void)ctx;
    if (size > SIZE_MAX - BLOCK_SLACK)
        return NULL;
    char *raw = malloc(size + BLOCK_SLACK);
    return raw ? block_place(raw, size) : NULL;
}

static void *aligned_calloc(void *ctx, size_t n, size_t elsize)
{
    (void)ctx;
    if (elsize && n > (SIZE_MAX - BLOCK_SLACK) / elsize)
        return NULL;
    const size_t size = n * elsize;
    char *raw = calloc(1, size + BLOCK_SLACK);
    return raw ? block_place(raw, size) : NULL;
}

static void *aligned_realloc(void *ctx, void *ptr, size_t size)
{
    if (!ptr)
        return aligned_malloc(ctx, size);
    if (size > SIZE_MAX - BLOCK_SLACK)
        return NULL;
    const block_head old = block_of(ptr);
    const size_t off = (size_t)((char *)ptr - (char *)old.raw);
    char *raw = realloc(old.raw, size + BLOCK_SLACK);
    if (!raw)
        return NULL; /* the old block stays valid, as realloc's */
    char *p = block_start(raw);
    if ((size_t)(p - raw) != off)
        memmove(p, raw + off, old.size < size ? old.size : size);
    return block_place(raw, size);
}

static void aligned_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    if (ptr)
        free(block_of(ptr).raw);
}

static PyDataMem_Handler aligned_handler = {
    "clvision_aligned64", 1,
    {NULL, aligned_malloc, aligned_calloc, aligned_realloc, aligned_free},
};
#endif

static PyObject *aligned_capsule; /* the handler's capsule; NULL without NEP 49 */

/* A new C-ordered array whose data starts on CLV_PITCH_ALIGN bytes (numpy's
 * default allocation where the handler is not available). */
static PyObject *new_array(int nd, npy_intp *dims, int type)
{
#ifdef CLV_PY_HANDLER
    PyObject *old = PyDataMem_SetHandler(aligned_capsule);
    if (!old)
        return NULL;
    PyObject *a = PyArray_SimpleNew(nd, dims, type);
    PyObject *back = PyDataMem_SetHandler(old);
    Py_DECREF(old);
    if (!back) {
        Py_XDECREF(a);
        return NULL;
    }
    Py_DECREF(back);
    return a;
#else
    return PyArray_SimpleNew(nd, dims, type);
#endif
}

/* _set_mem_handler(handler): make handler (a "mem_handler" capsule; None:
 * numpy's default) numpy's allocator in the current context (thread or
 * task, a contextvar of numpy's), returning the one it replaces. */
static PyObject *mod_set_mem_handler(PyObject *mod, PyObject *arg)
{
    (void)mod;
#ifdef CLV_PY_HANDLER
    if (arg != Py_None && !PyCapsule_IsValid(arg, "mem_handler"))
        return raise_arg("a numpy memory handler (a \"mem_handler\" capsule) or None");
    return PyDataMem_SetHandler(arg == Py_None ? NULL : arg);
#else
    (void)arg;
    return raise_status(CLV_ERROR_UNSUPPORTED,
                        "numpy memory handlers need numpy >= 1.22 when clvision is built");
#endif
}

/* The memory of an array from empty(..., padded=True) whose rows are padded
 * to CLV_PITCH_ALIGN bytes: rows of `row` bytes, `pitch` apart. The array's
 * base (numpy keeps it as the base of every view of the array), and the mark
 * that the padding after each row is nobody's pixels, so that an operation
 * may write it (host_fits). */
typedef struct {
    PyObject_HEAD
    char *data;
    size_t size, row, pitch;
} HostBufferObject;

static void hostbuf_dealloc(HostBufferObject *self)
{
    free(self->data);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject HostBufferType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clvision._clvision._PaddedRows",
    .tp_basicsize = sizeof(HostBufferObject),
    .tp_dealloc = (destructor)hostbuf_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The memory of an array made by empty(..., padded=True): rows padded to 64 bytes.",
};

/* A new nd-dimensional array of descr (stolen) over data, rows and items
 * strides apart, whose base (stolen) owns the memory: the array keeps it
 * alive and its death releases it. On failure both are released. */
static PyObject *array_over(PyArray_Descr *descr, int nd, npy_intp *dims, npy_intp *strides,
                            void *data, PyObject *base)
{
    PyObject *a = PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, strides, data,
                                       NPY_ARRAY_ALIGNED | NPY_ARRAY_WRITEABLE, NULL);
    if (!a) {
        Py_DECREF(base);
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)a, base) < 0) { /* steals base */
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

/* A new (H, W[, C]) array of descr (stolen) whose rows start on
 * CLV_PITCH_ALIGN bytes and are padded to a multiple of it, over a
 * HostBufferObject. */
static PyObject *new_padded(PyArray_Dims *d, PyArray_Descr *descr)
{
    const npy_intp h = d->ptr[0], w = d->ptr[1], c = d->len == 3 ? d->ptr[2] : 1;
    const size_t item = (size_t)PyDataType_ELSIZE(descr);
    if (h < 0 || w < 0 || c < 0 || (w && c && (size_t)w > (SIZE_MAX / 4) / item / (size_t)c)) {
        Py_DECREF(descr);
        return raise_arg("empty: shape out of range");
    }
    const size_t row = (size_t)w * (size_t)c * item;
    const size_t pitch = (row + CLV_PITCH_ALIGN - 1) / CLV_PITCH_ALIGN * CLV_PITCH_ALIGN;
    if (pitch && (size_t)h > (SIZE_MAX / 4) / pitch) {
        Py_DECREF(descr);
        return raise_arg("empty: shape out of range");
    }
    HostBufferObject *b = PyObject_New(HostBufferObject, &HostBufferType);
    if (!b) {
        Py_DECREF(descr);
        return NULL;
    }
    b->row = row;
    b->pitch = pitch;
    b->size = (size_t)h * pitch;
    void *mem = NULL;
    if (posix_memalign(&mem, CLV_PITCH_ALIGN, b->size ? b->size : CLV_PITCH_ALIGN) != 0) {
        b->data = NULL;
        Py_DECREF(b);
        Py_DECREF(descr);
        return PyErr_NoMemory();
    }
    b->data = mem;
    npy_intp strides[3] = {(npy_intp)pitch, c * (npy_intp)item, (npy_intp)item};
    return array_over(descr, d->len, d->ptr, strides, mem, (PyObject *)b);
}

/* empty(shape, dtype, padded=False): a new uninitialised array starting on
 * CLV_PITCH_ALIGN bytes: C-ordered; or, padded and shape (H, W[, C]) with
 * rows not a multiple of CLV_PITCH_ALIGN bytes, rows padded to one. */
static PyObject *mod_empty(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *shape, *dt;
    int padded = 0;
    if (!PyArg_ParseTuple(args, "OO|p:empty", &shape, &dt, &padded))
        return NULL;
    PyArray_Dims d = {NULL, 0};
    PyArray_Descr *descr = NULL;
    if (!PyArray_IntpConverter(shape, &d))
        return NULL;
    PyObject *a = NULL;
    if (!PyArray_DescrConverter(dt, &descr)) {
        PyDimMem_FREE(d.ptr);
        return NULL;
    }
    if (padded) {
        if (d.len != 2 && d.len != 3) {
            Py_DECREF(descr);
            PyDimMem_FREE(d.ptr);
            return raise_arg("empty: padded=True needs an image shape (H, W) or (H, W, C)");
        }
        /* the image types alone: the padding is never initialised, so a type
         * holding references (object) or any other would be unsafe or of no use */
        const int num = descr->type_num;
        if (!PyArray_ISNBO(descr->byteorder) ||
            (num != NPY_UINT8 && num != NPY_UINT16 && num != NPY_FLOAT32)) {
            Py_DECREF(descr);
            PyDimMem_FREE(d.ptr);
            return raise_arg("empty: padded=True takes uint8, uint16 or float32 (native byte "
                             "order)");
        }
        const npy_intp c = d.len == 3 ? d.ptr[2] : 1;
        if (d.ptr[1] >= 0 && c >= 0 && d.ptr[0] >= 0 && PyDataType_ELSIZE(descr) > 0 &&
            (d.ptr[1] * c * PyDataType_ELSIZE(descr)) % CLV_PITCH_ALIGN != 0) {
            a = new_padded(&d, descr); /* steals descr */
            PyDimMem_FREE(d.ptr);
            return a;
        }
    }
#ifdef CLV_PY_HANDLER
    PyObject *old = PyDataMem_SetHandler(aligned_capsule);
    if (old) {
        a = PyArray_Empty(d.len, d.ptr, descr, 0); /* steals descr */
        PyObject *back = PyDataMem_SetHandler(old);
        Py_DECREF(old);
        if (!back)
            Py_CLEAR(a);
        Py_XDECREF(back);
    } else {
        Py_DECREF(descr);
    }
#else
    a = PyArray_Empty(d.len, d.ptr, descr, 0);
#endif
    PyDimMem_FREE(d.ptr);
    return a;
}

static int image_shape(const clv_image *img, npy_intp dims[3])
{
    dims[0] = clv_image_height(img);
    dims[1] = clv_image_width(img);
    dims[2] = clv_image_channels(img);
    return dims[2] == 1 ? 2 : 3;
}

/* ---- Context ---- */

static void context_dealloc(ContextObject *self)
{
    if (self->ctx) {
        clv_context *ctx = self->ctx;
        self->ctx = NULL;
        Py_BEGIN_ALLOW_THREADS
        clv_context_release(ctx);
        Py_END_ALLOW_THREADS
    }
    if (self->lock)
        PyThread_free_lock(self->lock);
    Py_XDECREF(self->owner);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static ContextObject *context_alloc(PyTypeObject *type)
{
    ContextObject *self = (ContextObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    self->lock = PyThread_allocate_lock();
    if (!self->lock) {
        Py_DECREF(self);
        PyErr_NoMemory();
        return NULL;
    }
    return self;
}

/* Optional str argument: NULL for None. */
static int opt_str(PyObject *o, const char *what, const char **out)
{
    *out = NULL;
    if (!o || o == Py_None)
        return 1;
    if (!PyUnicode_Check(o))
        return raise_arg("%s must be a str or None (got %s)", what, Py_TYPE(o)->tp_name), 0;
    *out = PyUnicode_AsUTF8(o);
    return *out != NULL;
}

/* Context(device=None, kernel_path=None, cache_dir=None, profiling=False) */
static PyObject *context_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *names[] = {"device", "kernel_path", "cache_dir", "profiling", NULL};
    PyObject *dev = NULL, *kp = NULL, *cd = NULL;
    int profiling = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOp:Context", names, &dev, &kp, &cd,
                                     &profiling))
        return NULL;
    clv_context_options o = clv_context_options_default();
    if (!opt_str(dev, "device", &o.device) || !opt_str(kp, "kernel_path", &o.kernel_path) ||
        !opt_str(cd, "cache_dir", &o.cache_dir))
        return NULL;
    o.profiling = profiling;
    ContextObject *self = context_alloc(type);
    if (!self)
        return NULL;
    clv_status s;
    message m;
    Py_BEGIN_ALLOW_THREADS
    s = clv_context_create(&o, &self->ctx);
    if (s != CLV_OK)
        copy_message(&m, clv_context_create_error());
    Py_END_ALLOW_THREADS
    if (s != CLV_OK) {
        Py_DECREF(self);
        return raise_status(s, m.text);
    }
    return (PyObject *)self;
}

/* Context.from_cl(cl_context, device, queue=0, owner=None, kernel_path=None,
 * cache_dir=None): a context on an application's OpenCL objects, given as
 * integer handles (pyopencl's .int_ptr). owner is kept alive with it. */
static PyObject *context_from_cl(PyObject *cls, PyObject *args, PyObject *kw)
{
    static char *names[] = {"cl_context", "device", "queue", "owner", "kernel_path",
                            "cache_dir", NULL};
    PyObject *pc = NULL, *pd = NULL, *pq = NULL, *owner = Py_None, *kp = NULL, *cd = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOOO:from_cl", names, &pc, &pd, &pq, &owner,
                                     &kp, &cd))
        return NULL;
    long long c, d, q = 0;
    if (!get_int(pc, "cl_context", 1, (long long)INTPTR_MAX, &c) ||
        !get_int(pd, "device", 1, (long long)INTPTR_MAX, &d) ||
        (pq && pq != Py_None && !get_int(pq, "queue", 0, (long long)INTPTR_MAX, &q)))
        return NULL;
    clv_context_options o = clv_context_options_default();
    if (!opt_str(kp, "kernel_path", &o.kernel_path) || !opt_str(cd, "cache_dir", &o.cache_dir))
        return NULL;
    ContextObject *self = context_alloc((PyTypeObject *)cls);
    if (!self)
        return NULL;
    clv_status s;
    message m;
    Py_BEGIN_ALLOW_THREADS
    s = clv_context_create_cl((cl_context)(intptr_t)c, (cl_device_id)(intptr_t)d,
                              (cl_command_queue)(intptr_t)q, &o, &self->ctx);
    if (s != CLV_OK)
        copy_message(&m, clv_context_create_error());
    Py_END_ALLOW_THREADS
    if (s != CLV_OK) {
        Py_DECREF(self);
        return raise_status(s, m.text);
    }
    Py_INCREF(owner);
    self->owner = owner;
    return (PyObject *)self;
}

static PyObject *context_finish(ContextObject *self, PyObject *unused)
{
    (void)unused;
    clv_status s;
    message m;
    CTX_CALL(self, s, m, clv_finish(self->ctx));
    if (s != CLV_OK)
        return raise_status(s, m.text);
    Py_RETURN_NONE;
}

static PyObject *context_stats(ContextObject *self, PyObject *unused)
{
    (void)unused;
    clv_context_stats st;
    clv_status s;
    Py_BEGIN_ALLOW_THREADS
    lock_ctx(self);
    s = clv_context_get_stats(self->ctx, &st);
    unlock_ctx(self);
    Py_END_ALLOW_THREADS
    if (s != CLV_OK)
        return raise_status(s, "stats: clv_context_get_stats failed");
    return Py_BuildValue(
        "{sKsKsKsKsKsKsKsKsKsKsK}", "programs_built", (unsigned long long)st.programs_built,
        "cache_hits", (unsigned long long)st.cache_hits, "cache_rejected",
        (unsigned long long)st.cache_rejected, "cache_writes", (unsigned long long)st.cache_writes,
        "cache_write_failures", (unsigned long long)st.cache_write_failures, "kernels_launched",
        (unsigned long long)st.kernels_launched, "live_mem_objects",
        (unsigned long long)st.live_mem_objects, "live_kernels",
        (unsigned long long)st.live_kernels, "live_programs", (unsigned long long)st.live_programs,
        "live_events", (unsigned long long)st.live_events, "live_queues",
        (unsigned long long)st.live_queues);
}

static PyObject *context_device_time(ContextObject *self, PyObject *unused)
{
    (void)unused;
    double ms = 0;
    clv_status s;
    message m;
    CTX_CALL(self, s, m, clv_last_op_device_time(self->ctx, &ms));
    if (s != CLV_OK)
        return raise_status(s, m.text);
    return PyFloat_FromDouble(ms);
}

static PyObject *context_get(ContextObject *self, void *which)
{
    switch ((intptr_t)which) {
    case 0:
        return PyUnicode_FromString(clv_context_device_name(self->ctx));
    case 1:
        return PyUnicode_FromString(clv_context_platform_name(self->ctx));
    case 2:
        return PyLong_FromVoidPtr((void *)clv_context_cl_context(self->ctx));
    case 3:
        return PyLong_FromVoidPtr((void *)clv_context_cl_device(self->ctx));
    case 4:
        return PyLong_FromVoidPtr((void *)clv_context_cl_queue(self->ctx));
    case 5: {
        clv_device_info info;
        if (clv_context_device_info(self->ctx, &info) != CLV_OK)
            return raise_status(CLV_ERROR_INVALID_ARGUMENT, "device_type: no device information");
        return PyUnicode_FromString(info.type);
    }
    default:
        Py_RETURN_NONE;
    }
}

static PyObject *context_repr(ContextObject *self)
{
    return PyUnicode_FromFormat("<clvision.Context on '%s'>", clv_context_device_name(self->ctx));
}

static PyMethodDef context_methods[] = {
    {"from_cl", (PyCFunction)(void (*)(void))context_from_cl, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "from_cl(cl_context, device, queue=0, owner=None, kernel_path=None, cache_dir=None)\n"
     "A context on an application's OpenCL context, device and (optional, in-order) queue,\n"
     "given as integer handles (pyopencl: .int_ptr); owner is kept alive with it."},
    {"finish", (PyCFunction)context_finish, METH_NOARGS, "Wait for every operation enqueued."},
    {"stats", (PyCFunction)context_stats, METH_NOARGS,
     "Counters since creation (programs built, cache hits, live OpenCL objects ...)."},
    {"last_op_device_time", (PyCFunction)context_device_time, METH_NOARGS,
     "Device time of the last operation's kernels, ms (needs profiling=True)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef context_getset[] = {
    {"device_name", (getter)context_get, NULL, "the device's name", (void *)0},
    {"platform_name", (getter)context_get, NULL, "the platform's name", (void *)1},
    {"cl_context", (getter)context_get, NULL, "cl_context handle as an int (no retain)", (void *)2},
    {"cl_device", (getter)context_get, NULL, "cl_device_id handle as an int (no retain)", (void *)3},
    {"cl_queue", (getter)context_get, NULL, "cl_command_queue handle as an int (no retain)",
     (void *)4},
    {"device_type", (getter)context_get, NULL,
     "the device's type: 'gpu', 'cpu', 'accelerator' or 'other'", (void *)5},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ContextType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clvision._clvision.Context",
    .tp_basicsize = sizeof(ContextObject),
    .tp_dealloc = (destructor)context_dealloc,
    .tp_repr = (reprfunc)context_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Context(device=None, kernel_path=None, cache_dir=None, profiling=False)\n"
              "One OpenCL device, its queue and built programs. device: a spec as CLV_DEVICE\n"
              "('gpu', 'cpu', 'P:D' or a name substring); None: CLV_DEVICE, else the default.",
    .tp_methods = context_methods,
    .tp_getset = context_getset,
    .tp_new = context_new,
};

/* ---- Image ---- */

static ImageObject *image_wrap(clv_image *img, ContextObject *ctx, PyObject *owner, int borrowed)
{
    ImageObject *self = (ImageObject *)ImageType.tp_alloc(&ImageType, 0);
    if (!self) {
        if (!borrowed) {
            Py_BEGIN_ALLOW_THREADS
            lock_ctx(ctx);
            clv_image_release(img);
            unlock_ctx(ctx);
            Py_END_ALLOW_THREADS
        }
        return NULL;
    }
    self->img = img;
    Py_INCREF(ctx);
    self->context = ctx;
    Py_XINCREF(owner);
    self->owner = owner;
    self->borrowed = borrowed;
    return self;
}

static void image_dealloc(ImageObject *self)
{
    if (self->img && !self->borrowed) {
        clv_image *img = self->img;
        ContextObject *c = self->context;
        Py_BEGIN_ALLOW_THREADS
        lock_ctx(c);
        clv_image_release(img);
        unlock_ctx(c);
        Py_END_ALLOW_THREADS
    }
    self->img = NULL;
    Py_XDECREF(self->owner);
    Py_XDECREF(self->context);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int check_context(PyObject *o, const char *what)
{
    if (!o || !PyObject_TypeCheck(o, &ContextType))
        return raise_arg("%s must be a clvision.Context (got %s)", what,
                         o ? Py_TYPE(o)->tp_name : "nothing"),
               0;
    return 1;
}

/* Image(ctx, width, height, channels=1, dtype='uint8') */
static PyObject *image_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    (void)type;
    static char *names[] = {"ctx", "width", "height", "channels", "dtype", NULL};
    PyObject *ctx, *pw, *ph, *pc = NULL, *pt = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|OO:Image", names, &ctx, &pw, &ph, &pc, &pt))
        return NULL;
    long long w, h, c = 1;
    clv_pixel_type t = CLV_U8;
    if (!check_context(ctx, "ctx") || !get_int(pw, "width", INT_MIN, INT_MAX, &w) ||
        !get_int(ph, "height", INT_MIN, INT_MAX, &h) ||
        (pc && !get_int(pc, "channels", INT_MIN, INT_MAX, &c)) || (pt && !dtype_to_clv(pt, &t)))
        return NULL;
    ContextObject *co = (ContextObject *)ctx;
    clv_image *img = NULL;
    clv_status s;
    message m;
    CTX_CALL(co, s, m, clv_image_create(co->ctx, (int)w, (int)h, (int)c, t, &img));
    if (s != CLV_OK)
        return raise_status(s, m.text);
    return (PyObject *)image_wrap(img, co, NULL, 0);
}

/* Image.wrap_buffer(ctx, buffer, width, height, channels=1, dtype='uint8',
 * offset=0, pitch=0, owner=None): an image over an application's cl_mem
 * (an int handle, pyopencl's Buffer.int_ptr), no copy; owner (the pyopencl
 * buffer) is kept alive with the image. */
static PyObject *image_wrap_buffer(PyObject *cls, PyObject *args, PyObject *kw)
{
    (void)cls;
    static char *names[] = {"ctx",    "buffer", "width", "height", "channels",
                            "dtype",  "offset", "pitch", "owner",  NULL};
    PyObject *ctx, *pb, *pw, *ph, *pc = NULL, *pt = NULL, *po = NULL, *pp = NULL,
                                 *owner = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO|OOOOO:wrap_buffer", names, &ctx, &pb, &pw,
                                     &ph, &pc, &pt, &po, &pp, &owner))
        return NULL;
    long long b, w, h, c = 1, off = 0, pitch = 0;
    clv_pixel_type t = CLV_U8;
    if (!check_context(ctx, "ctx") || !get_int(pb, "buffer", 1, (long long)INTPTR_MAX, &b) ||
        !get_int(pw, "width", INT_MIN, INT_MAX, &w) ||
        !get_int(ph, "height", INT_MIN, INT_MAX, &h) ||
        (pc && !get_int(pc, "channels", INT_MIN, INT_MAX, &c)) ||
        (pt && !dtype_to_clv(pt, &t)) ||
        (po && !get_int(po, "offset", 0, (long long)(SIZE_MAX >> 1), &off)) ||
        (pp && !get_int(pp, "pitch", 0, (long long)(SIZE_MAX >> 1), &pitch)))
        return NULL;
    ContextObject *co = (ContextObject *)ctx;
    clv_image *img = NULL;
    clv_status s;
    message m;
    CTX_CALL(co, s, m,
             clv_image_wrap_buffer(co->ctx, (cl_mem)(intptr_t)b, (size_t)off, (int)w, (int)h,
                                   (int)c, t, (size_t)pitch, &img));
    if (s != CLV_OK)
        return raise_status(s, m.text);
    return (PyObject *)image_wrap(img, co, owner == Py_None ? NULL : owner, 0);
}

static int array_host(PyObject *o, clv_host_image *h, const char *what, int writable);

/* An Image over arg's memory, laid out as hi (clv_image_create_host on
 * co's context); the Image keeps arg alive. */
static PyObject *host_image_over(ContextObject *co, const clv_host_image *hi, PyObject *arg)
{
    clv_image *img = NULL;
    clv_status s;
    message m;
    CTX_CALL(co, s, m,
             clv_image_create_host(co->ctx, hi->data, hi->stride, hi->width, hi->height,
                                   hi->channels, hi->type, &img));
    if (s != CLV_OK)
        return raise_status(s, m.text);
    return (PyObject *)image_wrap(img, co, arg, 0);
}

/* Image.over(ctx, array, writable=False): an image over the array's own memory
 * (clv_image_create_host), no copy; the array is kept alive with the image.
 * The library's rules hold: data and row stride multiples of 64 bytes, and
 * the array is the image's until it is released (settle() first to read an
 * array the device wrote). Zero-copy on CPU devices; a GPU copies. */
static PyObject *image_over(PyObject *cls, PyObject *args, PyObject *kw)
{
    (void)cls;
    static char *names[] = {"ctx", "array", "writable", NULL};
    PyObject *ctx, *arg;
    int writable = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|p:over", names, &ctx, &arg, &writable))
        return NULL;
    clv_host_image hi;
    if (!check_context(ctx, "ctx") || !array_host(arg, &hi, writable ? "out" : "over", writable))
        return NULL;
    return host_image_over((ContextObject *)ctx, &hi, arg);
}

/* Whether a's memory can be a host image as it is: a numpy array of an
 * image dtype, (H, W) or (H, W, C), pixels packed within rows, data, rows
 * and row stride multiples of CLV_PITCH_ALIGN (a row's padding is then the
 * next row, so operations writing up to the next multiple touch nothing
 * else), writable when asked. Fills *h; raises nothing. */
static int host_fits(PyObject *o, clv_host_image *h, int writable)
{
    if (!PyArray_Check(o))
        return 0;
    PyArrayObject *a = (PyArrayObject *)o;
    const int nd = PyArray_NDIM(a);
    if ((nd != 2 && nd != 3) || !PyArray_ISNOTSWAPPED(a) ||
        (writable && !PyArray_ISWRITEABLE(a)))
        return 0;
    clv_pixel_type t;
    switch (PyArray_TYPE(a)) {
    case NPY_UINT8: t = CLV_U8; break;
    case NPY_UINT16: t = CLV_U16; break;
    case NPY_FLOAT32: t = CLV_F32; break;
    default: return 0;
    }
    const npy_intp *d = PyArray_DIMS(a), *st = PyArray_STRIDES(a);
    const npy_intp c = nd == 3 ? d[2] : 1, item = (npy_intp)clv_pixel_type_size(t);
    if (d[0] < 1 || d[1] < 1 || d[0] > CLV_MAX_DIMENSION || d[1] > CLV_MAX_DIMENSION || c < 1 ||
        c > 4)
        return 0;
    const npy_intp row = d[1] * c * item;
    /* rows not a multiple of 64 bytes: only all the rows' pixels of an array
     * from empty(padded=True), or rows of it, whose padding is nobody's */
    PyObject *base = PyArray_BASE(a); /* a view's base is its array, whose base... */
    for (int i = 0; i < 64 && base && PyArray_Check(base) &&
                    !PyArray_CHKFLAGS((PyArrayObject *)base, NPY_ARRAY_OWNDATA);
         i++)
        base = PyArray_BASE((PyArrayObject *)base);
    const int padded =
        row % CLV_PITCH_ALIGN && base && Py_IS_TYPE(base, &HostBufferType) &&
        ((const HostBufferObject *)base)->row == (size_t)row &&
        (d[0] == 1 || (size_t)st[0] == ((const HostBufferObject *)base)->pitch) &&
        ((size_t)((char *)PyArray_DATA(a) - ((const HostBufferObject *)base)->data)) %
                ((const HostBufferObject *)base)->pitch == 0;
    if ((nd == 3 && st[2] != item) || st[1] != c * item || (row % CLV_PITCH_ALIGN && !padded) ||
        (d[0] > 1 && (st[0] < row || st[0] % CLV_PITCH_ALIGN)) ||
        (uintptr_t)PyArray_DATA(a) % CLV_PITCH_ALIGN)
        return 0;
    h->width = (int)d[1];
    h->height = (int)d[0];
    h->channels = (int)c;
    h->type = t;
    /* one row: any stride; the row rounded up (its padding, if any, is nobody's) */
    h->stride = d[0] > 1 ? (size_t)st[0]
                         : ((size_t)row + CLV_PITCH_ALIGN - 1) / CLV_PITCH_ALIGN * CLV_PITCH_ALIGN;
    h->data = PyArray_DATA(a);
    return 1;
}

/* _over_if(ctx, array, writable): Image.over(ctx, array, writable) when
 * array fits as it is (host_fits), else None. */
static PyObject *mod_over_if(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *ctx, *arg;
    int writable;
    if (!PyArg_ParseTuple(args, "OOp:_over_if", &ctx, &arg, &writable))
        return NULL;
    clv_host_image hi;
    if (!check_context(ctx, "ctx"))
        return NULL;
    if (!host_fits(arg, &hi, writable))
        Py_RETURN_NONE;
    return host_image_over((ContextObject *)ctx, &hi, arg);
}

/* Map for reading and unmap: the device's writes made visible in an image
 * over host memory (zero-copy on CPU devices). The context's lock is held. */
static clv_status settle_host(clv_image *img)
{
    void *ptr = NULL;
    size_t pitch = 0;
    clv_status s = clv_image_map(img, CLV_MAP_READ, &ptr, &pitch);
    return s == CLV_OK ? clv_image_unmap(img, ptr) : s;
}

/* settle(): wait for the operations writing the image and make their
 * results visible in the host memory of an image made by over() (a map for
 * reading and its unmap; zero-copy on CPU devices). */
static PyObject *image_settle(ImageObject *self, PyObject *unused)
{
    (void)unused;
    clv_image *img = self->img;
    clv_status s;
    message m;
    CTX_CALL(self->context, s, m, settle_host(img));
    if (s != CLV_OK)
        return raise_status(s, m.text);
    Py_RETURN_NONE;
}

/* An image mapped for as long as a numpy array views it: the array's base.
 * Its death unmaps the image and lets the image go. */
typedef struct {
    PyObject_HEAD
    ImageObject *image;
    void *ptr;
} MappingObject;

static void mapping_dealloc(MappingObject *self)
{
    if (self->ptr) {
        clv_image *img = self->image->img;
        ContextObject *c = self->image->context;
        void *p = self->ptr;
        Py_BEGIN_ALLOW_THREADS
        lock_ctx(c);
        /* nothing to report a failure to: the image is released after it anyway */
        (void)clv_image_unmap(img, p);
        unlock_ctx(c);
        Py_END_ALLOW_THREADS
    }
    Py_XDECREF(self->image);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject MappingType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clvision._clvision._Mapping",
    .tp_basicsize = sizeof(MappingObject),
    .tp_dealloc = (destructor)mapping_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The mapping of an Image that a numpy array from Image._map_array() views.",
};

/* _map_array(): the image's pixels as a writable numpy array over its
 * mapping (clv_image_map, read and write: zero-copy on CPU devices), rows
 * pitch bytes apart; the image stays mapped, unusable by operations, until
 * the array and its views are gone. For images nothing else uses. */
static PyObject *image_map_array(ImageObject *self, PyObject *unused)
{
    (void)unused;
    clv_image *img = self->img;
    MappingObject *mo = PyObject_New(MappingObject, &MappingType);
    if (!mo)
        return NULL;
    Py_INCREF(self);
    mo->image = self;
    mo->ptr = NULL;
    void *ptr = NULL;
    size_t pitch = 0;
    clv_status s;
    message m;
    CTX_CALL(self->context, s, m,
             clv_image_map(img, CLV_MAP_READ | CLV_MAP_WRITE, &ptr, &pitch));
    if (s != CLV_OK) {
        Py_DECREF(mo);
        return raise_status(s, m.text);
    }
    mo->ptr = ptr;
    npy_intp dims[3], strides[3];
    const int nd = image_shape(img, dims);
    const npy_intp item = (npy_intp)clv_pixel_type_size(clv_image_type(img));
    strides[0] = (npy_intp)pitch;
    strides[1] = item * dims[2];
    strides[2] = item;
    PyArray_Descr *descr = PyArray_DescrFromType(clv_to_npy(clv_image_type(img)));
    if (!descr) {
        Py_DECREF(mo);
        return NULL;
    }
    return array_over(descr, nd, dims, strides, ptr, (PyObject *)mo);
}

static PyObject *image_upload(ImageObject *self, PyObject *arg)
{
    if (!PyArray_Check(arg))
        return raise_arg("upload: expected a numpy array (got %s)", Py_TYPE(arg)->tp_name);
    PyArrayObject *a = (PyArrayObject *)arg;
    clv_image *img = self->img;
    size_t stride;
    if (!check_array(a, clv_image_width(img), clv_image_height(img), clv_image_channels(img),
                     clv_image_type(img), 0, "upload", &stride))
        return NULL;
    const void *data = PyArray_DATA(a);
    clv_status s;
    message m;
    Py_INCREF(a);
    CTX_CALL(self->context, s, m, clv_image_upload(img, data, stride));
    Py_DECREF(a);
    if (s != CLV_OK)
        return raise_status(s, m.text);
    Py_RETURN_NONE;
}

/* download(out=None): the pixels as a new array, (H, W) for one channel,
 * else (H, W, C); or into out (same rules as upload, writable). */
static PyObject *image_download(ImageObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"out", NULL};
    PyObject *out = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:download", names, &out))
        return NULL;
    clv_image *img = self->img;
    PyArrayObject *a;
    if (out == Py_None) {
        npy_intp dims[3];
        int nd = image_shape(img, dims);
        a = (PyArrayObject *)new_array(nd, dims, clv_to_npy(clv_image_type(img)));
        if (!a)
            return NULL;
    } else {
        if (!PyArray_Check(out))
            return raise_arg("download: out must be a numpy array (got %s)",
                             Py_TYPE(out)->tp_name);
        a = (PyArrayObject *)out;
        Py_INCREF(a);
    }
    size_t stride;
    if (!check_array(a, clv_image_width(img), clv_image_height(img), clv_image_channels(img),
                     clv_image_type(img), 1, "download", &stride)) {
        Py_DECREF(a);
        return NULL;
    }
    void *data = PyArray_DATA(a);
    clv_status s;
    message m;
    CTX_CALL(self->context, s, m, clv_image_download(img, data, stride));
    if (s != CLV_OK) {
        Py_DECREF(a);
        return raise_status(s, m.text);
    }
    return (PyObject *)a;
}

static PyObject *image_view(ImageObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"x", "y", "width", "height", NULL};
    PyObject *px, *py, *pw, *ph;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO:view", names, &px, &py, &pw, &ph))
        return NULL;
    long long x, y, w, h;
    if (!get_int(px, "x", INT_MIN, INT_MAX, &x) || !get_int(py, "y", INT_MIN, INT_MAX, &y) ||
        !get_int(pw, "width", INT_MIN, INT_MAX, &w) ||
        !get_int(ph, "height", INT_MIN, INT_MAX, &h))
        return NULL;
    clv_image *v = NULL;
    clv_status s;
    message m;
    CTX_CALL(self->context, s, m,
             clv_image_view(self->img, (int)x, (int)y, (int)w, (int)h, &v));
    if (s != CLV_OK)
        return raise_status(s, m.text);
    return (PyObject *)image_wrap(v, self->context, (PyObject *)self, 0);
}

static PyObject *image_get(ImageObject *self, void *which)
{
    const clv_image *img = self->img;
    switch ((intptr_t)which) {
    case 0:
        return PyLong_FromLong(clv_image_width(img));
    case 1:
        return PyLong_FromLong(clv_image_height(img));
    case 2:
        return PyLong_FromLong(clv_image_channels(img));
    case 3:
        return (PyObject *)PyArray_DescrFromType(clv_to_npy(clv_image_type(img)));
    case 4: {
        npy_intp d[3];
        int nd = image_shape(img, d);
        return nd == 2 ? Py_BuildValue("(nn)", (Py_ssize_t)d[0], (Py_ssize_t)d[1])
                       : Py_BuildValue("(nnn)", (Py_ssize_t)d[0], (Py_ssize_t)d[1],
                                       (Py_ssize_t)d[2]);
    }
    case 5:
        return PyLong_FromSize_t(clv_image_pitch(img));
    case 6:
        return PyLong_FromSize_t(clv_image_offset(img));
    case 7:
        return PyLong_FromVoidPtr((void *)clv_image_cl_mem(img));
    case 8:
        Py_INCREF(self->context);
        return (PyObject *)self->context;
    default:
        Py_RETURN_NONE;
    }
}

static PyObject *image_repr(ImageObject *self)
{
    const clv_image *img = self->img;
    return PyUnicode_FromFormat("<clvision.Image %dx%d, %d channel%s, %s>", clv_image_width(img),
                                clv_image_height(img), clv_image_channels(img),
                                clv_image_channels(img) == 1 ? "" : "s",
                                clv_pixel_type_name(clv_image_type(img)));
}

static PyMethodDef image_methods[] = {
    {"wrap_buffer", (PyCFunction)(void (*)(void))image_wrap_buffer,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "wrap_buffer(ctx, buffer, width, height, channels=1, dtype='uint8', offset=0, pitch=0,\n"
     "            owner=None)\nAn image over an OpenCL buffer (int handle, pyopencl's .int_ptr),\n"
     "without a copy (clv_image_wrap_buffer: offset and pitch multiples of 64; 0 pitch: the\n"
     "row rounded up to 64 bytes). owner is kept alive with the image."},
    {"over", (PyCFunction)(void (*)(void))image_over, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "over(ctx, array, writable=False)\nAn image over a numpy array's own memory\n"
     "(clv_image_create_host), no copy: data and row stride multiples of 64 bytes, pixels\n"
     "within a row contiguous; writable=True refuses a read-only array. The\n"
     "array is kept alive with the image and is the image's until it is released; call\n"
     "settle() before reading what the device wrote. Zero-copy on CPU devices."},
    {"settle", (PyCFunction)image_settle, METH_NOARGS,
     "settle(): wait for the operations writing the image and make their results visible in\n"
     "the memory of an image made by over() (blocking)."},
    {"upload", (PyCFunction)image_upload, METH_O,
     "upload(array): copy a numpy array's pixels in (same dtype and shape; rows may be\n"
     "strided, pixels within a row must be contiguous). Blocking."},
    {"download", (PyCFunction)(void (*)(void))image_download, METH_VARARGS | METH_KEYWORDS,
     "download(out=None): the pixels as a numpy array ((H, W) for one channel, else\n"
     "(H, W, C)), or written into out. Waits for the operations writing the image."},
    {"view", (PyCFunction)(void (*)(void))image_view, METH_VARARGS | METH_KEYWORDS,
     "view(x, y, width, height): a rectangle of the image sharing its memory."},
    {"_map_array", (PyCFunction)image_map_array, METH_NOARGS,
     "_map_array(): a numpy array over the image's mapping (no copy on CPU devices); the\n"
     "image stays mapped, unusable by operations, while the array lives."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef image_getset[] = {
    {"width", (getter)image_get, NULL, "width in pixels", (void *)0},
    {"height", (getter)image_get, NULL, "height in pixels", (void *)1},
    {"channels", (getter)image_get, NULL, "channels per pixel (1..4)", (void *)2},
    {"dtype", (getter)image_get, NULL, "numpy dtype of a channel value", (void *)3},
    {"shape", (getter)image_get, NULL, "(height, width) or (height, width, channels)", (void *)4},
    {"pitch", (getter)image_get, NULL, "bytes between rows on the device", (void *)5},
    {"offset", (getter)image_get, NULL, "byte offset of pixel (0, 0) in cl_mem", (void *)6},
    {"cl_mem", (getter)image_get, NULL, "the cl_mem holding the pixels, as an int (no retain)",
     (void *)7},
    {"context", (getter)image_get, NULL, "the Context the image belongs to", (void *)8},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject ImageType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clvision._clvision.Image",
    .tp_basicsize = sizeof(ImageObject),
    .tp_dealloc = (destructor)image_dealloc,
    .tp_repr = (reprfunc)image_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Image(ctx, width, height, channels=1, dtype='uint8')\n"
              "A device image: stays on the device between operations; upload/download move\n"
              "pixels to and from numpy arrays.",
    .tp_methods = image_methods,
    .tp_getset = image_getset,
    .tp_new = image_new,
};

/* ---- Pyramid ---- */

static void pyramid_dealloc(PyramidObject *self)
{
    if (self->pyr) {
        clv_pyramid *p = self->pyr;
        ContextObject *c = self->context;
        Py_BEGIN_ALLOW_THREADS
        lock_ctx(c);
        clv_pyramid_release(p);
        unlock_ctx(c);
        Py_END_ALLOW_THREADS
    }
    Py_XDECREF(self->context);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Pyramid(ctx, width, height, channels=1, dtype='uint8', levels=4, scale=0.5) */
static PyObject *pyramid_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *names[] = {"ctx", "width", "height", "channels", "dtype", "levels", "scale", NULL};
    PyObject *ctx, *pw, *ph, *pc = NULL, *pt = NULL, *pl = NULL;
    double scale = 0.5;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|OOOd:Pyramid", names, &ctx, &pw, &ph, &pc,
                                     &pt, &pl, &scale))
        return NULL;
    long long w, h, c = 1, levels = 4;
    clv_pixel_type t = CLV_U8;
    if (!check_context(ctx, "ctx") || !get_int(pw, "width", INT_MIN, INT_MAX, &w) ||
        !get_int(ph, "height", INT_MIN, INT_MAX, &h) ||
        (pc && !get_int(pc, "channels", INT_MIN, INT_MAX, &c)) ||
        (pt && !dtype_to_clv(pt, &t)) || (pl && !get_int(pl, "levels", INT_MIN, INT_MAX, &levels)))
        return NULL;
    ContextObject *co = (ContextObject *)ctx;
    PyramidObject *self = (PyramidObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    clv_status s;
    message m;
    CTX_CALL(co, s, m,
             clv_pyramid_create(co->ctx, (int)w, (int)h, (int)c, t, (int)levels, scale,
                                &self->pyr));
    Py_INCREF(co);
    self->context = co;
    if (s != CLV_OK) {
        Py_DECREF(self);
        return raise_status(s, m.text);
    }
    return (PyObject *)self;
}

static PyObject *pyramid_level(PyramidObject *self, PyObject *arg)
{
    long long i;
    if (!get_int(arg, "level", INT_MIN, INT_MAX, &i))
        return NULL;
    const clv_image *l = clv_pyramid_level(self->pyr, (int)i);
    if (!l)
        return raise_arg("pyramid level %lld out of range (0..%d)", i,
                         clv_pyramid_levels(self->pyr) - 1);
    return (PyObject *)image_wrap((clv_image *)l, self->context, (PyObject *)self, 1);
}

static PyObject *pyramid_get(PyramidObject *self, void *which)
{
    if ((intptr_t)which == 0)
        return PyLong_FromLong(clv_pyramid_levels(self->pyr));
    Py_INCREF(self->context);
    return (PyObject *)self->context;
}

static PyMethodDef pyramid_methods[] = {
    {"level", (PyCFunction)pyramid_level, METH_O,
     "level(i): level i as an Image (owned by the pyramid; kept alive by it)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef pyramid_getset[] = {
    {"levels", (getter)pyramid_get, NULL, "levels that exist", (void *)0},
    {"context", (getter)pyramid_get, NULL, "the Context", (void *)1},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject PyramidType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clvision._clvision.Pyramid",
    .tp_basicsize = sizeof(PyramidObject),
    .tp_dealloc = (destructor)pyramid_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Pyramid(ctx, width, height, channels=1, dtype='uint8', levels=4, scale=0.5)\n"
              "Gaussian pyramid storage (clv_pyramid_create); fill it with pyramid_build.",
    .tp_methods = pyramid_methods,
    .tp_getset = pyramid_getset,
    .tp_new = pyramid_new,
};

/* ---- the descriptors ---- */

static const char *const type_names[] = {"image", "int",     "double", "bool",
                                         "enum",  "pyramid", "array",  "struct"};

static PyObject *str_or_none(const char *s)
{
    if (s)
        return PyUnicode_FromString(s);
    Py_RETURN_NONE;
}

static PyObject *param_dict(const clv_param_desc *p)
{
    char rule[256];
    clv_param_rule(p, rule, sizeof rule);
    PyObject *names = PyTuple_New(p->n_enum > 0 ? p->n_enum : 0);
    PyObject *values = PyTuple_New(p->n_enum > 0 ? p->n_enum : 0);
    if (!names || !values)
        goto fail;
    for (int k = 0; k < p->n_enum; k++) {
        PyObject *n = PyUnicode_FromString(p->enum_names[k]);
        PyObject *v = PyLong_FromLong(p->enum_values[k]);
        if (!n || !v) {
            Py_XDECREF(n);
            Py_XDECREF(v);
            goto fail;
        }
        PyTuple_SET_ITEM(names, k, n);
        PyTuple_SET_ITEM(values, k, v);
    }
    const int ty = (int)p->type >= 0 && (int)p->type < 8 ? (int)p->type : 0;
    return Py_BuildValue(
        "{sNsNsssIsNsNsdsdsdsdsNsNsNsIsIsNsIsnsNsNsssN}", "name", str_or_none(p->name), "label",
        str_or_none(p->label), "type", type_names[ty], "flags", p->flags, "doc",
        str_or_none(p->doc), "unit", str_or_none(p->unit), "min", p->min, "max", p->max, "default",
        p->def, "special", p->special, "special_doc", str_or_none(p->special_doc), "enum_names",
        names, "enum_values", values, "types", p->types, "channels", p->channels, "like",
        str_or_none(p->like), "like_flags", p->like_flags, "elem_size", (Py_ssize_t)p->elem_size,
        "elem_type", str_or_none(p->elem_type), "length_param", str_or_none(p->length_param),
        "rule", rule, "cli_alias", str_or_none(p->cli_alias));
fail:
    Py_XDECREF(names);
    Py_XDECREF(values);
    return NULL;
}

/* operations(): a tuple of dicts, one per descriptor, in clv_op_get order. */
static PyObject *mod_operations(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    const int n = clv_op_count();
    PyObject *t = PyTuple_New(n);
    if (!t)
        return NULL;
    for (int i = 0; i < n; i++) {
        const clv_op_desc *op = clv_op_get(i);
        PyObject *params = PyTuple_New(op->nparams);
        if (!params) {
            Py_DECREF(t);
            return NULL;
        }
        for (int k = 0; k < op->nparams; k++) {
            PyObject *d = param_dict(&op->params[k]);
            if (!d) {
                Py_DECREF(params);
                Py_DECREF(t);
                return NULL;
            }
            PyTuple_SET_ITEM(params, k, d);
        }
        PyObject *d = Py_BuildValue("{sNsNsNsNsNsN}", "name", str_or_none(op->name), "summary",
                                    str_or_none(op->summary), "doc", str_or_none(op->doc),
                                    "cli_name", str_or_none(op->cli_name), "blocking",
                                    str_or_none(op->blocking), "params", params);
        if (!d) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, d);
    }
    return t;
}

/* ---- binding a call's arguments from a dict, by the descriptor ---- */

#define MAX_ARGS 32

typedef struct {
    clv_arg a[MAX_ARGS];
    int n;
    Py_buffer views[MAX_ARGS];
    int nviews;
    PyObject *refs[MAX_ARGS]; /* Images and Pyramids held during the call */
    int nrefs;
    ContextObject *ctxs[MAX_ARGS + 1]; /* distinct contexts to lock, sorted */
    int nctxs;
} bound;

static void bound_release(bound *b)
{
    for (int i = 0; i < b->nviews; i++)
        PyBuffer_Release(&b->views[i]);
    for (int i = 0; i < b->nrefs; i++)
        Py_DECREF(b->refs[i]);
    b->nviews = b->nrefs = b->n = 0;
}

static void add_ctx(bound *b, ContextObject *c)
{
    for (int i = 0; i < b->nctxs; i++)
        if (b->ctxs[i] == c)
            return;
    int i = b->nctxs++;
    while (i > 0 && (uintptr_t)b->ctxs[i - 1] > (uintptr_t)c) {
        b->ctxs[i] = b->ctxs[i - 1];
        i--;
    }
    b->ctxs[i] = c;
}

/* A length parameter's value as bound (or its default), for array checks. */
static long long bound_int(const clv_op_desc *op, const bound *b, const char *name)
{
    for (int k = 0; k < b->n; k++)
        if (strcmp(b->a[k].name, name) == 0)
            return b->a[k].type == CLV_PARAM_DOUBLE ? (long long)b->a[k].v.d : b->a[k].v.i;
    int j = clv_op_param_index(op, name);
    return j >= 0 ? (long long)op->params[j].def : 0;
}

static int bind_args(const clv_op_desc *op, PyObject *dict, bound *b)
{
    memset(b, 0, sizeof *b);
    if (!PyDict_Check(dict))
        return raise_arg("%s: arguments must be a dict", op->name), 0;
    Py_ssize_t pos = 0;
    PyObject *key, *val;
    while (PyDict_Next(dict, &pos, &key, &val)) {
        if (!PyUnicode_Check(key))
            return raise_arg("%s: argument names must be str", op->name), 0;
        const char *name = PyUnicode_AsUTF8(key);
        if (!name)
            return 0;
        const int j = clv_op_param_index(op, name);
        if (j < 0)
            return raise_arg("%s: no parameter named '%s'", op->name, name), 0;
        if (val == Py_None) /* left out: its default, or NULL */
            continue;
        if (b->n >= MAX_ARGS)
            return raise_arg("%s: too many arguments", op->name), 0;
        const clv_param_desc *p = &op->params[j];
        clv_arg *a = &b->a[b->n];
        a->name = p->name;
        a->type = p->type;
        switch (p->type) {
        case CLV_PARAM_IMAGE:
            if (!PyObject_TypeCheck(val, &ImageType))
                return raise_arg("%s: %s must be a clvision.Image (got %s)", op->name, name,
                                 Py_TYPE(val)->tp_name),
                       0;
            a->v.p = ((ImageObject *)val)->img;
            add_ctx(b, ((ImageObject *)val)->context);
            Py_INCREF(val);
            b->refs[b->nrefs++] = val;
            break;
        case CLV_PARAM_PYRAMID:
            if (!PyObject_TypeCheck(val, &PyramidType))
                return raise_arg("%s: %s must be a clvision.Pyramid (got %s)", op->name, name,
                                 Py_TYPE(val)->tp_name),
                       0;
            a->v.p = ((PyramidObject *)val)->pyr;
            add_ctx(b, ((PyramidObject *)val)->context);
            Py_INCREF(val);
            b->refs[b->nrefs++] = val;
            break;
        case CLV_PARAM_INT:
        case CLV_PARAM_BOOL:
        case CLV_PARAM_ENUM:
            if (p->type == CLV_PARAM_ENUM && PyUnicode_Check(val)) {
                const char *s = PyUnicode_AsUTF8(val);
                if (!s)
                    return 0;
                int v;
                if (clv_param_enum_value(p, s, &v) != CLV_OK) {
                    char rule[256];
                    clv_param_rule(p, rule, sizeof rule);
                    return raise_arg("%s: unknown %s '%s' (expected one of %s)", op->name, name,
                                     s, rule),
                           0;
                }
                a->type = CLV_PARAM_INT;
                a->v.i = v;
            } else if (!PyFloat_Check(val) && PyIndex_Check(val)) {
                long long v;
                if (!get_int(val, name, INT_MIN, INT_MAX, &v)) {
                    PyErr_Clear();
                    char rule[256];
                    clv_param_rule(p, rule, sizeof rule);
                    return raise_arg("%s: %s must be %s (got a value outside the int range)",
                                     op->name, name, rule),
                           0;
                }
                a->type = CLV_PARAM_INT;
                a->v.i = (int)v;
            } else if (p->type == CLV_PARAM_INT && PyFloat_Check(val)) {
                a->type = CLV_PARAM_DOUBLE; /* the library takes integral doubles */
                a->v.d = PyFloat_AS_DOUBLE(val);
            } else {
                return raise_arg("%s: %s must be %s (got %s)", op->name, name,
                                 p->type == CLV_PARAM_ENUM ? "a name or an int"
                                 : p->type == CLV_PARAM_BOOL ? "a bool"
                                                             : "an int",
                                 Py_TYPE(val)->tp_name),
                       0;
            }
            break;
        case CLV_PARAM_DOUBLE: {
            if (PyUnicode_Check(val) || PyBytes_Check(val) ||
                !(PyFloat_Check(val) || PyIndex_Check(val) || PyNumber_Check(val)))
                return raise_arg("%s: %s must be a number (got %s)", op->name, name,
                                 Py_TYPE(val)->tp_name),
                       0;
            double d = PyFloat_AsDouble(val);
            if (d == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                return raise_arg("%s: %s must be a number (got %s)", op->name, name,
                                 Py_TYPE(val)->tp_name),
                       0;
            }
            a->v.d = d;
            break;
        }
        case CLV_PARAM_ARRAY:
        case CLV_PARAM_STRUCT: {
            const int flags = PyBUF_C_CONTIGUOUS | ((p->flags & CLV_PARAM_OUTPUT) ? PyBUF_WRITABLE : 0);
            if (PyObject_GetBuffer(val, &b->views[b->nviews], flags) != 0) {
                PyErr_Clear();
                return raise_arg("%s: %s must be a C-contiguous%s buffer (numpy array) (got %s)",
                                 op->name, name,
                                 (p->flags & CLV_PARAM_OUTPUT) ? ", writable" : "",
                                 Py_TYPE(val)->tp_name),
                       0;
            }
            a->v.p = b->views[b->nviews].buf;
            b->nviews++;
            break;
        }
        default:
            return raise_arg("%s: %s has a type this binding does not know", op->name, name), 0;
        }
        b->n++;
    }
    /* buffers hold what the descriptor says the call touches */
    for (int k = 0, v = 0; k < b->n; k++) {
        const int j = clv_op_param_index(op, b->a[k].name);
        const clv_param_desc *p = &op->params[j];
        if (p->type != CLV_PARAM_ARRAY && p->type != CLV_PARAM_STRUCT)
            continue;
        const Py_ssize_t have = b->views[v++].len;
        if (p->type == CLV_PARAM_STRUCT) {
            if ((size_t)have < p->elem_size)
                return raise_arg("%s: %s holds %zd bytes, needs %zu (%s)", op->name, p->name,
                                 have, p->elem_size, p->elem_type ? p->elem_type : "?"),
                       0;
        } else {
            const long long n = p->length_param ? bound_int(op, b, p->length_param) : 0;
            if (n > 0 && (unsigned long long)n > (unsigned long long)have / p->elem_size)
                return raise_arg("%s: %s holds %zd elements of %zu bytes (%s), %s is %lld",
                                 op->name, p->name, have / (Py_ssize_t)p->elem_size,
                                 p->elem_size, p->elem_type ? p->elem_type : "?",
                                 p->length_param, n),
                       0;
        }
    }
    return 1;
}

static const clv_op_desc *find_op(PyObject *name)
{
    if (!PyUnicode_Check(name))
        return raise_arg("the operation name must be a str"), NULL;
    const char *s = PyUnicode_AsUTF8(name);
    if (!s)
        return NULL;
    const clv_op_desc *op = clv_op_find(s);
    if (!op)
        return raise_arg("no operation named '%s'", s), NULL;
    return op;
}

/* Bind dict to op's parameters once and run clv_op_call n times (n >= 0;
 * stops at the first failure) on co, the GIL released and every context the
 * arguments name locked. None, or the exception of the status. */
static PyObject *run_bound(ContextObject *co, const clv_op_desc *op, PyObject *dict, long long n,
                           PyObject *settle)
{
    /* images over host memory to settle after the call: given in dict too,
     * so their contexts are among those locked */
    clv_image *settled[16];
    Py_ssize_t nsettle = 0;
    if (settle && settle != Py_None) {
        if (!PyTuple_Check(settle) || PyTuple_GET_SIZE(settle) > 16)
            return raise_arg("call: settle must be a tuple of at most 16 Images");
        nsettle = PyTuple_GET_SIZE(settle);
        for (Py_ssize_t i = 0; i < nsettle; i++) {
            PyObject *o = PyTuple_GET_ITEM(settle, i);
            if (!PyObject_TypeCheck(o, &ImageType) || ((ImageObject *)o)->context != co)
                return raise_arg("call: settle must hold Images of ctx");
            settled[i] = ((ImageObject *)o)->img;
        }
    }
    bound *b = PyMem_Malloc(sizeof *b);
    message *m = PyMem_Malloc(sizeof *m);
    if (!b || !m) {
        PyMem_Free(b);
        PyMem_Free(m);
        return PyErr_NoMemory();
    }
    if (!bind_args(op, dict, b)) {
        bound_release(b);
        PyMem_Free(b);
        PyMem_Free(m);
        return NULL;
    }
    add_ctx(b, co);
    clv_status s = CLV_OK;
    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; i < b->nctxs; i++)
        lock_ctx(b->ctxs[i]);
    for (long long k = 0; k < n && s == CLV_OK; k++)
        s = clv_op_call(co->ctx, op, b->a, b->n);
    for (Py_ssize_t i = 0; i < nsettle && s == CLV_OK; i++)
        s = settle_host(settled[i]);
    if (s != CLV_OK)
        copy_message(m, clv_last_error(co->ctx));
    for (int i = b->nctxs - 1; i >= 0; i--)
        unlock_ctx(b->ctxs[i]);
    Py_END_ALLOW_THREADS
    bound_release(b);
    PyMem_Free(b);
    PyObject *r = s == CLV_OK ? (Py_INCREF(Py_None), Py_None) : raise_status(s, m->text);
    PyMem_Free(m);
    return r;
}

/* call(ctx, op_name, args, settle=None): run the operation through
 * clv_op_call; args is a dict of parameter name -> value (Image, Pyramid,
 * number, enum name, buffer for arrays and structs; None: left out).
 * settle: a tuple of images of ctx made by Image.over, settled (as
 * Image.settle: waited for, the device's writes visible) after the call,
 * under the same lock. */
static PyObject *mod_call(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *ctx, *name, *dict, *settle = NULL;
    if (!PyArg_ParseTuple(args, "OOO|O:call", &ctx, &name, &dict, &settle))
        return NULL;
    if (!check_context(ctx, "ctx"))
        return NULL;
    const clv_op_desc *op = find_op(name);
    if (!op)
        return NULL;
    return run_bound((ContextObject *)ctx, op, dict, 1, settle);
}

/* _repeat_call(ctx, op_name, args, n): clv_op_call n times with the same
 * arguments, bound once, for measuring the binding's own cost per call
 * against the C call (bench/py_overhead.py). */
static PyObject *mod_repeat_call(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *ctx, *name, *dict, *pn;
    if (!PyArg_ParseTuple(args, "OOOO:_repeat_call", &ctx, &name, &dict, &pn))
        return NULL;
    long long n;
    if (!check_context(ctx, "ctx") || !get_int(pn, "n", 0, INT_MAX, &n))
        return NULL;
    const clv_op_desc *op = find_op(name);
    if (!op)
        return NULL;
    return run_bound((ContextObject *)ctx, op, dict, n, NULL); /* n 0: checked only */
}

/* output_shape(op_name, args, param): (width, height, channels, dtype) the
 * output image parameter `param` needs given the inputs in args (width and
 * height 0 for a size the caller picks). */
static PyObject *mod_output_shape(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *name, *dict, *pname;
    if (!PyArg_ParseTuple(args, "OOO:output_shape", &name, &dict, &pname))
        return NULL;
    const clv_op_desc *op = find_op(name);
    if (!op)
        return NULL;
    if (!PyUnicode_Check(pname))
        return raise_arg("output_shape: the parameter name must be a str");
    const int index = clv_op_param_index(op, PyUnicode_AsUTF8(pname));
    bound *b = PyMem_Malloc(sizeof *b);
    if (!b)
        return PyErr_NoMemory();
    if (!bind_args(op, dict, b)) {
        bound_release(b);
        PyMem_Free(b);
        return NULL;
    }
    int w = 0, h = 0, c = 0;
    clv_pixel_type t = CLV_U8;
    char msg[1024];
    clv_status s = clv_op_output_shape(op, b->a, b->n, index, &w, &h, &c, &t, msg, sizeof msg);
    bound_release(b);
    PyMem_Free(b);
    if (s != CLV_OK)
        return raise_status(s, msg);
    return Py_BuildValue("(iiiN)", w, h, c, PyArray_DescrFromType(clv_to_npy(t)));
}

/* ---- files ---- */

static PyObject *host_to_array(const clv_host_image *h)
{
    npy_intp dims[3] = {h->height, h->width, h->channels};
    PyArrayObject *a = (PyArrayObject *)new_array(h->channels == 1 ? 2 : 3, dims,
                                                  clv_to_npy(h->type));
    if (!a)
        return NULL;
    const size_t row = (size_t)h->width * (size_t)h->channels * clv_pixel_type_size(h->type);
    char *dst = PyArray_DATA(a);
    for (int y = 0; y < h->height; y++)
        memcpy(dst + (size_t)y * row, (const char *)h->data + (size_t)y * h->stride, row);
    return (PyObject *)a;
}

static int path_arg(PyObject *o, PyObject **bytes)
{
    return PyUnicode_FSConverter(o, bytes);
}

typedef clv_status (*reader)(const char *, clv_host_image *);

static PyObject *read_with(PyObject *arg, reader fn)
{
    PyObject *pb = NULL;
    if (!path_arg(arg, &pb))
        return NULL;
    clv_host_image h = {0};
    clv_status s;
    message m;
    const char *path = PyBytes_AS_STRING(pb);
    Py_BEGIN_ALLOW_THREADS
    s = fn(path, &h);
    if (s != CLV_OK)
        copy_message(&m, clv_io_last_error());
    Py_END_ALLOW_THREADS
    Py_DECREF(pb);
    if (s != CLV_OK)
        return raise_status(s, m.text);
    PyObject *r = host_to_array(&h);
    clv_host_image_free(&h);
    return r;
}

static PyObject *mod_imread(PyObject *mod, PyObject *arg)
{
    (void)mod;
    return read_with(arg, clv_image_read);
}

static PyObject *mod_flo_read(PyObject *mod, PyObject *arg)
{
    (void)mod;
    return read_with(arg, clv_flo_read);
}

/* A host image over an array's memory (same row rules as upload; writable:
 * refuse a read-only array). */
static int array_host(PyObject *o, clv_host_image *h, const char *what, int writable)
{
    if (!PyArray_Check(o))
        return raise_arg("%s: expected a numpy array (got %s)", what, Py_TYPE(o)->tp_name), 0;
    PyArrayObject *a = (PyArrayObject *)o;
    clv_pixel_type t;
    switch (PyArray_TYPE(a)) {
    case NPY_UINT8: t = CLV_U8; break;
    case NPY_UINT16: t = CLV_U16; break;
    case NPY_FLOAT32: t = CLV_F32; break;
    default:
        return raise_arg("%s: dtype must be uint8, uint16 or float32 (got %s)", what,
                         PyArray_DESCR(a)->typeobj->tp_name),
               0;
    }
    const int nd = PyArray_NDIM(a);
    if (nd != 2 && nd != 3)
        return raise_arg("%s: shape must be (H, W) or (H, W, C) (got %d dimensions)", what, nd), 0;
    const npy_intp *d = PyArray_DIMS(a);
    if (d[0] < 1 || d[1] < 1 || d[0] > CLV_MAX_DIMENSION || d[1] > CLV_MAX_DIMENSION ||
        (nd == 3 && (d[2] < 1 || d[2] > 4)))
        return raise_arg("%s: shape (%zd, %zd%s) is not an image (sides 1..%d, 1..4 channels)",
                         what, (Py_ssize_t)d[0], (Py_ssize_t)d[1], nd == 3 ? ", C" : "",
                         CLV_MAX_DIMENSION),
               0;
    size_t stride;
    if (!check_array(a, (int)d[1], (int)d[0], nd == 3 ? (int)d[2] : 1, t, writable, what,
                     &stride))
        return 0;
    h->width = (int)d[1];
    h->height = (int)d[0];
    h->channels = nd == 3 ? (int)d[2] : 1;
    h->type = t;
    h->stride = stride;
    h->data = PyArray_DATA(a);
    return 1;
}

typedef clv_status (*writer)(const char *, const clv_host_image *, int);

static clv_status flo_writer(const char *p, const clv_host_image *h, int q)
{
    (void)q;
    return clv_flo_write(p, h);
}

static PyObject *write_with(PyObject *args, PyObject *kw, writer fn, const char *what)
{
    static char *names[] = {"path", "array", "quality", NULL};
    PyObject *pp, *pa;
    int quality = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|i", names, &pp, &pa, &quality))
        return NULL;
    clv_host_image h = {0};
    if (!array_host(pa, &h, what, 0))
        return NULL;
    PyObject *pb = NULL;
    if (!path_arg(pp, &pb))
        return NULL;
    clv_status s;
    message m;
    const char *path = PyBytes_AS_STRING(pb);
    Py_INCREF(pa);
    Py_BEGIN_ALLOW_THREADS
    s = fn(path, &h, quality);
    if (s != CLV_OK)
        copy_message(&m, clv_io_last_error());
    Py_END_ALLOW_THREADS
    Py_DECREF(pa);
    Py_DECREF(pb);
    if (s != CLV_OK)
        return raise_status(s, m.text);
    Py_RETURN_NONE;
}

static PyObject *mod_imwrite(PyObject *mod, PyObject *args, PyObject *kw)
{
    (void)mod;
    return write_with(args, kw, clv_image_write, "imwrite");
}

static PyObject *mod_flo_write(PyObject *mod, PyObject *args, PyObject *kw)
{
    (void)mod;
    return write_with(args, kw, flo_writer, "flo_write");
}

/* ---- the rest ---- */

static PyObject *mod_live_objects(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    clv_live_objects l;
    clv_debug_live_objects(&l);
    return Py_BuildValue("{sKsKsKsKsKsK}", "mem_objects", (unsigned long long)l.mem_objects,
                         "kernels", (unsigned long long)l.kernels, "programs",
                         (unsigned long long)l.programs, "events", (unsigned long long)l.events,
                         "queues", (unsigned long long)l.queues, "contexts",
                         (unsigned long long)l.contexts);
}

static PyObject *mod_list_devices(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    char *buf = PyMem_Malloc(65536);
    if (!buf)
        return PyErr_NoMemory();
    clv_status s;
    Py_BEGIN_ALLOW_THREADS
    s = clv_list_devices(buf, 65536);
    Py_END_ALLOW_THREADS
    PyObject *r = s == CLV_OK ? PyUnicode_FromString(buf) : raise_status(s, "no OpenCL platform");
    PyMem_Free(buf);
    return r;
}

static PyObject *mod_status_string(PyObject *mod, PyObject *arg)
{
    (void)mod;
    long long s;
    if (!get_int(arg, "status", INT_MIN, INT_MAX, &s))
        return NULL;
    return PyUnicode_FromString(clv_status_string((clv_status)s));
}

static PyObject *mod_has_exr(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    return PyBool_FromLong(clv_io_has_exr());
}

static PyMethodDef mod_methods[] = {
    {"operations", mod_operations, METH_NOARGS,
     "operations(): the operation descriptors, a tuple of dicts."},
    {"call", mod_call, METH_VARARGS,
     "call(ctx, op_name, args): run an operation through clv_op_call; args maps parameter\n"
     "names to Images, Pyramids, numbers, enum names, or buffers (arrays and structs)."},
    {"_repeat_call", mod_repeat_call, METH_VARARGS,
     "_repeat_call(ctx, op_name, args, n): clv_op_call n times, arguments bound once\n"
     "(for measuring the binding's overhead)."},
    {"output_shape", mod_output_shape, METH_VARARGS,
     "output_shape(op_name, args, param): (width, height, channels, dtype) of an output image."},
    {"imread", mod_imread, METH_O,
     "imread(path): PNG, JPEG, EXR, HDR or PFM file as a numpy array (colour as R, G, B[, A])."},
    {"imwrite", (PyCFunction)(void (*)(void))mod_imwrite, METH_VARARGS | METH_KEYWORDS,
     "imwrite(path, array, quality=0): write by extension (colour as R, G, B[, A])."},
    {"flo_read", mod_flo_read, METH_O, "flo_read(path): a Middlebury .flo file, (H, W, 2) float32."},
    {"flo_write", (PyCFunction)(void (*)(void))mod_flo_write, METH_VARARGS | METH_KEYWORDS,
     "flo_write(path, flow): write an (H, W, 2) float32 flow as .flo."},
    {"live_objects", mod_live_objects, METH_NOARGS,
     "live_objects(): OpenCL objects alive in the process (clv_debug_live_objects)."},
    {"list_devices", mod_list_devices, METH_NOARGS, "list_devices(): one line per device."},
    {"status_string", mod_status_string, METH_O, "status_string(status): its description."},
    {"has_exr", mod_has_exr, METH_NOARGS, "has_exr(): whether OpenEXR files can be used."},
    {"_set_mem_handler", mod_set_mem_handler, METH_O,
     "_set_mem_handler(handler): numpy's memory handler in this context (None: numpy's "
     "default); returns the previous one."},
    {"_over_if", mod_over_if, METH_VARARGS,
     "_over_if(ctx, array, writable): Image.over when the array fits as it is, else None."},
    {"empty", mod_empty, METH_VARARGS,
     "empty(shape, dtype, padded=False): a new array whose data starts on 64 bytes: C-ordered,\n"
     "or (padded, an image shape) with rows padded to a multiple of 64 bytes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT, "_clvision",
    "The C part of clvision's Python binding (see the clvision package).", -1, mod_methods,
    NULL, NULL, NULL, NULL,
};

static int add_exceptions(PyObject *m)
{
    Error = PyErr_NewExceptionWithDoc(
        "clvision.Error",
        "A clvision failure: .status (the clv_status value) and .message (the library's text).",
        NULL, NULL);
    if (!Error || PyModule_AddObjectRef(m, "Error", Error) < 0)
        return -1;
    for (size_t i = 0; i < sizeof status_names / sizeof status_names[0]; i++) {
        PyObject *bases;
        const char *extra = status_names[i].extra;
        if (!extra)
            bases = PyTuple_Pack(1, Error);
        else if (strcmp(extra, "ValueError+TypeError") == 0)
            bases = PyTuple_Pack(3, Error, PyExc_ValueError, PyExc_TypeError);
        else if (strcmp(extra, "MemoryError") == 0)
            bases = PyTuple_Pack(2, Error, PyExc_MemoryError);
        else if (strcmp(extra, "OSError") == 0)
            bases = PyTuple_Pack(2, Error, PyExc_OSError);
        else
            bases = PyTuple_Pack(2, Error, PyExc_ValueError);
        if (!bases)
            return -1;
        char full[64], doc[128];
        snprintf(full, sizeof full, "clvision.%s", status_names[i].name);
        snprintf(doc, sizeof doc, "clv_status %d: %s", (int)status_names[i].status,
                 clv_status_string(status_names[i].status));
        PyObject *cls = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
        Py_DECREF(bases);
        if (!cls)
            return -1;
        PyObject *st = PyLong_FromLong((long)status_names[i].status);
        if (!st || PyObject_SetAttrString(cls, "status", st) < 0) {
            Py_XDECREF(st);
            Py_DECREF(cls);
            return -1;
        }
        Py_DECREF(st);
        status_class[-status_names[i].status] = cls;
        if (PyModule_AddObjectRef(m, status_names[i].name, cls) < 0)
            return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__clvision(void)
{
    import_array();
    PyObject *m = PyModule_Create(&moddef);
    if (!m)
        return NULL;
    if (PyType_Ready(&ContextType) < 0 || PyType_Ready(&ImageType) < 0 ||
        PyType_Ready(&PyramidType) < 0 || PyType_Ready(&MappingType) < 0 ||
        PyType_Ready(&HostBufferType) < 0 ||
        add_exceptions(m) < 0 ||
        PyModule_AddObjectRef(m, "Context", (PyObject *)&ContextType) < 0 ||
        PyModule_AddObjectRef(m, "Image", (PyObject *)&ImageType) < 0 ||
        PyModule_AddObjectRef(m, "Pyramid", (PyObject *)&PyramidType) < 0 ||
        PyModule_AddStringConstant(m, "version", clv_version()) < 0 ||
        PyModule_AddIntConstant(m, "PITCH_ALIGN", CLV_PITCH_ALIGN) < 0 ||
        PyModule_AddIntConstant(m, "MAX_DIMENSION", CLV_MAX_DIMENSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
#ifdef CLV_PY_HANDLER
    aligned_capsule = PyCapsule_New(&aligned_handler, "mem_handler", NULL);
    if (!aligned_capsule) {
        Py_DECREF(m);
        return NULL;
    }
#endif
    if (PyModule_AddObjectRef(m, "ALIGNED_HANDLER", aligned_capsule ? aligned_capsule : Py_None) <
        0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
