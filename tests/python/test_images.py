"""Device images: properties, transfers with strided rows, views, out=."""
import cv2
import numpy as np

import clvision as c


def test_properties_and_transfers(ctx, bgr):
    img = c.upload(bgr, ctx)
    assert (img.width, img.height, img.channels) == (bgr.shape[1], bgr.shape[0], 3)
    assert img.dtype == np.uint8 and img.shape == bgr.shape and img.context is ctx
    assert img.pitch % 64 == 0 and img.pitch >= bgr.shape[1] * 3 and img.offset == 0
    assert img.cl_mem != 0
    assert np.array_equal(img.download(), bgr)
    out = np.zeros((bgr.shape[0] + 5, bgr.shape[1] + 7, 3), np.uint8)
    img.download(out[2:2 + bgr.shape[0], 3:3 + bgr.shape[1]])  # strided rows, in place
    assert np.array_equal(out[2:2 + bgr.shape[0], 3:3 + bgr.shape[1]], bgr)
    assert not out[:2].any() and not out[:, :3].any()
    g = c.Image(ctx, 40, 30, 1, np.float32)
    assert g.shape == (30, 40) and g.dtype == np.float32
    g.upload(np.ones((30, 40, 1), np.float32))  # (H, W, 1) is one channel too
    assert (g.download() == 1).all()


def test_views(ctx, gray):
    img = c.upload(gray, ctx)
    v = img.view(17, 9, 100, 80)
    assert v.shape == (80, 100) and v.cl_mem == img.cl_mem
    # an operation on a view sees the rectangle alone (borders at its edges)
    crop = np.ascontiguousarray(gray[9:89, 17:117])
    assert np.array_equal(c.gaussian_blur(v, 2.0).download(), c.gaussian_blur(crop, 2.0))
    # writing into a view changes that rectangle only
    dst = c.upload(np.zeros_like(gray), ctx)
    c.gaussian_blur(v, 2.0, out=dst.view(1, 2, 100, 80))
    got = dst.download()
    assert np.array_equal(got[2:82, 1:101], c.gaussian_blur(crop, 2.0))
    got[2:82, 1:101] = 0
    assert not got.any()
    del img  # the view keeps the image's memory
    assert np.array_equal(v.download(), crop)


def test_out_reuse(ctx, bgr):
    img = c.upload(bgr, ctx)
    out = c.Image(ctx, img.width, img.height, 3)
    assert c.box_filter(img, 3, 3, out=out) is out
    host = np.empty_like(bgr)
    assert c.box_filter(bgr, 3, 3, out=host) is host
    assert np.array_equal(host, out.download())
    assert np.array_equal(host, cv2.blur(bgr, (3, 3), borderType=cv2.BORDER_REFLECT_101))
    # an image output into a preallocated array
    flow = np.zeros((bgr.shape[0], bgr.shape[1], 2), np.float32)
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    assert c.farneback(gray, gray, out=flow) is flow
    ref = cv2.calcOpticalFlowFarneback(gray, gray, None, 0.5, 3, 15, 3, 5, 1.2, 0)
    assert np.percentile(np.abs(flow - ref), 99) < 1e-4
