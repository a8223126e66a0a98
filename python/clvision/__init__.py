"""clvision: vendor-neutral OpenCL computer vision, from Python.

Every operation of the C library is a function of this module, generated at
import time from the library's operation descriptors (``clv_op_get``): the
function is named like the descriptor, takes the descriptor's parameter names
as arguments with the descriptor's defaults, and its docstring is the
descriptor's text. Nothing here is written per operation.

Given numpy arrays an operation uploads them, runs on the device and returns
numpy arrays; given device images (:class:`Image`) it returns device images,
which stay on the device between calls. On a CPU device an array whose data,
rows and row stride are multiples of 64 bytes is used in place instead of
copied (:meth:`Image.over`); the results are the same either way. numpy's
allocator (and so cv2.imread) gives 16-byte alignment: arrays made under
:class:`aligned_arrays` or by :func:`empty` start on 64 bytes, and so does
every array clvision returns.

Arrays: dtype uint8, uint16 or float32; shape (H, W) or (H, W, C) with C in
1, 3, 4 ((H, W, 2) float32 for flow fields). Pixels within a row must be
contiguous; rows may be any distance apart (a row slice ``a[10:20]`` or a
crop ``a[:, 5:50]`` works without a copy, through the C API's host stride).
Anything else (``a[:, ::2]``, ``a.T``, negative strides) is refused with
InvalidArgumentError naming ``np.ascontiguousarray`` -- nothing large is
copied silently. Point arrays (corners, tracks) are small and converted to
float32 as needed.

Channel order: clvision's colour is R, G, B[, A] (files are read as RGB).
The operations whose result depends on the order (their descriptors mark
the image with CLV_PARAM_RGB: bilateral_grid, tonemap_local, flow_to_color)
take ``bgr=True`` for OpenCV's B, G, R arrays (``cv2.imread``): the channels
are swapped on the device before and after. Every other operation treats
channels alike, so BGR in gives BGR out.

Errors raise :class:`Error` subclasses, one per clv_status
(InvalidArgumentError, UnsupportedError, ...), carrying ``.status`` and the
library's ``.message``.
"""
import os
import threading

import numpy as np

try:
    from . import _clvision as _c
except ImportError:  # uninstalled: <build>/python on sys.path beside python/
    import _clvision as _c

Error = _c.Error
InvalidArgumentError = _c.InvalidArgumentError
OutOfMemoryError = _c.OutOfMemoryError
NoDeviceError = _c.NoDeviceError
OpenCLError = _c.OpenCLError
BuildError = _c.BuildError
KernelSourceError = _c.KernelSourceError
UnsupportedError = _c.UnsupportedError
IoError = _c.IoError
FormatError = _c.FormatError
KernelFaultError = _c.KernelFaultError


def _message_get(self):
    return self.__dict__.get('_message', str(self.args[0]) if self.args else '')


def _message_set(self, value):
    self.__dict__['_message'] = value


# .message: the library's text (set by the extension), else the exception's own
Error.message = property(_message_get, _message_set)
#: clv_status value -> exception class
STATUS_ERRORS = {cls.status: cls for cls in (
    InvalidArgumentError, OutOfMemoryError, NoDeviceError, OpenCLError, BuildError,
    KernelSourceError, UnsupportedError, IoError, FormatError, KernelFaultError)}

Image = _c.Image
Pyramid = _c.Pyramid
call = _c.call  # call(ctx, op_name, {param: value}): clv_op_call, no conversions
output_shape = _c.output_shape
live_objects = _c.live_objects
list_devices = _c.list_devices
status_string = _c.status_string
has_exr = _c.has_exr
__version__ = _c.version

# ---- contexts ----

_PKG_KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'cl')


def _kernel_path(kernel_path):
    """An installed package carries its kernels in clvision/cl; CLV_KERNEL_PATH
    and an explicit path come first; uninstalled, the library finds the tree's."""
    if kernel_path is not None or os.environ.get('CLV_KERNEL_PATH'):
        return kernel_path
    if os.path.isfile(os.path.join(_PKG_KERNELS, 'common.cl')):
        return _PKG_KERNELS
    return None


class Context(_c.Context):
    """Context(device=None, kernel_path=None, cache_dir=None, profiling=False)

    One OpenCL device with its queue and built programs. device: a spec as
    CLV_DEVICE ('gpu', 'cpu', 'P:D' or a name substring); None: CLV_DEVICE,
    else the first GPU, else the first CPU. Use a context from one thread at
    a time (calls from several threads on one context are serialised)."""

    def __new__(cls, device=None, kernel_path=None, cache_dir=None, profiling=False):
        return super().__new__(cls, device, _kernel_path(kernel_path), cache_dir, profiling)

    @classmethod
    def from_pyopencl(cls, cl_context, queue=None, device=None, kernel_path=None,
                      cache_dir=None):
        """A context on pyopencl objects (no copies): clvision runs on
        ``cl_context``'s device (``device``, else the queue's, else its first)
        and on ``queue`` (in order) when given, else a queue of its own. The
        pyopencl objects are kept alive with the context."""
        if device is None:
            device = queue.device if queue is not None else cl_context.devices[0]
        return cls.from_cl(cl_context.int_ptr, device.int_ptr,
                           queue.int_ptr if queue is not None else 0,
                           owner=(cl_context, queue, device),
                           kernel_path=_kernel_path(kernel_path), cache_dir=cache_dir)


_local = threading.local()


def default_context():
    """This thread's default Context (made on first use, device as Context())."""
    ctx = getattr(_local, 'ctx', None)
    if ctx is None:
        ctx = _local.ctx = Context()
    return ctx


# ---- host arrays <-> device images ----

_DTYPES = {np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float32)}


def _shape_of(a, what):
    if not isinstance(a, np.ndarray):
        raise InvalidArgumentError('%s must be a numpy array or a clvision.Image (got %s)'
                                   % (what, type(a).__name__))
    if a.dtype not in _DTYPES:
        raise InvalidArgumentError('%s: dtype must be uint8, uint16 or float32 (got %s)'
                                   % (what, a.dtype))
    if a.ndim == 2:
        return a.shape[1], a.shape[0], 1
    if a.ndim == 3:
        return a.shape[1], a.shape[0], a.shape[2]
    raise InvalidArgumentError('%s: shape must be (H, W) or (H, W, C) (got %r)' % (what, a.shape))


def upload(array, ctx=None):
    """A new device Image holding a copy of ``array`` (see the module doc for
    the shapes and strides accepted)."""
    w, h, c = _shape_of(array, 'upload')
    img = Image(default_context() if ctx is None else ctx, w, h, c, array.dtype)
    img.upload(array)
    return img


def download(img, out=None):
    """``img.download(out)``: the pixels as a numpy array."""
    return img.download(out)


def wrap_buffer(ctx, buffer, width, height, channels=1, dtype=np.uint8, offset=0, pitch=0):
    """An Image over a pyopencl Buffer (or an int cl_mem handle) without a
    copy (clv_image_wrap_buffer: offset and pitch multiples of 64; pitch 0:
    each row rounded up to 64 bytes). The buffer is kept alive with it."""
    handle = buffer if isinstance(buffer, int) else buffer.int_ptr
    return Image.wrap_buffer(ctx, handle, width, height, channels, dtype, offset, pitch,
                             owner=None if isinstance(buffer, int) else buffer)


# ---- 64-byte aligned numpy arrays ----

def empty(shape, dtype=np.uint8, padded=False):
    """A new uninitialised numpy array, as ``np.empty``, whose data starts on
    a multiple of 64 bytes: C-ordered, or, with ``padded=True`` and an image
    shape (H, W) or (H, W, C) whose rows are not a multiple of 64 bytes, with
    each row padded to one (a strided array: ``a.strides[0]`` is the padded
    row; ``np.ascontiguousarray(a)`` packs it).

    On a CPU device the operations use such an array in place, not copied,
    as an input or an ``out=``: a C-ordered one when its rows are multiples
    of 64 bytes (1920 x 1 uint8 rows are), a padded one always (the padding
    belongs to no pixel, so the device may write it): e.g. the 1080-byte rows
    of a transposed 1920 x 1080 gray image, ``out=clvision.empty((1920, 1080),
    np.uint8, padded=True)``."""
    if _c.ALIGNED_HANDLER is None and not padded:  # numpy < 1.22 at build time
        dt = np.dtype(dtype)
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (int(shape),)
        n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
        buf = np.empty(n + _HOST_ALIGN, np.uint8)
        off = -buf.ctypes.data % _HOST_ALIGN
        return buf[off:off + n].view(dt).reshape(shape)
    return _c.empty(shape, dtype, padded)


class aligned_arrays:
    """aligned_arrays(enable=True): numpy arrays made from now on in this
    thread (this context, for asyncio tasks) start on 64 bytes.

    Installs a numpy memory handler (NEP 49, numpy >= 1.22) whose blocks are
    64-byte aligned; everything that allocates through numpy uses it: ``np.empty``,
    ``np.zeros``, arithmetic results, ``cv2.imread`` and the other cv2
    functions' new arrays. On a CPU device (PoCL) the operations then read and
    write such arrays in place instead of copying them, when their rows are
    multiples of 64 bytes too (widths times channels times item size; 1920 x 3
    uint8 is). Numpy's default allocator is left alone until this is called.

    As a context manager it puts the previous allocator back on exit::

        with clvision.aligned_arrays():
            img = cv2.imread('photo.png')       # used in place by clvision
        blur = clvision.gaussian_blur(img, 2.0)

    Called alone it stays on for the thread; ``aligned_arrays(False)`` puts
    numpy's default back. The setting is numpy's, per thread (a contextvar):
    threads started later begin with numpy's default, asyncio tasks inherit
    it. Arrays made under it can be used and freed anywhere, at any time.
    Without a numpy >= 1.22 at build time it raises UnsupportedError."""

    def __init__(self, enable=True):
        self._previous = _c._set_mem_handler(_c.ALIGNED_HANDLER if enable else None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _c._set_mem_handler(self._previous)
        return False


# ---- files ----

def imread(path, bgr=False):
    """Read PNG, JPEG, OpenEXR, Radiance HDR or PFM: a numpy array, (H, W) or
    (H, W, C), colour as R, G, B[, A] (bgr=True: B, G, R[, A] as cv2.imread)."""
    a = _c.imread(path)
    if bgr and a.ndim == 3 and a.shape[2] in (3, 4):
        a = np.take(a, [2, 1, 0, 3][:a.shape[2]], axis=2, out=empty(a.shape, a.dtype))
    return a


def imwrite(path, array, quality=0, bgr=False):
    """Write by extension (.png, .jpg, .exr, .hdr, .pfm); colour taken as
    R, G, B[, A] (bgr=True: B, G, R[, A]); quality for JPEG (0: 92)."""
    if bgr and isinstance(array, np.ndarray) and array.ndim == 3 and array.shape[2] in (3, 4):
        array = np.ascontiguousarray(array[:, :, [2, 1, 0, 3][:array.shape[2]]])
    _c.imwrite(path, array, quality)


def flo_read(path):
    """A Middlebury .flo file as an (H, W, 2) float32 array (u, v)."""
    return _c.flo_read(path)


def flo_write(path, flow):
    """Write an (H, W, 2) float32 flow field as a .flo file."""
    _c.flo_write(path, flow)


# ---- operations, generated from the descriptors ----

# Flags of clvision/op.h.
_INPUT, _OUTPUT, _OPTIONAL = 1, 2, 4
_FREE_SIZE, _COUNT, _RGB = 1 << 8, 1 << 9, 1 << 10
_LIKE_TYPE = 2

# Element types of array parameters: numpy dtype and values per element.
_ELEMS = {'clv_corner': (np.float32, 3), 'clv_point': (np.float32, 2),
          'uint8_t': (np.uint8, 0), 'float': (np.float32, 0), 'int': (np.int32, 0)}
# Value types of struct parameters.
_STRUCTS = {'int': np.dtype(np.int32),
            'clv_flow_stats': np.dtype([('aee', 'f8'), ('aae', 'f8'), ('r1', 'f8'),
                                        ('r3', 'f8'), ('r5', 'f8'), ('valid', 'i8')])}

OPERATIONS = {}  # name -> descriptor dict, as _clvision.operations() gives it


class _Plan:
    """What a generated function does with its arguments, from one descriptor."""

    def __init__(self, d):
        self.name = d['name']
        ps = d['params']
        self.params = {p['name']: p for p in ps}
        self.in_images = [p['name'] for p in ps if p['type'] == 'image' and p['flags'] & _INPUT]
        self.out_images = [p['name'] for p in ps if p['type'] == 'image' and p['flags'] & _OUTPUT]
        self.in_pyramids = [p['name'] for p in ps
                            if p['type'] == 'pyramid' and not p['flags'] & _OUTPUT]
        self.out_pyramids = [p['name'] for p in ps
                             if p['type'] == 'pyramid' and p['flags'] & _OUTPUT]
        self.arrays = [p for p in ps if p['type'] == 'array']
        self.in_arrays = [p['name'] for p in self.arrays if p['flags'] & _INPUT]
        self.out_arrays = [p['name'] for p in self.arrays if p['flags'] & _OUTPUT]
        # length parameters of input arrays come from the arrays themselves
        self.derived = {p['length_param'] for p in self.arrays
                        if p['flags'] & _INPUT and not p['flags'] & _OUTPUT}
        self.structs = [p for p in ps if p['type'] == 'struct' and p['flags'] & _OUTPUT]
        self.counted = {p['like']: p['name'] for p in self.structs if p['flags'] & _COUNT}
        self.rgb = {p['name'] for p in ps if p['type'] == 'image' and p['flags'] & _RGB}
        self.free_size = [n for n in self.out_images if self.params[n]['flags'] & _FREE_SIZE]
        self.pick_type = [n for n in self.out_images
                          if not self.params[n]['like_flags'] & _LIKE_TYPE
                          and bin(self.params[n]['types']).count('1') > 1]
        self.numbers = [p['name'] for p in ps if p['type'] in ('int', 'double', 'bool', 'enum')
                        and p['name'] not in self.derived]
        self.has_levels = 'levels' in self.params and self.params['levels']['type'] == 'int'
        for p in self.arrays:
            t = p['elem_type']
            if t in _ELEMS:
                dt, k = _ELEMS[t]
                if np.dtype(dt).itemsize * max(k, 1) != p['elem_size']:
                    raise ImportError('clvision: %s.%s: %s is %d bytes, expected %d'
                                      % (self.name, p['name'], t, p['elem_size'],
                                         np.dtype(dt).itemsize * max(k, 1)))
        for p in self.structs:
            t = _STRUCTS.get(p['elem_type'])
            if t is not None and t.itemsize != p['elem_size']:
                raise ImportError('clvision: %s.%s: %s is %d bytes, expected %d'
                                  % (self.name, p['name'], p['elem_type'], p['elem_size'],
                                     t.itemsize))


def _elem_array(p, n):
    t = p['elem_type']
    if t in _ELEMS:
        dt, k = _ELEMS[t]
        return np.zeros((n, k) if k else (n,), dt)
    return np.zeros((n, p['elem_size']), np.uint8)


def _in_array(p, value):
    try:
        return _in_array_of(p, value)
    except (TypeError, ValueError) as e:
        if isinstance(e, Error):
            raise
        raise InvalidArgumentError('%s: %s' % (p['name'], e)) from None


def _in_array_of(p, value):
    t = p['elem_type']
    if t in _ELEMS:
        dt, k = _ELEMS[t]
        a = np.ascontiguousarray(value, dtype=dt)
        if k:
            if a.ndim == 1 and a.size == k:
                a = a.reshape(1, k)
            if a.ndim != 2 or a.shape[1] != k:
                raise InvalidArgumentError('%s must be an (N, %d) array (got shape %r)'
                                           % (p['name'], k, a.shape))
        elif a.ndim != 1:
            a = a.reshape(-1)
        return a
    a = np.ascontiguousarray(value, dtype=np.uint8)
    return a.reshape(-1, p['elem_size'])


def _struct_value(p, buf):
    t = _STRUCTS.get(p['elem_type'])
    if t is None:
        return bytes(buf)
    v = np.frombuffer(buf, dtype=t, count=1)[0]
    if t.names:
        return {k: v[k].item() for k in t.names}
    return v.item()


_POOL_SHAPES = 8


def _temp(ctx, taken, w, h, c, dt):
    """A device image for one array of a numpy-in call: kept, per context
    and thread, for the next call with the same shapes (the i-th image of a
    shape in a call is always the same one), so a loop of numpy calls neither
    allocates device memory nor touches fresh pages each time. At most
    _POOL_SHAPES shapes are kept; release_temporaries() drops them."""
    try:
        key = (w, h, c, np.dtype(dt).num)
    except TypeError:
        return Image(ctx, w, h, c, dt)  # refuses the dtype
    pools = getattr(ctx, '_clv_pools', None)
    if pools is None:
        try:
            pools = ctx._clv_pools = threading.local()
        except AttributeError:  # a bare _clvision.Context: no pool
            return Image(ctx, w, h, c, dt)
    pool = getattr(pools, 'images', None)
    if pool is None:
        pool = pools.images = {}
    i = taken.get(key, 0)
    taken[key] = i + 1
    imgs = pool.get(key)
    if imgs is None:
        img = Image(ctx, w, h, c, dt)  # checks the shape before it is kept
        if len(pool) >= _POOL_SHAPES:
            pool.clear()
        imgs = pool[key] = [img]
    while len(imgs) <= i:
        imgs.append(Image(ctx, w, h, c, dt))
    return imgs[i]


def release_temporaries(ctx=None):
    """Drop the device images numpy-in calls keep for reuse on ctx (default:
    this thread's default context), in this thread."""
    ctx = default_context() if ctx is None else ctx
    pools = getattr(ctx, '_clv_pools', None)
    if pools is not None:
        pools.images = {}


# Numpy arrays on a CPU device (PoCL): the device reads and writes the
# arrays' own memory (Image.over, CL_MEM_USE_HOST_PTR) instead of copying
# them in and out, when their layout meets the library's host-image rules
# (data, rows and row stride multiples of _HOST_ALIGN bytes, or the padded
# rows of an array from empty(padded=True): _clvision._over_if); an array
# that does not is copied as on a GPU. The results are the same either way.
_HOST_ALIGN = 64


def _zero_copy(ctx):
    """True when numpy arrays are wrapped rather than copied on ctx."""
    if not isinstance(ctx, _c.Context):
        return False  # refused, with its message, where the call uses it
    zc = getattr(ctx, '_clv_zero_copy', None)
    if zc is None:
        zc = ctx.device_type == 'cpu'
        try:
            ctx._clv_zero_copy = zc
        except AttributeError:  # a bare _clvision.Context
            pass
    return zc


def _aligned_empty(w, h, c, dt):
    """A new (H, W[, C]) array whose data starts on _HOST_ALIGN bytes, or None
    where its rows could not be wrapped anyway."""
    if not (isinstance(w, int) and isinstance(h, int) and isinstance(c, int) and
            0 < w <= 65536 and 0 < h <= 65536 and c in (1, 2, 3, 4)):
        return None  # refused, with its message, by the copying path
    try:
        dt = np.dtype(dt)
    except TypeError:
        return None
    if dt not in _DTYPES or (w * c * dt.itemsize) % _HOST_ALIGN:
        return None
    return empty((h, w) if c == 1 else (h, w, c), dt)


def _to_device(v, ctx, taken, what, wrapped=None):
    """v on the device: wrapped (appended to the list wrapped), else copied
    into a kept image."""
    if _zero_copy(ctx):
        img = _c._over_if(ctx, v, False)
        if img is not None:
            if wrapped is not None:
                wrapped.append(img)
            return img
    w, h, c = _shape_of(v, what)
    img = _temp(ctx, taken, w, h, c, v.dtype)
    img.upload(v)
    return img


def _swap(ctx, img, taken=None):
    """R and B swapped, on the device (3 or 4 channels; others as they are)."""
    if img.channels not in (3, 4):
        return img
    t = (_temp(ctx, taken, img.width, img.height, img.channels, img.dtype) if taken is not None
         else Image(ctx, img.width, img.height, img.channels, img.dtype))
    _c.call(ctx, 'convert_color', {'src': img, 'dst': t, 'code': 'rgb2bgr'})
    return t


def _run(plan, inputs, values, out, ctx, bgr, size, dtype):
    """One call of a generated function: inputs are the image, pyramid and
    array arguments by name, values the numbers."""
    if not isinstance(bgr, (bool, np.bool_)):
        raise InvalidArgumentError('%s: bgr must be True or False (got %s)'
                                   % (plan.name, type(bgr).__name__))
    args = dict(values)
    host = True
    for n in plan.in_images:
        v = inputs.get(n)
        if isinstance(v, Image):
            host = False
            if ctx is None:
                ctx = v.context
        elif isinstance(v, Pyramid):
            raise InvalidArgumentError('%s: %s must be an image, not a Pyramid' % (plan.name, n))
    for n in plan.in_pyramids + plan.out_pyramids:
        v = inputs.get(n)
        if isinstance(v, (Image, Pyramid)):
            host = False
            if ctx is None:
                ctx = v.context
    if ctx is None:
        ctx = default_context()
    taken = {}
    wrapped_in = []  # inputs used in place
    host_in = [inputs[n] for n in plan.in_images + plan.in_pyramids
               if isinstance(inputs.get(n), np.ndarray)]
    for n in plan.in_images:
        v = inputs.get(n)
        if v is None:
            continue
        if not isinstance(v, Image):
            v = _to_device(v, ctx, taken, n, wrapped_in)
        if bgr and n in plan.rgb:
            v = _swap(ctx, v, taken if host else None)
        args[n] = v
    for n in plan.out_pyramids:
        v = inputs.get(n)
        if not isinstance(v, Pyramid):
            raise InvalidArgumentError('%s: %s must be a clvision.Pyramid (got %s)'
                                       % (plan.name, n, type(v).__name__))
        args[n] = v
    for n in plan.in_pyramids:
        v = inputs.get(n)
        if v is None or isinstance(v, Pyramid):
            args[n] = v
            continue
        # an image for a pyramid: build one (scale 0.5), with the op's levels
        if not isinstance(v, Image):
            v = _to_device(v, ctx, taken, n, wrapped_in)
        levels = values.get('levels') if plan.has_levels else None
        if levels is None:
            levels = int(plan.params['levels']['default']) if plan.has_levels else 4
        pyr = Pyramid(ctx, v.width, v.height, v.channels, v.dtype,
                      levels if isinstance(levels, int) and 1 <= levels <= 16 else 16, 0.5)
        _c.call(ctx, 'pyramid_build', {'pyr': pyr, 'src': v})
        args[n] = pyr
    for p in plan.arrays:
        n = p['name']
        v = inputs.get(n)
        if p['flags'] & _INPUT and not p['flags'] & _OUTPUT:
            if v is None:
                continue
            a = _in_array(p, v)
            args[n] = a
            args[p['length_param']] = len(a)
    for p in plan.arrays:  # outputs, sized by their length parameter
        n = p['name']
        if not p['flags'] & _OUTPUT:
            continue
        length = args.get(p['length_param'])
        if length is None:
            length = int(plan.params[p['length_param']]['default'])
        if not isinstance(length, (int, np.integer)) or not 0 <= length <= 2 ** 31 - 1:
            args[n] = _elem_array(p, 0)  # the library refuses the length, naming it
            continue
        v = inputs.get(n)
        if v is not None and p['flags'] & _INPUT:
            a = _in_array(p, v).copy()
            if len(a) != length:
                raise InvalidArgumentError('%s: %s has %d entries, %s is %d'
                                           % (plan.name, n, len(a), p['length_param'], length))
        else:
            try:
                a = _elem_array(p, int(length))
            except MemoryError:
                raise OutOfMemoryError('%s: %s: %d elements do not fit in memory'
                                       % (plan.name, n, length)) from None
        args[n] = a
    structs = {}
    for p in plan.structs:
        structs[p['name']] = args[p['name']] = bytearray(p['elem_size'])
    # output images: given (out=), or made in the shape the descriptor says
    outs = out if isinstance(out, tuple) else (out,) if out is not None else ()
    if outs and len(outs) != len(plan.out_images):
        raise InvalidArgumentError('%s: out= must give %d image(s)'
                                   % (plan.name, len(plan.out_images)))
    results, host_outs = [], []
    for i, n in enumerate(plan.out_images):
        o = outs[i] if outs else None
        wrapped = None  # the array an Image.over output writes
        if isinstance(o, Image):
            img = o
        elif o is not None and not isinstance(o, np.ndarray):
            raise InvalidArgumentError('%s: out must be a clvision.Image or a numpy array (got %s)'
                                       % (plan.name, type(o).__name__))
        else:
            if o is not None:
                w, h, c = _shape_of(o, 'out')
                t = o.dtype
            else:
                w, h, c, t = _c.output_shape(plan.name, args, n)
                if n in plan.free_size:
                    if size is None:
                        raise InvalidArgumentError('%s: give size=(width, height) or out= for %s'
                                                   % (plan.name, n))
                    try:
                        w, h = size
                    except (TypeError, ValueError):
                        raise InvalidArgumentError('%s: size must be (width, height) (got %r)'
                                                   % (plan.name, size)) from None
                if n in plan.pick_type and dtype is not None:
                    t = dtype
            if (host or o is not None) and _zero_copy(ctx):
                # written in place: out=, or a new array, when it can be
                # wrapped and shares no memory with an input
                a = o if o is not None else _aligned_empty(w, h, c, t)
                if a is not None and not any(np.may_share_memory(a, x) for x in host_in):
                    img = _c._over_if(ctx, a, True)
                    if img is not None:
                        o = wrapped = a
            if wrapped is None:
                # downloaded at the end: a kept image; returned: a new one
                img = (_temp(ctx, taken, w, h, c, t) if host or o is not None
                       else Image(ctx, w, h, c, t))
        final = img
        if bgr and n in plan.rgb and img.channels in (3, 4):
            img = _temp(ctx, taken, img.width, img.height, img.channels, img.dtype)
        args[n] = img
        results.append((final, img, o, wrapped))
    # wrapped outputs written by the op itself are settled within the call;
    # wrapped inputs too when no output array is waited for (Images or
    # pyramids out): the input arrays are the caller's again when it returns
    settle = tuple(r[0] for r in results if r[3] is not None and r[0] is r[1])
    if wrapped_in and not any(r[3] is not None or isinstance(r[2], np.ndarray) or
                              (host and r[2] is None) for r in results):
        settle += tuple(wrapped_in)
    _c.call(ctx, plan.name, args, settle)
    ret = []
    for final, img, o, wrapped in results:
        if img is not final:
            _c.call(ctx, 'convert_color', {'src': img, 'dst': final, 'code': 'rgb2bgr'})
        if wrapped is not None:
            if img is not final:
                final.settle()
            ret.append(wrapped)
        elif isinstance(o, np.ndarray):
            ret.append(final.download(o))
        elif host and o is None:
            ret.append(final.download())
        else:
            ret.append(final)
    for n in plan.out_arrays:
        a = args[n]
        cn = plan.counted.get(n)
        if cn is not None:
            a = a[:min(int(np.frombuffer(structs[cn], np.int32)[0]), len(a))]
        ret.append(a)
    for p in plan.structs:
        if p['flags'] & _COUNT and p['like'] in plan.out_arrays:
            continue
        ret.append(_struct_value(p, structs[p['name']]))
    if not ret:
        return None
    return ret[0] if len(ret) == 1 else tuple(ret)


def _default(p):
    t = p['type']
    if t == 'enum':
        for name, value in zip(p['enum_names'], p['enum_values']):
            if value == int(p['default']):
                return name
        return int(p['default'])
    if t == 'bool':
        return bool(p['default'])
    if t == 'int':
        return int(p['default'])
    return float(p['default'])


def _pytype(p):
    return {'int': 'int', 'double': 'float', 'bool': 'bool', 'enum': 'str',
            'image': 'Image | ndarray', 'pyramid': 'Pyramid | Image | ndarray',
            'array': 'ndarray', 'struct': 'object'}[p['type']]


def _param_doc(plan, p):
    words = []
    if p['type'] in ('int', 'double', 'bool', 'enum', 'image'):
        if p['rule']:
            words.append(p['rule'])
    if p['unit']:
        words.append(p['unit'])
    if p['special_doc']:
        words.append(p['special_doc'])
    if p['name'] in plan.rgb:
        words.append('R, G, B order (bgr=True: B, G, R)')
    extra = (' (' + '; '.join(words) + ')') if words else ''
    return '    %s : %s\n        %s%s\n' % (p['name'], _pytype(p), p['doc'], extra)


def _make(d):
    plan = _Plan(d)
    ps = d['params']
    required, optional, ns = [], [], {'_run': _run, '_plan': plan}
    for p in ps:
        n = p['name']
        if n in plan.derived or (p['type'] == 'image' and p['flags'] & _OUTPUT):
            continue
        if p['type'] == 'struct':
            continue
        if p['type'] == 'array' and p['flags'] & _OUTPUT and not p['flags'] & _INPUT:
            continue
        opt = p['flags'] & _OPTIONAL or (p['type'] == 'array' and p['flags'] & _OUTPUT)
        if opt:
            key = '_d_' + n
            ns[key] = _default(p) if p['type'] in ('int', 'double', 'bool', 'enum') else None
            optional.append('%s=%s' % (n, key))
        else:
            required.append(n)
    extra = ['out=None', 'ctx=None']
    if plan.rgb:
        extra.append('bgr=False')
    if plan.free_size:
        extra.append('size=None')
    if plan.pick_type:
        extra.append('dtype=None')
    sig = ', '.join(required + optional + ['*'] + extra)
    inputs = plan.in_images + plan.in_pyramids + plan.out_pyramids + [
        p['name'] for p in plan.arrays if p['flags'] & _INPUT]
    inputs = [n for n in inputs if n in required or ('_d_' + n) in ns]
    src = 'def %s(%s):\n    return _run(_plan, {%s}, {%s}, out, ctx, %s, %s, %s)\n' % (
        plan.name, sig,
        ', '.join('%r: %s' % (n, n) for n in inputs),
        ', '.join('%r: %s' % (n, n) for n in plan.numbers),
        'bgr' if plan.rgb else 'False', 'size' if plan.free_size else 'None',
        'dtype' if plan.pick_type else 'None')
    exec(compile(src, '<clvision:%s>' % plan.name, 'exec'), ns)
    fn = ns[plan.name]
    doc = d['summary'][:1].upper() + d['summary'][1:] + '.\n'
    if d['doc']:
        doc += '\n' + d['doc'] + '\n'
    if d['blocking']:
        doc += '\nWaits for the device: ' + d['blocking'] + '.\n'
    doc += '\nParameters\n----------\n'
    for p in ps:
        if p['name'] in plan.derived or p['type'] == 'struct' or (
                p['flags'] & _OUTPUT and not p['flags'] & _INPUT and p['type'] != 'pyramid'):
            continue
        doc += _param_doc(plan, p)
    doc += ('    out : Image | ndarray | tuple, optional\n        the output image(s) to '
            'write, reused instead of allocating\n    ctx : Context, optional\n        default: '
            'the input images\' context, else this thread\'s default_context()\n')
    if plan.rgb:
        doc += '    bgr : bool\n        colour arrays are B, G, R (OpenCV) instead of R, G, B\n'
    if plan.free_size:
        doc += '    size : (width, height)\n        the size of %s (or give out=)\n' % (
            ', '.join(plan.free_size))
    if plan.pick_type:
        doc += '    dtype : numpy dtype\n        the type of %s (default: the input\'s)\n' % (
            ', '.join(plan.pick_type))
    rets = [p for p in ps if p['flags'] & _OUTPUT and p['type'] != 'pyramid'
            and not (p['type'] == 'struct' and p['flags'] & _COUNT
                     and p['like'] in plan.out_arrays)]
    if rets:
        doc += '\nReturns\n-------\n'
        for p in rets:
            kind = ('ndarray (numpy in) or Image (Image in)' if p['type'] == 'image'
                    else 'dict' if p['type'] == 'struct' and _STRUCTS.get(p['elem_type'], np.dtype('i4')).names
                    else 'ndarray' if p['type'] == 'array' else _pytype(p))
            if p['type'] == 'array' and p['elem_type'] in _ELEMS and _ELEMS[p['elem_type']][1]:
                kind = 'ndarray (N, %d) %s' % (_ELEMS[p['elem_type']][1],
                                               np.dtype(_ELEMS[p['elem_type']][0]).name)
            doc += '    %s : %s\n        %s%s\n' % (
                p['name'], kind, p['doc'],
                ' (R, G, B; bgr=True: B, G, R)' if p['name'] in plan.rgb else '')
    fn.__doc__ = doc
    fn.__module__ = __name__
    fn._clvision_plan = plan
    return fn


for _d in _c.operations():
    OPERATIONS[_d['name']] = _d
    globals()[_d['name']] = _make(_d)
del _d


def pyramid(img, levels=4, scale=0.5, ctx=None):
    """The levels of a Gaussian pyramid of ``img`` (clv_pyramid_create +
    pyramid_build): a list of numpy arrays for an array, of Images for an Image."""
    host = not isinstance(img, Image)
    if ctx is None:
        ctx = img.context if not host else default_context()
    src = _to_device(img, ctx, {}, 'img') if host else img
    pyr = Pyramid(ctx, src.width, src.height, src.channels, src.dtype, levels, scale)
    pyramid_build(pyr, src)  # noqa: F821 (generated above)
    out = [pyr.level(i) for i in range(pyr.levels)]
    if not host:
        return out
    if not _zero_copy(ctx):
        return [lv.download() for lv in out]
    # On a CPU device the levels are handed over as they lie: arrays over the
    # mapped level images (no copy), which keep this pyramid, made for this
    # call only, until they are gone; a level with padded rows is copied out,
    # so every array returned is C-contiguous.
    return [lv._map_array() if lv.pitch == lv.width * lv.channels * lv.dtype.itemsize
            else lv.download() for lv in out]


__all__ = ['Error', 'InvalidArgumentError', 'OutOfMemoryError', 'NoDeviceError', 'OpenCLError',
           'BuildError', 'KernelSourceError', 'UnsupportedError', 'IoError', 'FormatError',
           'KernelFaultError', 'STATUS_ERRORS', 'Context', 'Image', 'Pyramid', 'call',
           'output_shape', 'default_context', 'release_temporaries', 'upload', 'download',
           'wrap_buffer', 'empty', 'aligned_arrays', 'imread',
           'imwrite', 'flo_read', 'flo_write', 'pyramid', 'live_objects', 'list_devices',
           'status_string', 'has_exr', 'OPERATIONS'] + list(OPERATIONS)
