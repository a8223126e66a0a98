"""Every operation from Python against OpenCV (or a small numpy reference
where OpenCV has none) on the bundled photos, with the C API's tolerances."""
import math

import cv2
import numpy as np
import pytest

import clvision
from conftest import assert_close, data, read

TESTED = set()


def tested(*names):
    TESTED.update(names)


def types_of(img8):
    """The photo as u8, u16 (x 257) and f32 (0..1)."""
    return [img8, img8.astype(np.uint16) * 257, img8.astype(np.float32) / 255]


def test_transpose(gray, bgr):
    tested('transpose')
    for a in types_of(bgr) + [gray]:
        assert np.array_equal(clvision.transpose(a), cv2.transpose(a))


def test_resize(gray, bgr):
    tested('resize')
    for a in types_of(bgr) + [gray]:
        for size in [(200, 130), (901, 600), (7, 3)]:
            out = clvision.resize(a, size=size)
            assert_close(out, cv2.resize(a, size, interpolation=cv2.INTER_LINEAR), 'resize')


BORDERS = {'reflect101': cv2.BORDER_REFLECT_101, 'replicate': cv2.BORDER_REPLICATE,
           'reflect': cv2.BORDER_REFLECT, 'constant': cv2.BORDER_CONSTANT}


def test_box_filter(bgr):
    tested('box_filter')
    for a in types_of(bgr):
        for name, b in BORDERS.items():
            out = clvision.box_filter(a, ksize_x=5, ksize_y=3, border=name)
            assert_close(out, cv2.blur(a, (5, 3), borderType=b), 'box ' + name)


def test_gaussian_blur(gray, bgr):
    tested('gaussian_blur')
    # the kernel side for sigma 2: 2*ceil(3 sigma)+1 = 13 (OpenCV's own for u8;
    # for other types OpenCV's default is 8 sigma + 1, so it is given here)
    for a in types_of(bgr) + [gray]:
        assert_close(clvision.gaussian_blur(a, sigma_x=2.0), cv2.GaussianBlur(a, (13, 13), 2.0),
                     'gaussian')
    out = clvision.gaussian_blur(bgr, 1.5, 3.0, 7, 11, 'replicate')
    assert_close(out, cv2.GaussianBlur(bgr, (7, 11), 1.5, sigmaY=3.0,
                                       borderType=cv2.BORDER_REPLICATE), 'gaussian 7x11')


def bilateral_like_opencv(img, what):
    """clvision.bilateral within 1 of OpenCV's bilateralFilter, at the default
    radius (ceil(3 sigma_space)) and at a small explicit one, where the
    window's shape matters (a disc in both)."""
    out = clvision.bilateral(img, sigma_space=3.0, sigma_range=25.0)
    assert_close(out, cv2.bilateralFilter(img, 19, 25.0, 3.0), what)
    out = clvision.bilateral(img, sigma_space=6.0, sigma_range=40.0, radius=3)
    assert_close(out, cv2.bilateralFilter(img, 7, 40.0, 6.0), what + ' radius 3')


def test_bilateral_gray(gray):
    tested('bilateral')
    bilateral_like_opencv(gray, 'bilateral')
    # (f32: OpenCV interpolates its range weights from a table; no comparison)


def test_bilateral_colour(bgr):
    # OpenCV's colour distance is the sum of the channels' absolute
    # differences, and so is ours (a Euclidean one differed by up to 27)
    tested('bilateral')
    bilateral_like_opencv(bgr, 'bilateral colour')


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return 10 * math.log10(255.0 ** 2 / max(mse, 1e-12))


def test_bilateral_grid(gray, bgr):
    # The grid approximates a bilateral with sigma_space = s_s, sigma_range =
    # s_r: against OpenCV's brute force by PSNR (the C test: 44-48 dB
    # against its own brute force, required >= 30).
    tested('bilateral_grid')
    out = clvision.bilateral_grid(gray, s_s=8.0, s_r=20.0)
    assert psnr(out, cv2.bilateralFilter(gray, 49, 20.0, 8.0)) > 40
    # colour: the range axis is luminance of R, G, B; bgr=True on an OpenCV
    # array gives the RGB result with its channels swapped
    rgb = np.ascontiguousarray(bgr[:, :, ::-1])
    ref = clvision.bilateral_grid(rgb)
    assert np.array_equal(clvision.bilateral_grid(bgr, bgr=True), ref[:, :, ::-1])
    assert not np.array_equal(clvision.bilateral_grid(bgr), ref[:, :, ::-1])
    assert psnr(ref, cv2.bilateralFilter(rgb, 49, 25.5, 16.0)) > 25


def test_bilateral_grid_cross(gray, bgr):
    tested('bilateral_grid_cross')
    # edges from the image itself: the plain grid's result
    assert np.array_equal(clvision.bilateral_grid_cross(gray, gray), clvision.bilateral_grid(gray))
    edge = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    out = clvision.bilateral_grid_cross(bgr, edge, s_s=8.0, s_r=20.0)
    ref = cv2.ximgproc.jointBilateralFilter(edge, bgr, 49, 20.0, 8.0)
    assert psnr(out, ref) > 33


def srgb(x):
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)


def test_tonemap_local(bgr):
    tested('tonemap_local')
    # a flat image maps to encode(2^(exposure - 0.5 - contrast / 2)) (edge.h)
    flat = np.full((40, 50, 3), 7.5, np.float32)
    for contrast, exposure in [(5.0, 0.0), (4.0, 1.0)]:
        want = int(srgb(2.0 ** (exposure - 0.5 - contrast / 2)) * 255 + 0.5)
        out = clvision.tonemap_local(flat, contrast=contrast, exposure=exposure)
        assert out.dtype == np.uint8 and out.shape == (40, 50, 3)
        assert np.abs(out.astype(int) - want).max() <= 1
    # a photo made HDR with a 16-stop ramp: uses the range, keeps the order of
    # luminance (rank correlation with the input's log luminance)
    lin = (bgr[:, :, ::-1].astype(np.float32) / 255) ** 2.2
    ramp = np.exp2(np.linspace(-8, 8, lin.shape[1], dtype=np.float32))[None, :, None]
    hdr = np.ascontiguousarray(lin * ramp + 1e-4, dtype=np.float32)
    out = clvision.tonemap_local(hdr)
    lum = (0.2126 * hdr[..., 0] + 0.7152 * hdr[..., 1] + 0.0722 * hdr[..., 2]).ravel()
    y = out.astype(np.float64).mean(axis=2).ravel()
    assert out.min() <= 10 and out.max() >= 240
    r1, r2 = np.argsort(np.argsort(lum)), np.argsort(np.argsort(y))
    assert np.corrcoef(r1, r2)[0, 1] > 0.9
    # channel order: BGR in with bgr=True is the RGB result swapped
    assert np.array_equal(clvision.tonemap_local(np.ascontiguousarray(hdr[:, :, ::-1]), bgr=True),
                          out[:, :, ::-1])


def bilinear_replicate(src, x, y):
    """numpy reference of warp: bilinear sample at (x, y), border replicate."""
    h, w = src.shape[:2]
    x = np.clip(x, 0, w - 1)
    y = np.clip(y, 0, h - 1)
    x0 = np.floor(x).astype(int)
    y0 = np.floor(y).astype(int)
    x1, y1 = np.minimum(x0 + 1, w - 1), np.minimum(y0 + 1, h - 1)
    fx, fy = (x - x0)[..., None], (y - y0)[..., None]
    s = src.astype(np.float64).reshape(h, w, -1)
    v = ((1 - fy) * ((1 - fx) * s[y0, x0] + fx * s[y0, x1]) +
         fy * ((1 - fx) * s[y1, x0] + fx * s[y1, x1]))
    return v.reshape(x.shape + src.shape[2:])


def test_warp(bgr):
    tested('warp')
    h, w = bgr.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    flow = np.dstack([3.3 * np.sin(yy / 17) + 0.25, 2.1 * np.cos(xx / 23) - 0.4]).astype(np.float32)
    f = bgr.astype(np.float32)
    out = clvision.warp(f, flow)
    ref = bilinear_replicate(f, xx + flow[..., 0], yy + flow[..., 1]).astype(np.float32)
    assert_close(out, ref, 'warp f32')
    out8 = clvision.warp(bgr, flow)
    assert np.abs(out8.astype(int) - np.floor(ref + 0.5).astype(int)).max() <= 1


def wheel():
    cols = []
    for n, fn in [(15, lambda i: (255, 255 * i // 15, 0)), (6, lambda i: (255 - 255 * i // 6, 255, 0)),
                  (4, lambda i: (0, 255, 255 * i // 4)), (11, lambda i: (0, 255 - 255 * i // 11, 255)),
                  (13, lambda i: (255 * i // 13, 0, 255)), (6, lambda i: (255, 0, 255 - 255 * i // 6))]:
        cols += [fn(i) for i in range(n)]
    return np.array(cols, np.float64)


def flow_color_ref(flow, max_magnitude=0.0):
    """The Middlebury colour wheel in numpy (as tests/ref/ref_flow.c)."""
    u, v = flow[..., 0].astype(np.float64), flow[..., 1].astype(np.float64)
    known = ~(np.isnan(u) | np.isnan(v) | (np.abs(u) >= 1e9) | (np.abs(v) >= 1e9))
    maxrad = max_magnitude if max_magnitude > 0 else (np.sqrt(u ** 2 + v ** 2)[known].max() or 1)
    fx, fy = u / maxrad, v / maxrad
    rad = np.sqrt(fx ** 2 + fy ** 2)
    a = np.where((fy == 0) & (fx > 0), -1.0, np.arctan2(-fy, -fx) / np.pi)
    fk = (a + 1) / 2 * 54
    k0 = np.clip(fk.astype(int), 0, 54)
    k1 = (k0 + 1) % 55
    f = (fk - k0)[..., None]
    W = wheel()
    col = (1 - f) * W[k0] / 255 + f * W[k1] / 255
    inside = (rad <= 1 + 1e-5)[..., None]
    col = np.where(inside, 1 - rad[..., None] * (1 - col), col * 0.75)
    out = np.clip(255 * col, 0, 255).astype(np.uint8)
    out[~known] = 0
    return out


def test_flow_to_color():
    tested('flow_to_color')
    gt = clvision.flo_read(data('flow_camera_gt.flo'))
    out = clvision.flow_to_color(gt)
    assert_close(out, flow_color_ref(gt), 'flow_to_color')
    assert_close(clvision.flow_to_color(gt, max_magnitude=2.0), flow_color_ref(gt, 2.0),
                 'flow_to_color 2')
    assert np.array_equal(clvision.flow_to_color(gt, bgr=True), out[:, :, ::-1])


def test_flow_eval():
    tested('flow_eval')
    gt = clvision.flo_read(data('flow_chelsea_gt.flo'))
    rng = np.random.default_rng(3)
    est = (gt + rng.normal(0, 1.5, gt.shape)).astype(np.float32)
    s = clvision.flow_eval(est, gt)
    known = ~(np.isnan(gt).any(-1) | (np.abs(gt) >= 1e9).any(-1))
    e, g = est[known].astype(np.float64), gt[known].astype(np.float64)
    epe = np.sqrt(((e - g) ** 2).sum(-1))
    cosang = ((e * g).sum(-1) + 1) / np.sqrt(((e ** 2).sum(-1) + 1) * ((g ** 2).sum(-1) + 1))
    aae = np.degrees(np.arccos(np.clip(cosang, -1, 1))).mean()
    assert s['valid'] == known.sum()
    assert abs(s['aee'] - epe.mean()) <= 1e-5 * epe.mean()
    assert abs(s['aae'] - aae) <= 1e-4 * aae
    for k, t in [('r1', 1), ('r3', 3), ('r5', 5)]:
        assert abs(s[k] - 100 * (epe > t).mean()) <= 0.01


def test_pyramid_build(gray, bgr):
    tested('pyramid_build')
    for a in [gray, bgr, bgr.astype(np.uint16) * 257]:
        levels = clvision.pyramid(a, levels=4)
        ref = a
        for lv in levels[1:]:
            ref = cv2.pyrDown(ref)
            assert np.array_equal(lv, ref)
    # the operation itself, on a Pyramid the caller made
    ctx = clvision.default_context()
    src = clvision.upload(gray, ctx)
    pyr = clvision.Pyramid(ctx, src.width, src.height, 1, np.uint8, 3, 0.5)
    assert clvision.pyramid_build(pyr, src) is None
    assert np.array_equal(pyr.level(2).download(), cv2.pyrDown(cv2.pyrDown(gray)))


def test_farneback():
    tested('farneback')
    for name in ['camera', 'chelsea']:
        a, b = read('flow_%s0.png' % name, 0), read('flow_%s1.png' % name, 0)
        flow = clvision.farneback(a, b)
        ref = cv2.calcOpticalFlowFarneback(a, b, None, 0.5, 3, 15, 3, 5, 1.2, 0)
        err = np.abs(flow - ref)
        assert flow.shape == a.shape + (2,) and flow.dtype == np.float32
        assert np.percentile(err, 99) < 1e-4 and err.max() < 1e-2, (name, err.max())
        g = clvision.farneback(a, b, levels=2, winsize=9, poly_n=7, poly_sigma=1.5,
                               gaussian_window=True)
        ref = cv2.calcOpticalFlowFarneback(a, b, None, 0.5, 2, 9, 3, 7, 1.5,
                                           cv2.OPTFLOW_FARNEBACK_GAUSSIAN)
        assert np.percentile(np.abs(g - ref), 99) < 1e-4


def match_corners(ours, ref, tol=1.0):
    d = np.sqrt(((ours[:, None, :2] - ref[None, :, :2]) ** 2).sum(-1))
    return (d.min(axis=0) <= tol).mean()


def test_corners(gray):
    tested('corners_shi_tomasi', 'corners_shi_tomasi_n')
    ref = cv2.goodFeaturesToTrack(gray, 200, 0.01, 10).reshape(-1, 2)
    cs = clvision.corners_shi_tomasi(gray, max_corners=200, quality_level=0.01, min_distance=10)
    assert cs.dtype == np.float32 and cs.shape[1] == 3
    assert len(cs) == len(ref) and match_corners(cs, ref) == 1.0
    assert (np.diff(cs[:, 2]) <= 0).all()  # strongest first
    n = clvision.corners_shi_tomasi_n(gray, 50, max_corners=200, min_distance=10)
    assert np.array_equal(n, cs[:50])
    assert len(clvision.corners_shi_tomasi_n(gray, 0)) == 0
    mask = np.zeros_like(gray)
    mask[:128] = 1
    m = clvision.corners_shi_tomasi(gray, mask=mask)
    assert len(m) > 0 and (m[:, 1] < 128).all()


def test_lk_track():
    tested('lk_track')
    p, n = read('lk_prev.png', 0), read('lk_next.png', 0)
    pts = cv2.goodFeaturesToTrack(p, 100, 0.01, 10).reshape(-1, 2)
    out, status, err = clvision.lk_track(p, n, pts)
    ref, rs, re = cv2.calcOpticalFlowPyrLK(p, n, pts.reshape(-1, 1, 2), None, winSize=(21, 21),
                                           maxLevel=2)
    ok = (status == 1) & (rs.ravel() == 1)
    assert ok.mean() > 0.95 and np.array_equal(status, rs.ravel())
    d = np.sqrt(((out - ref.reshape(-1, 2)) ** 2).sum(1))[ok]
    assert np.median(d) < 0.01 and d.max() < 0.05
    assert np.abs(err[ok] - re.ravel()[ok]).max() < 0.01
    # pyramids made by the caller, and initial estimates
    ctx = clvision.default_context()
    pp = clvision.Pyramid(ctx, p.shape[1], p.shape[0], 1, np.uint8, 3, 0.5)
    pn = clvision.Pyramid(ctx, p.shape[1], p.shape[0], 1, np.uint8, 3, 0.5)
    clvision.pyramid_build(pp, clvision.upload(p))
    clvision.pyramid_build(pn, clvision.upload(n))
    out2, s2, _ = clvision.lk_track(pp, pn, pts, pts_out=out, use_initial_flow=True)
    assert np.abs(out2[ok] - out[ok]).max() < 0.05


def test_sobel(bgr):
    tested('sobel')
    for a in types_of(bgr):
        for dx, dy in [(1, 0), (0, 1), (2, 1)]:
            assert_close(clvision.sobel(a, dx=dx, dy=dy),
                         cv2.Sobel(a, cv2.CV_32F, dx, dy, ksize=3), 'sobel')


def test_convert_color(bgr):
    tested('convert_color')
    for a in types_of(bgr):
        assert_close(clvision.convert_color(a, 'bgr2gray'), cv2.cvtColor(a, cv2.COLOR_BGR2GRAY),
                     'bgr2gray')
        assert_close(clvision.convert_color(a, 'rgb2gray'), cv2.cvtColor(a, cv2.COLOR_RGB2GRAY),
                     'rgb2gray')
        assert np.array_equal(clvision.convert_color(a, 'rgb2bgr'), a[:, :, ::-1])
        assert np.array_equal(clvision.convert_color(a, 'rgb2rgba'),
                              cv2.cvtColor(a, cv2.COLOR_RGB2RGBA))
    g = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    assert np.array_equal(clvision.convert_color(g, 'gray2rgb'), cv2.cvtColor(g, cv2.COLOR_GRAY2RGB))


def test_convert_type(bgr):
    tested('convert_type')
    f = clvision.convert_type(bgr, scale=1 / 255, dtype=np.float32)
    assert_close(f, (bgr.astype(np.float32) * np.float32(1 / 255)), 'u8 -> f32')
    x = np.linspace(-20, 300, 64 * 48 * 3, dtype=np.float32).reshape(48, 64, 3)
    out = clvision.convert_type(x, scale=1.5, dtype=np.uint8)
    assert np.array_equal(out, np.clip(np.rint(x * np.float32(1.5)), 0, 255).astype(np.uint8))
    out16 = clvision.convert_type(bgr, scale=300.0, dtype=np.uint16)
    assert np.array_equal(out16, np.clip(bgr.astype(np.float64) * 300, 0, 65535).astype(np.uint16))


def test_image_files(tmp_path, bgr):
    rgb = clvision.imread(data('chelsea.png'))
    assert np.array_equal(rgb, bgr[:, :, ::-1])
    assert np.array_equal(clvision.imread(data('chelsea.png'), bgr=True), bgr)
    assert np.array_equal(clvision.imread(data('chelsea16.png'), bgr=True),
                          read('chelsea16.png'))
    jpg = clvision.imread(data('coffee.jpg'), bgr=True)
    assert np.abs(jpg.astype(int) - read('coffee.jpg', cv2.IMREAD_COLOR)).max() <= 1
    p = str(tmp_path / 'out.png')
    clvision.imwrite(p, bgr, bgr=True)
    assert np.array_equal(cv2.imread(p), bgr)
    f = (bgr.astype(np.float32) / 255)
    p = str(tmp_path / 'out.pfm')
    clvision.imwrite(p, f)
    assert np.array_equal(clvision.imread(p), f)
    p = str(tmp_path / 'crop.png')
    clvision.imwrite(p, bgr[10:100, 20:200])  # strided rows, no copy
    assert np.array_equal(clvision.imread(p), bgr[10:100, 20:200])


def test_flo_files(tmp_path):
    gt = clvision.flo_read(data('flow_camera_gt.flo'))
    raw = np.fromfile(data('flow_camera_gt.flo'), np.uint8)
    assert raw[:4].tobytes() == b'PIEH'
    w, h = np.frombuffer(raw[4:12].tobytes(), np.int32)
    assert gt.shape == (h, w, 2)
    assert np.array_equal(gt, np.frombuffer(raw[12:].tobytes(), np.float32).reshape(h, w, 2))
    p = str(tmp_path / 'x.flo')
    clvision.flo_write(p, gt)
    with open(p, 'rb') as f:
        assert f.read() == raw.tobytes()


def test_every_operation_is_tested():
    # runs last in this file: a new descriptor needs a test here
    assert set(clvision.OPERATIONS) == TESTED, set(clvision.OPERATIONS) ^ TESTED
