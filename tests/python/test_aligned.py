"""64-byte aligned numpy arrays: clvision.aligned_arrays() (a numpy memory
handler, NEP 49), clvision.empty(), and the arrays clvision itself returns.
An array made so, with rows of a multiple of 64 bytes, is used in place on a
CPU device (which path ran is read from the per-context pool of copy images,
as in test_zero_copy.py)."""
import asyncio
import contextvars
import threading

import cv2
import numpy as np
import pytest
from numpy.core.multiarray import get_handler_name

import clvision as c
from conftest import data, pooled, unaligned

ALIGNED = 'clvision_aligned64'
DEFAULT = get_handler_name()  # numpy's, before any test changed it


@pytest.fixture(autouse=True)
def default_handler_around():
    """Every test starts and must end with numpy's default allocator."""
    assert get_handler_name() == DEFAULT
    yield
    assert get_handler_name() == DEFAULT, 'a test left the aligned handler installed'


def test_default_left_alone():
    assert DEFAULT == 'default_allocator'  # importing clvision installs nothing
    assert c._c.ALIGNED_HANDLER is not None, 'built without numpy >= 1.22 (NEP 49)'


def test_arrays_made_under_it_are_aligned():
    with c.aligned_arrays():
        assert get_handler_name() == ALIGNED
        made = [np.empty(n, np.uint8) for n in range(1, 200)]
        made += [np.zeros((h, 37), np.float32) for h in range(1, 40)]
        made += [np.ones((1080, 1920, 3), np.uint8), np.arange(1000) * 2,
                 np.random.default_rng(1).random((100, 64), dtype=np.float32)]
    assert get_handler_name() == DEFAULT
    for a in made:
        assert a.ctypes.data % 64 == 0, (a.shape, a.ctypes.data % 64)
        assert get_handler_name(a) == ALIGNED
    big = made[-3]
    assert big.min() == 1 and big.max() == 1  # written where numpy thinks it is
    zeros = [a for a in made if a.dtype == np.float32 and a.shape[1] == 37]
    assert all(not z.any() for z in zeros)  # calloc's zeros


def test_outside_it_numpy_default():
    a = np.empty((64, 64), np.uint8)
    assert get_handler_name(a) == DEFAULT


def test_cv2_imread_and_results_are_aligned(gray):
    with c.aligned_arrays():
        img = cv2.imread(data('chelsea.png'))
        g = cv2.imread(data('camera.png'), cv2.IMREAD_GRAYSCALE)
        blur = cv2.GaussianBlur(g, (5, 5), 1.0)
    for a in (img, g, blur):
        assert a.ctypes.data % 64 == 0 and get_handler_name(a) == ALIGNED
    assert np.array_equal(g, gray)


def test_imread_array_used_in_place(gray):
    """camera.png is 512 x 512 gray (rows of 512 bytes): read under the
    handler it is used in place; read without it, copied."""
    ctx = c.Context()
    if ctx.device_type != 'cpu':
        pytest.skip('in place only on CPU devices')
    with c.aligned_arrays():
        g = cv2.imread(data('camera.png'), cv2.IMREAD_GRAYSCALE)
    got = c.gaussian_blur(g, 2.0, ctx=ctx)
    assert pooled(ctx) == 0, 'an aligned input and a new result should both be wrapped'
    assert np.array_equal(got, c.gaussian_blur(unaligned(g), 2.0, ctx=ctx))
    assert pooled(ctx) == 1, 'an input 16 bytes off is copied'
    ref = cv2.GaussianBlur(gray, (13, 13), 2.0, borderType=cv2.BORDER_REFLECT_101)
    assert np.abs(got.astype(int) - ref).max() <= 1


def test_realloc_keeps_data():
    """ndarray.resize reallocates through the handler: data kept, aligned,
    whichever alignment offset the new block has."""
    with c.aligned_arrays():
        a = np.arange(10, dtype=np.int64)
        for n in [20, 1000, 3, 100000, 7, 5000, 1 << 20, 16]:
            old = a.copy()
            a.resize(n, refcheck=False)
            k = min(len(old), n)
            assert np.array_equal(a[:k], old[:k]), n
            assert a.ctypes.data % 64 == 0, n
            a[k:] = np.arange(k, n)
            assert np.array_equal(a, np.arange(n)), n


def test_arrays_outlive_the_handler():
    """An array made under the handler is freed by it whenever it dies: after
    the block, in another thread, with the default handler installed."""
    with c.aligned_arrays():
        keep = [np.full((256, 256), i, np.uint8) for i in range(8)]
    assert get_handler_name() == DEFAULT
    for i, a in enumerate(keep):
        assert get_handler_name(a) == ALIGNED and a[17, 3] == i
    t = threading.Thread(target=lambda: keep.clear())
    t.start()
    t.join()
    assert not keep
    with c.aligned_arrays():
        views = np.zeros((100, 128), np.float32)[10:20]
    v = views.copy()  # made under the default handler, from an aligned base
    del views
    assert get_handler_name(v) == DEFAULT


def test_threads_have_their_own_setting():
    seen = {}

    def child(name, enable):
        if enable:
            c.aligned_arrays()
        seen[name] = (get_handler_name(), np.empty(100000).ctypes.data % 64 == 0)
        if enable:
            c.aligned_arrays(False)

    with c.aligned_arrays():
        t = threading.Thread(target=child, args=('inside', False))
        t.start()
        t.join()
    t = threading.Thread(target=child, args=('own', True))
    t.start()
    t.join()
    assert seen['inside'][0] == DEFAULT  # a thread starts with numpy's default
    assert seen['own'] == (ALIGNED, True)
    assert get_handler_name() == DEFAULT  # and changing it there left this one alone


def test_contextvar_scope():
    """The setting is numpy's contextvar: a copied context keeps its own, an
    asyncio task inherits its creator's."""
    def inner():
        c.aligned_arrays()  # on for this context only
        return get_handler_name()

    assert contextvars.copy_context().run(inner) == ALIGNED
    assert get_handler_name() == DEFAULT

    async def task():
        return get_handler_name(), np.empty(4096).ctypes.data % 64

    async def main():
        with c.aligned_arrays():
            return await asyncio.get_running_loop().create_task(task())

    assert asyncio.run(main()) == (ALIGNED, 0)


def test_on_off_and_nesting():
    c.aligned_arrays()
    try:
        assert get_handler_name() == ALIGNED
        with c.aligned_arrays(False):
            assert get_handler_name() == DEFAULT
            with c.aligned_arrays():
                assert get_handler_name() == ALIGNED
            assert get_handler_name() == DEFAULT
        assert get_handler_name() == ALIGNED
    finally:
        c.aligned_arrays(False)
    with pytest.raises(ZeroDivisionError):
        with c.aligned_arrays():
            1 / 0
    assert get_handler_name() == DEFAULT  # put back on an exception too


def test_empty():
    for shape, dt in [((1080, 1920), np.uint8), ((7, 5, 3), np.float32), ((1,), np.uint16),
                      ((0, 4), np.uint8), (12, np.float32)]:
        a = c.empty(shape, dt)
        assert a.shape == (shape if isinstance(shape, tuple) else (shape,))
        assert a.dtype == dt and a.flags.c_contiguous and a.flags.owndata and a.flags.writeable
        assert a.ctypes.data % 64 == 0
    assert get_handler_name() == DEFAULT
    with pytest.raises(TypeError):
        c.empty((2, 2), 'no such dtype')
    with pytest.raises(ValueError):
        c.empty((-1, 2), np.uint8)


def test_empty_other_dtypes():
    """Without padding any dtype numpy has (object arrays start as None); with
    padding the image dtypes only: its rows are uninitialised memory, which an
    object array would take for references (it crashed before the check)."""
    for dt in [object, 'U3', 'S5', np.float64, 'V8', [('a', 'u1'), ('b', 'f4')]]:
        a = c.empty((4, 5), dt)
        assert a.dtype == np.dtype(dt) and a.shape == (4, 5) and a.ctypes.data % 64 == 0
        if a.dtype == object:
            assert all(v is None for v in a.ravel())
        with pytest.raises(c.InvalidArgumentError, match='uint8, uint16 or float32'):
            c.empty((4, 5), dt, padded=True)
    with pytest.raises(c.InvalidArgumentError, match='native byte order'):
        c.empty((4, 5), '>u2', padded=True)
    for dt in [np.uint8, np.uint16, np.float32]:
        a = c.empty((4, 5), dt, padded=True)
        assert a.dtype == dt and a.strides[0] == 64


def test_clvision_results_are_aligned(gray, bgr):
    """New arrays from clvision: results (wrapped or downloaded), pyramid
    levels, imread, Image.download."""
    ctx = c.default_context()
    odd = np.ascontiguousarray(gray[:100, :100])  # rows of 100 bytes: downloaded
    outs = [c.gaussian_blur(odd, 2.0), c.transpose(gray), c.imread(data('chelsea.png')),
            c.imread(data('chelsea.png'), bgr=True), c.upload(odd, ctx).download(),
            c.flow_to_color(np.zeros((30, 50, 2), np.float32))]
    outs += c.pyramid(gray, levels=4)
    outs += c.pyramid(odd, levels=3)
    for a in outs:
        assert a.ctypes.data % 64 == 0 and a.flags.c_contiguous, a.shape


def test_pyramid_levels_outlive_call(gray):
    """On a CPU device the levels are arrays over the pyramid's own mapped
    images: they stay valid and independent after the call and of each other."""
    ref = [gray, cv2.pyrDown(gray)]
    ref += [cv2.pyrDown(ref[-1])]
    a = c.pyramid(gray, levels=3)
    b = c.pyramid(gray, levels=3)
    for lv, r in zip(a, ref):
        assert np.array_equal(lv, r)
    a[1][:] = 0  # writable, and not shared with b's
    assert np.array_equal(b[1], ref[1])
    # a level as an input again (its memory is a mapped device buffer's)
    assert np.array_equal(c.gaussian_blur(b[1], 2.0), c.gaussian_blur(ref[1].copy(), 2.0))
    del a
    import gc
    gc.collect()
    assert np.array_equal(b[2], ref[2])
