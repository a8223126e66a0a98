"""Shared helpers of the Python binding's tests (run by meson test 'python';
by hand: PYTHONPATH=build/python:python /usr/bin/python3 -m pytest tests/python)."""
import os

import cv2
import numpy as np
import pytest

import clvision

DATA = os.environ.get('CLV_TEST_DATA') or os.path.join(os.path.dirname(__file__), '..', 'data')


def data(name):
    return os.path.join(DATA, name)


def read(name, flags=cv2.IMREAD_UNCHANGED):
    a = cv2.imread(data(name), flags)
    assert a is not None, name
    return a


def assert_close(out, ref, what=''):
    """The C API's tolerances (tests/harness.h, HARNESS_TOL_DEFAULT): integers
    within 1, f32 within max(1e-4, 1e-4 * |reference|)."""
    assert out.shape == ref.shape, (what, out.shape, ref.shape)
    assert out.dtype == ref.dtype, (what, out.dtype, ref.dtype)
    if out.dtype == np.float32:
        o, r = out.astype(np.float64), ref.astype(np.float64)
        err = np.abs(o - r)
        bad = ~(err <= np.maximum(1e-4, 1e-4 * np.abs(r)))  # NaN is bad
        assert not bad.any(), '%s: %d values off, worst %g at %s' % (
            what, bad.sum(), err.max(), np.unravel_index(err.argmax(), err.shape))
    else:
        err = np.abs(out.astype(np.int64) - ref.astype(np.int64))
        assert err.max() <= 1, '%s: off by %d at %s' % (
            what, err.max(), np.unravel_index(err.argmax(), err.shape))

def unaligned(a):
    """A copy of a whose data starts 16 bytes past 64 (numpy's default
    allocator gives 16-byte alignment; this makes it certain): never wrapped,
    always copied."""
    buf = np.empty(a.nbytes + 128, np.uint8)
    off = (-buf.ctypes.data % 64) + 16
    out = buf[off:off + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def pooled(ctx):
    """How many device images numpy-in calls keep for reuse on ctx."""
    imgs = getattr(getattr(ctx, '_clv_pools', None), 'images', None) or {}
    return sum(len(v) for v in imgs.values())


@pytest.fixture(scope='session')
def ctx():
    return clvision.default_context()


@pytest.fixture(scope='session')
def gray():
    return read('camera.png', cv2.IMREAD_GRAYSCALE)


@pytest.fixture(scope='session')
def bgr():
    return read('chelsea.png', cv2.IMREAD_COLOR)
