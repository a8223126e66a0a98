"""Bad arguments raise the right clvision.Error subclass with the library's
message, and never crash: wrong types, None, huge and negative sizes, wrong
dtypes, NaN, unknown names, strides the C API cannot take."""
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

import clvision as c
from conftest import data

IA = c.InvalidArgumentError


def raises(cls, fn, *args, match=None, **kw):
    with pytest.raises(cls, match=match) as e:
        fn(*args, **kw)
    assert isinstance(e.value, c.Error)
    assert e.value.status == cls.status and e.value.message
    return e.value


def test_hierarchy():
    assert c.STATUS_ERRORS[-1] is IA and IA.status == -1
    for status, cls in c.STATUS_ERRORS.items():
        assert issubclass(cls, c.Error) and cls.status == status
    assert issubclass(IA, ValueError) and issubclass(IA, TypeError)
    assert issubclass(c.IoError, OSError) and issubclass(c.OutOfMemoryError, MemoryError)


def test_parameter_values(gray):
    e = raises(IA, c.gaussian_blur, gray, sigma_x=0.0)
    assert 'sigma_x must be > 0 (got 0)' in e.message and 'gaussian_blur' in e.message
    raises(IA, c.gaussian_blur, gray, sigma_x=float('nan'), match='sigma_x')
    raises(IA, c.gaussian_blur, gray, sigma_x=float('inf'))
    raises(IA, c.gaussian_blur, gray, 1.0, ksize_x=4, match='odd')
    raises(IA, c.gaussian_blur, gray, 1.0, ksize_x=-3)
    raises(IA, c.gaussian_blur, gray, 1.0, ksize_x=10 ** 30, match='ksize_x')
    raises(IA, c.gaussian_blur, gray, 1.0, ksize_x=2.5, match='integer')
    raises(IA, c.gaussian_blur, gray, 1.0, border='mirror', match='reflect101')
    raises(IA, c.gaussian_blur, gray, 1.0, border=17, match='border')
    raises(IA, c.box_filter, gray, 256, 3)
    raises(IA, c.bilateral, gray, 3.0, -1.0)
    raises(IA, c.farneback, gray, gray, levels=-1)
    raises(IA, c.farneback, gray, gray, poly_n=6)
    raises(IA, c.corners_shi_tomasi, gray, max_corners=0)
    raises(IA, c.corners_shi_tomasi_n, gray, -5, match='capacity')
    raises(IA, c.tonemap_local, np.ones((8, 8, 3), np.float32), contrast=100.0)
    raises(IA, c.convert_color, gray, 'bogus', match='rgb2gray')


def test_python_types(gray):
    raises(IA, c.gaussian_blur, gray, sigma_x='2', match='number')
    raises(IA, c.gaussian_blur, gray, sigma_x=None)  # None: left out, and it is required
    raises(IA, c.gaussian_blur, gray, sigma_x=[1])
    raises(IA, c.gaussian_blur, gray, 1.0, ksize_x='3')
    raises(IA, c.gaussian_blur, None, 1.0)
    raises(IA, c.gaussian_blur, 'image', 1.0)
    raises(IA, c.gaussian_blur, [[1, 2], [3, 4]], 1.0)
    raises(IA, c.gaussian_blur, gray, 1.0, out='x')
    raises(IA, c.gaussian_blur, gray, 1.0, ctx='x')
    raises(IA, c.lk_track, gray, gray, 'pts')
    raises(IA, c.lk_track, gray, gray, np.zeros((4, 3), np.float32), match=r'\(N, 2\)')
    with pytest.raises(TypeError):
        c.gaussian_blur(gray, 1.0, nonsense=3)


def test_arrays(gray):
    raises(IA, c.gaussian_blur, gray.astype(np.int32), 1.0, match='dtype')
    raises(IA, c.gaussian_blur, gray.astype(np.float64), 1.0, match='dtype')
    raises(IA, c.gaussian_blur, np.zeros((4, 4, 5), np.uint8), 1.0, match='channels')
    raises(IA, c.gaussian_blur, np.zeros((4,), np.uint8), 1.0, match='shape')
    raises(IA, c.gaussian_blur, np.zeros((0, 4), np.uint8), 1.0)
    raises(IA, c.gaussian_blur, np.zeros((2, 3, 4, 1), np.uint8), 1.0)
    raises(IA, c.gaussian_blur, gray[:, ::2], 1.0, match='ascontiguousarray')
    raises(IA, c.gaussian_blur, gray.T, 1.0, match='ascontiguousarray')
    raises(IA, c.gaussian_blur, gray[::-1], 1.0, match='ascontiguousarray')
    raises(IA, c.gaussian_blur, gray.astype('>f4'), 1.0)
    # strided rows and crops work without a copy
    crop = gray[10:200:3, 5:100]
    assert np.array_equal(c.gaussian_blur(crop, 1.0),
                          c.gaussian_blur(np.ascontiguousarray(crop), 1.0))
    # out=: wrong shape, dtype, read-only
    raises(IA, c.gaussian_blur, gray, 1.0, out=np.zeros((3, 3), np.uint8), match='3x3')
    raises(IA, c.gaussian_blur, gray, 1.0, out=np.zeros(gray.shape, np.uint16))
    ro = np.zeros_like(gray)
    ro.flags.writeable = False
    raises(IA, c.gaussian_blur, gray, 1.0, out=ro, match='read-only')
    raises(IA, c.resize, gray, match='size')
    raises(IA, c.resize, gray, size=(0, 10))
    raises(IA, c.resize, gray, size=(10 ** 6, 10))


def test_images(ctx, gray):
    raises(IA, c.Image, ctx, 0, 10)
    raises(IA, c.Image, ctx, -1, 10)
    raises(IA, c.Image, ctx, 10, 10, 5)
    raises(IA, c.Image, ctx, 10, 10, 1, np.int16)
    raises(IA, c.Image, ctx, 10, 10, 1, 'no such dtype')
    raises(IA, c.Image, ctx, 2 ** 40, 10)
    raises(IA, c.Image, ctx, 10.5, 10)
    raises(IA, c.Image, 'ctx', 10, 10)
    with pytest.raises(c.Error):  # too large for the device, or for its memory
        c.Image(ctx, 65536, 65536, 4, np.float32)
    img = c.Image(ctx, 16, 8)
    raises(IA, img.upload, np.zeros((8, 15), np.uint8), match='shape')
    raises(IA, img.upload, np.zeros((8, 16), np.float32), match='dtype')
    raises(IA, img.upload, 'pixels')
    raises(IA, img.download, out=np.zeros((8, 16), np.uint16))
    raises(IA, img.view, 10, 0, 10, 8)
    raises(IA, img.view, -1, 0, 1, 1)
    # in-place and mismatched images: the library's checks
    raises(IA, c.gaussian_blur, img, 1.0, out=img, match='in-place')
    raises(IA, c.gaussian_blur, img, 1.0, out=c.Image(ctx, 16, 8, 3), match='channels')
    raises(IA, c.farneback, img, c.Image(ctx, 8, 16), match='8x16|16x8')
    raises(IA, c.flow_to_color, img, match='2-channel')
    raises(IA, c.Pyramid, ctx, 16, 8, 1, np.uint8, 0)
    raises(IA, c.Pyramid, ctx, 16, 8, 1, np.uint8, 4, float('nan'))
    pyr = c.Pyramid(ctx, 16, 8, 1, np.uint8, 2)
    raises(IA, pyr.level, 5)
    raises(IA, c.pyramid_build, pyr, c.Image(ctx, 8, 8), match='8x8')
    raises(IA, c.pyramid_build, img, img, match='Pyramid')


def test_generic_call(ctx, gray):
    img = c.upload(gray, ctx)
    out = c.Image(ctx, img.width, img.height)
    raises(IA, c.call, ctx, 'no_such_op', {})
    raises(IA, c.call, ctx, 'gaussian_blur', {'src': img, 'dst': out}, match='sigma_x')
    raises(IA, c.call, ctx, 'gaussian_blur', {'src': img, 'dst': out, 'sigma_x': 1.0,
                                              'bogus': 1}, match='bogus')
    raises(IA, c.call, ctx, 'gaussian_blur', {'src': 3, 'dst': out, 'sigma_x': 1.0})
    raises(IA, c.call, ctx, 'gaussian_blur', [('src', img)])
    raises(IA, c.call, ctx, 'gaussian_blur', {1: img})
    raises(IA, c.call, None, 'gaussian_blur', {})
    # arrays shorter than their length parameter are refused before the call
    pyr = c.Pyramid(ctx, img.width, img.height, 1, np.uint8, 3)
    c.call(ctx, 'pyramid_build', {'pyr': pyr, 'src': img})
    pts = np.zeros((4, 2), np.float32)
    raises(IA, c.call, ctx, 'lk_track', {'prev': pyr, 'next': pyr, 'pts_in': pts,
                                         'pts_out': np.zeros((4, 2), np.float32),
                                         'status': np.zeros(4, np.uint8), 'count': 5},
           match='holds 4')
    raises(IA, c.call, ctx, 'lk_track', {'prev': pyr, 'next': pyr, 'pts_in': pts,
                                         'pts_out': pts.copy(), 'status': b'\0' * 4,
                                         'count': 4}, match='writable')
    raises(IA, c.call, ctx, 'flow_eval', {'estimate': img, 'ground_truth': img,
                                          'out': bytearray(3)}, match='bytes')
    c.call(ctx, 'gaussian_blur', {'src': img, 'dst': out, 'sigma_x': 1.0})
    assert np.array_equal(out.download(), c.gaussian_blur(gray, 1.0))


def test_files(tmp_path):
    raises(c.IoError, c.imread, str(tmp_path / 'missing.png'))
    raises(c.IoError, c.imread, str(tmp_path))
    bad = tmp_path / 'bad.png'
    bad.write_bytes(b'\x89PNG\r\n\x1a\n' + b'\0' * 40)
    raises(c.FormatError, c.imread, str(bad))
    raises(c.UnsupportedError, c.imread, data('cmyk.jpg'))
    raises(c.UnsupportedError, c.imwrite, str(tmp_path / 'x.bmp'), np.zeros((4, 4), np.uint8))
    raises(IA, c.imwrite, str(tmp_path / 'x.png'), np.zeros((4, 4), np.float64))
    raises(IA, c.flo_write, str(tmp_path / 'x.flo'), np.zeros((4, 4), np.float32))
    raises(c.IoError, c.flo_write, str(tmp_path / 'no' / 'x.flo'), np.zeros((4, 4, 2), np.float32))
    raises(c.IoError, c.flo_read, str(tmp_path / 'x.flo'))
    with pytest.raises(TypeError):
        c.imread(None)
    assert not list(tmp_path.glob('x.*'))  # failed writes leave nothing


def test_devices():
    raises(c.NoDeviceError, c.Context, 'no-such-device-xyz', match='matches no device')
    raises(IA, c.Context, 42)
    raises(c.KernelSourceError, c.Context, None, '/nonexistent/kernels')
    # CLV_DEVICE is read when no device is given
    env = dict(os.environ, CLV_DEVICE='no-such-device-xyz')
    r = subprocess.run([sys.executable, '-c', 'import clvision; clvision.Context()'], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 1 and 'NoDeviceError' in r.stderr and 'CLV_DEVICE' in r.stderr


BAD = [None, -1, 0, 2 ** 31, -2 ** 63, 2 ** 200, float('nan'), float('-inf'), 1e308, 'x', b'x',
       [], (1, 2), object(), np.zeros(0, np.uint8), np.zeros((3, 3, 9), np.float32),
       np.zeros((2, 2), np.float64), True]


def test_no_crash_on_any_argument(ctx):
    """Every generated function, every parameter given each bad value in turn
    (the others valid): a clvision.Error or TypeError, or a result; never a
    crash (which would end this process)."""
    img8 = np.zeros((24, 32), np.uint8)
    good = {'image': img8, 'array': np.zeros((4, 2), np.float32)}
    calls, other = 0, []
    for name in c.OPERATIONS:
        fn = getattr(c, name)
        plan = fn._clvision_plan
        sig = inspect.signature(fn)
        base = {}
        for prm in sig.parameters.values():
            p = plan.params.get(prm.name) if prm.kind != prm.KEYWORD_ONLY else None
            if prm.default is prm.empty:
                if p['type'] in ('image', 'pyramid'):
                    base[prm.name] = np.zeros((24, 32, 2), np.float32) if 2 == p['channels'] >> 1 \
                        and p['channels'] == 4 else img8
                elif p['type'] == 'array':
                    base[prm.name] = good['array']
                elif p['type'] == 'enum':
                    base[prm.name] = p['enum_names'][0]
                else:
                    base[prm.name] = 1
        for prm in list(sig.parameters.values()):
            for bad in BAD:
                kw = dict(base)
                kw[prm.name] = bad
                calls += 1
                try:
                    with np.errstate(over='ignore'):  # 1e308 as float32 points: inf
                        fn(**kw)
                except (c.Error, TypeError):
                    pass
                except Exception as e:
                    other.append('%s(%s=%r): %r' % (name, prm.name, bad, e))
    assert not other, '\n'.join(other[:20])
    assert calls > 1000
    # the context still works
    assert np.array_equal(c.transpose(img8), img8.T)
