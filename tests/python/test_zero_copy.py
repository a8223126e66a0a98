"""Numpy arrays on a CPU device: arrays whose data, rows and row stride are
multiples of 64 bytes are wrapped (Image.over) instead of copied, inputs and
outputs alike; the results must be those of the copying path, bit for bit,
and of the references. Which path ran is read from the per-context pool of
copy images (clvision._temp): a wrapped array leaves it empty."""
import cv2
import numpy as np
import pytest

import clvision as c
from clvision import _aligned_empty

from conftest import assert_close, pooled, unaligned


def aligned(a):
    """A copy of a whose data starts on 64 bytes (rows stay a.shape's)."""
    h, w = a.shape[:2]
    out = _aligned_empty(w, h, a.shape[2] if a.ndim == 3 else 1, a.dtype)
    assert out is not None, a.shape
    out[...] = a
    return out


@pytest.fixture
def fresh():
    """A context of its own (an empty copy pool) on the default device."""
    ctx = c.Context()
    if ctx.device_type != 'cpu':
        pytest.fail('these tests are for CPU devices (PoCL); got %s' % ctx.device_type)
    return ctx


@pytest.fixture(scope='module')
def photo(request):
    from conftest import read
    g = read('camera.png', cv2.IMREAD_GRAYSCALE)  # 256 x 256: rows of 256 bytes
    return g[:300, :448]  # all of it (a crop for larger photos)


def test_wrapped_inputs_and_outputs(fresh, photo):
    a = aligned(photo)
    got = c.transpose(a, ctx=fresh)
    assert pooled(fresh) == 0, 'an aligned input and a new output should be wrapped'
    assert got.ctypes.data % 64 == 0 and got.flags.c_contiguous
    assert np.array_equal(got, photo.T)
    b = c.gaussian_blur(a, 2.0, ctx=fresh)
    assert pooled(fresh) == 0
    assert np.array_equal(b, c.gaussian_blur(unaligned(photo), 2.0, ctx=fresh))
    assert pooled(fresh) == 1, 'an unaligned input is copied (its new output is wrapped)'
    ref = cv2.GaussianBlur(photo, (13, 13), 2.0, borderType=cv2.BORDER_REFLECT_101)
    assert_close(b, ref, 'gaussian, wrapped')


def test_wrapped_out(fresh, photo):
    a = aligned(photo)
    out = aligned(np.zeros_like(photo))
    r = c.box_filter(a, 5, 5, out=out, ctx=fresh)
    assert r is out and pooled(fresh) == 0
    assert np.array_equal(out, c.box_filter(unaligned(photo), 5, 5, ctx=fresh))
    # an out= that cannot be wrapped (its rows are 16 bytes off) is filled through a copy
    out2 = unaligned(np.zeros_like(photo))
    assert c.box_filter(a, 5, 5, out=out2, ctx=fresh) is out2
    assert np.array_equal(out2, out)


def test_in_place_and_overlap_copy(fresh, photo):
    """out= sharing memory with an input is never wrapped: the op would read
    what it writes."""
    want = c.gaussian_blur(aligned(photo), 3.0, ctx=fresh)
    a = aligned(photo)
    assert c.gaussian_blur(a, 3.0, out=a, ctx=fresh) is a
    assert np.array_equal(a, want)
    # an output over the input's lower rows (same row stride, aligned start)
    big = aligned(np.vstack([photo, photo]))
    src, dst = big[:300], big[100:400]
    assert np.may_share_memory(src, dst) and dst.ctypes.data % 64 == 0
    src_copy = src.copy()
    c.gaussian_blur(src, 3.0, out=dst, ctx=fresh)
    assert np.array_equal(dst, c.gaussian_blur(src_copy, 3.0, ctx=fresh))


def test_every_type_and_channels(fresh):
    rng = np.random.default_rng(7)
    for dt in (np.uint8, np.uint16, np.float32):
        for cn in (1, 3, 4):
            shape = (37, 64) if cn == 1 else (37, 64, cn)
            x = rng.integers(0, 200, shape).astype(dt)
            a, u = aligned(x), unaligned(x)
            for fn in (lambda v: c.transpose(v, ctx=fresh),
                       lambda v: c.resize(v, size=(32, 19), ctx=fresh),
                       lambda v: c.box_filter(v, 3, 7, ctx=fresh)):
                assert np.array_equal(fn(a), fn(u)), (dt, cn)


def test_bgr_and_several_outputs(fresh, bgr):
    h, w = 128, 192  # rows of 192 * 3 = 576 bytes (9 x 64)
    img = aligned(np.ascontiguousarray(bgr[:h, :w]))
    got = c.bilateral_grid(img, s_s=8.0, s_r=20.0, bgr=True, ctx=fresh)
    assert pooled(fresh) > 0  # the R/B swap's scratch images are pooled copies
    assert np.array_equal(got, c.bilateral_grid(unaligned(img), s_s=8.0, s_r=20.0, bgr=True,
                                                ctx=fresh))
    f = np.random.default_rng(3).normal(0, 3, (64, 64, 2)).astype(np.float32)  # 512-byte rows
    col = c.flow_to_color(aligned(f), bgr=True, ctx=fresh)
    assert np.array_equal(col, c.flow_to_color(unaligned(f), bgr=True, ctx=fresh))


def test_pyramid_levels(fresh, photo):
    a = aligned(photo)
    lv = c.pyramid(a, levels=3, ctx=fresh)
    assert np.array_equal(lv[0], photo)
    ref = cv2.pyrDown(photo)
    assert np.array_equal(lv[1], ref)
    assert np.array_equal(lv[2], cv2.pyrDown(ref))


def test_padded_rows(fresh, photo):
    """clvision.empty(padded=True): rows that are not a multiple of 64 bytes
    padded to one; such an array is used in place as an out= and an input
    (its padding is nobody's), a column crop of it is not (its padding
    would be the array's own pixels)."""
    src = np.ascontiguousarray(photo[:250])  # 250 rows of 256 bytes
    p = c.empty((256, 250), np.uint8, padded=True)  # its transpose: 250-byte rows
    assert p.shape == (256, 250) and p.strides == (256, 1) and p.ctypes.data % 64 == 0
    assert not p.flags.c_contiguous and p.flags.writeable
    assert c.transpose(aligned(src), out=p, ctx=fresh) is p
    assert pooled(fresh) == 0, 'an aligned input and a padded out= are wrapped'
    assert np.array_equal(p, src.T)
    back = c.transpose(p, ctx=fresh)  # a padded input: in place too
    assert pooled(fresh) == 0 and np.array_equal(back, src)
    rows = c.empty((100, 250), np.uint8, padded=True)
    rows[:] = 9
    c.box_filter(p[40:140], 3, 3, out=rows, ctx=fresh)  # rows of a padded array
    assert pooled(fresh) == 0
    assert np.array_equal(rows, c.box_filter(np.ascontiguousarray(src.T[40:140]), 3, 3,
                                             ctx=fresh))
    one = c.empty((1, 250), np.uint8, padded=True)  # one padded row: in place too
    before = pooled(fresh)  # the references above were copied
    assert c.box_filter(p[:1], 3, 3, out=one, ctx=fresh) is one
    assert pooled(fresh) == before
    assert np.array_equal(one, c.box_filter(np.ascontiguousarray(src.T[:1]), 3, 3, ctx=fresh))
    for shape, dt, strides in [((5, 7, 3), np.float32, (128, 12, 4)),
                               ((4, 64), np.uint8, (64, 1)), ((3, 16), np.float32, (64, 4))]:
        a = c.empty(shape, dt, padded=True)  # rows of 64-byte multiples stay C-ordered
        assert a.strides == strides and a.ctypes.data % 64 == 0, (shape, a.strides)
    with pytest.raises(c.InvalidArgumentError, match='image shape'):
        c.empty((10,), np.uint8, padded=True)


def test_padded_crop_is_copied(fresh, photo):
    """A column crop of a padded array as out=: its rows' padding would be
    the array's pixels to its right, which must survive."""
    p = c.empty((256, 250), np.uint8, padded=True)
    p[:] = 7
    src = np.ascontiguousarray(photo[:, :200])
    crop = p[:, :200]  # 200-byte rows, 256 apart
    got = c.box_filter(src, 3, 3, out=crop, ctx=fresh)
    assert got is crop and pooled(fresh) > 0, 'the crop must be copied into, not wrapped'
    assert (p[:, 200:] == 7).all()
    assert np.array_equal(crop, c.box_filter(src, 3, 3, ctx=fresh))
    crop2 = p[:, 10:210]  # starting inside a row: copied as well
    c.box_filter(src, 3, 3, out=crop2, ctx=fresh)
    assert (p[:, 210:] == 7).all()
    assert np.array_equal(crop2, c.box_filter(src, 3, 3, ctx=fresh))


def test_wrapped_input_device_output(fresh, photo):
    """A wrapped input with a device Image out=: the call returns before an
    Image result is waited for, so the input array is the caller's again at
    once and may change; the operation must have read it by then."""
    src = aligned(np.tile(photo, (4, 4)))  # 1024 x 1024: a bilateral takes a while
    want = c.bilateral(src, 3.0, 25.0, ctx=fresh)
    dst = c.Image(fresh, 1024, 1024, 1, np.uint8)
    for _ in range(3):
        assert c.bilateral(src, 3.0, 25.0, out=dst, ctx=fresh) is dst
        saved = src.copy()
        src[:] = 0  # the caller's array again
        got = dst.download()
        src[:] = saved
        assert np.array_equal(got, want)


def test_wrapped_input_pyramid_output(fresh, photo):
    """The same with a Pyramid built from an array (no image output at all)."""
    saved = np.tile(photo, (8, 8))  # 2048 x 2048
    src = aligned(saved)
    want = cv2.pyrDown(saved)
    pyr = c.Pyramid(fresh, 2048, 2048, 1, np.uint8, 2, 0.5)
    for _ in range(10):  # PoCL often finishes the copy before returning: try several
        c.pyramid_build(pyr, src, ctx=fresh)
        src[1024:] = 0  # the rows a copy from the top reaches last, first
        src[:1024] = 0
        got0, got1 = pyr.level(0).download(), pyr.level(1).download()
        src[:] = saved
        assert np.array_equal(got0, saved) and np.array_equal(got1, want)
