"""pyopencl interop on PoCL: a clvision context on pyopencl's context and
queue, pyopencl buffers as Images without copies, and an Image's OpenCL
handles used by pyopencl."""
import numpy as np
import pytest

import clvision as c
from conftest import read

cl = pytest.importorskip('pyopencl')


@pytest.fixture(scope='module')
def clq():
    platforms = cl.get_platforms()
    dev = next(d for p in platforms for d in p.get_devices())
    clctx = cl.Context([dev])
    return clctx, cl.CommandQueue(clctx, dev)


def test_context_on_pyopencl(clq):
    clctx, q = clq
    ctx = c.Context.from_pyopencl(clctx, q)
    assert ctx.cl_context == clctx.int_ptr and ctx.cl_queue == q.int_ptr
    assert ctx.cl_device == q.device.int_ptr
    own = c.Context.from_pyopencl(clctx)  # a queue of clvision's own
    assert own.cl_context == clctx.int_ptr and own.cl_queue not in (0, q.int_ptr)
    with pytest.raises(c.InvalidArgumentError):
        c.Context.from_cl(0, 1)


def test_wrapped_buffers_no_copy(clq):
    clctx, q = clq
    ctx = c.Context.from_pyopencl(clctx, q)
    a = read('camera.png', 0)
    h, w = a.shape
    pitch = (w + 63) // 64 * 64
    padded = np.zeros((h, pitch), np.uint8)
    padded[:, :w] = a
    mf = cl.mem_flags
    src_buf = cl.Buffer(clctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=padded)
    dst_buf = cl.Buffer(clctx, mf.READ_WRITE, size=padded.nbytes)
    src = c.wrap_buffer(ctx, src_buf, w, h, 1, np.uint8, pitch=pitch)
    dst = c.wrap_buffer(ctx, dst_buf, w, h, 1, np.uint8, pitch=pitch)
    assert src.cl_mem == src_buf.int_ptr and dst.cl_mem == dst_buf.int_ptr
    assert src.pitch == pitch and src.offset == 0
    c.gaussian_blur(src, 2.0, out=dst)
    # pyopencl reads the result straight from its buffer, on the shared queue
    got = np.empty_like(padded)
    cl.enqueue_copy(q, got, dst_buf)
    q.finish()
    assert np.array_equal(got[:, :w], c.gaussian_blur(a, 2.0))
    # pyopencl writes into the buffer, clvision sees it without an upload
    cl.enqueue_copy(q, src_buf, np.full_like(padded, 77))
    assert (src.download() == 77).all()
    # an offset wrap: rows 8.. as an image of its own (a sub-buffer)
    base_align = max(q.device.mem_base_addr_align // 8, 64)
    off = base_align * pitch // np.gcd(base_align, pitch)
    rows = off // pitch
    sub = c.wrap_buffer(ctx, src_buf, w, h - rows, 1, np.uint8, offset=off, pitch=pitch)
    assert sub.offset == off and sub.height == h - rows
    with pytest.raises(c.InvalidArgumentError, match='pitch'):
        c.wrap_buffer(ctx, src_buf, w, h, 1, np.uint8, pitch=pitch + 1)
    with pytest.raises(c.InvalidArgumentError):
        c.wrap_buffer(ctx, src_buf, w, h + 1, 1, np.uint8, pitch=pitch)


def test_image_handles_for_pyopencl(clq):
    clctx, q = clq
    ctx = c.Context.from_pyopencl(clctx, q)
    a = read('chelsea.png')
    img = c.upload(a, ctx)
    view = img.view(5, 3, 100, 50)
    assert view.cl_mem == img.cl_mem and view.pitch == img.pitch
    assert view.offset == 3 * img.pitch + 5 * 3
    buf = cl.Buffer.from_int_ptr(img.cl_mem, retain=True)
    host = np.empty((img.height, img.pitch), np.uint8)
    cl.enqueue_copy(q, host, buf)
    q.finish()
    assert np.array_equal(host[:, :img.width * 3].reshape(a.shape), a)
    # images of a context on pyopencl's objects mix with numpy calls
    assert np.array_equal(c.gaussian_blur(img, 1.0).download(), c.gaussian_blur(a, 1.0))
