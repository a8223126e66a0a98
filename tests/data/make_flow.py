#!/usr/bin/python3
"""Make the Farneback test pairs with known motion and OpenCV's results on
them (tests/test_farneback.c).

Run with the system Python (numpy, OpenCV 4.6):
    /usr/bin/python3 tests/data/make_flow.py

Two real photos, each moved by a known smooth motion. For a photo I0 and a
motion field f (pixels, a function of the position in the second image):
    I1(q) = I0(q - f(q))
sampled with 8x8 Lanczos interpolation (cv2.remap, INTER_LANCZOS4) of the
float image, reflect101 border, rounded to u8. The point p of I0 is then at
the q of I1 with q - f(q) = p, so the ground-truth flow at p (defined on
I0's pixel grid, as Farneback's flow is) is f(q) with q the fixed point of
q = p + f(q), found by iteration in double (f is a contraction here: its
derivatives are a few percent) until it moves by less than 1e-12 px.

  flow_chelsea0.png, flow_chelsea1.png, flow_chelsea_gt.flo
      skimage chelsea.png, gray (cv2.cvtColor BGR2GRAY), INTER_AREA down to
      180x120; f = affine + low-frequency sinusoids (c = image centre):
        u = 1.5 + 0.02 (x - cx) - 0.015 (y - cy) + 0.8 sin(y / 40)
        v = -0.7 + 0.015 (x - cx) + 0.02 (y - cy) + 0.8 cos(x / 50)
  flow_camera0.png, flow_camera1.png, flow_camera_gt.flo
      skimage camera.png (512x512 gray), INTER_AREA down to 160x160; a zoom
      and rotation about the centre plus a shift: a point p of I0 goes to
        A(p) = c + 1.04 R(2.5 degrees) (p - c) + (0.8, -1.1)
      (I1(q) = I0(A^-1(q)), the ground truth A(p) - p exactly).

.flo files: Middlebury layout (float 202021.25 = "PIEH", int32 width,
int32 height, then u, v float32 per pixel, row by row, little-endian).

flow_expected.txt: for each pair and each parameter set
    P1 = pyr_scale 0.5, levels 3, winsize 15, iterations 3, poly_n 5,
         poly_sigma 1.2, flags 0 (box window)
    P2 = pyr_scale 0.5, levels 4, winsize 21, iterations 5, poly_n 7,
         poly_sigma 1.5, flags OPTFLOW_FARNEBACK_GAUSSIAN
    P3 = pyr_scale 0.75, levels 6, winsize 9, iterations 3, poly_n 5,
         poly_sigma 1.1, flags 0 (level sizes that round: 135x90, 101x68, ...)
and each of (no initial flow, OPTFLOW_USE_INITIAL_FLOW with the ground
truth as the initial flow), the average endpoint error (px) and average
angular error (degrees, Barron et al.: acos((u_e u_g + v_e v_g + 1) /
sqrt((u_e^2 + v_e^2 + 1)(u_g^2 + v_g^2 + 1)))) of
cv2.calcOpticalFlowFarneback against the ground truth, over the interior:
the pixels with margin <= x < w - margin and margin <= y < h - margin,
margin = 16 px (the frame edge, where content enters or leaves the image,
is left out). Also the AEE of a zero flow over the same pixels.
"""
import math
import os
import struct

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SKIMAGE = "/usr/lib/python3/dist-packages/skimage/data"
MARGIN = 16

PARAMS = {
    "P1": (0.5, 3, 15, 3, 5, 1.2, 0),
    "P2": (0.5, 4, 21, 5, 7, 1.5, cv2.OPTFLOW_FARNEBACK_GAUSSIAN),
    "P3": (0.75, 6, 9, 3, 5, 1.1, 0),
}


def field_chelsea(w, h):
    cx, cy = (w - 1) / 2.0, (h - 1) / 2.0

    def f(x, y):
        u = 1.5 + 0.02 * (x - cx) - 0.015 * (y - cy) + 0.8 * np.sin(y / 40.0)
        v = -0.7 + 0.015 * (x - cx) + 0.02 * (y - cy) + 0.8 * np.cos(x / 50.0)
        return u, v
    return f


def affine_camera(w, h):
    """2x3 matrix of A (I0 pixel -> I1 pixel)."""
    c = np.array([(w - 1) / 2.0, (h - 1) / 2.0])
    t = math.radians(2.5)
    r = 1.04 * np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    off = c - r @ c + np.array([0.8, -1.1])
    return np.hstack([r, off[:, None]])


def field_affine(a):
    """f(q) = q - A^-1(q): the motion as a field on I1's grid."""
    ai = np.linalg.inv(np.vstack([a, [0, 0, 1]]))[:2]

    def f(x, y):
        sx = ai[0, 0] * x + ai[0, 1] * y + ai[0, 2]
        sy = ai[1, 0] * x + ai[1, 1] * y + ai[1, 2]
        return x - sx, y - sy
    return f


def warp(i0, f):
    """I1(q) = I0(q - f(q)), Lanczos, reflect101, rounded to u8."""
    h, w = i0.shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    u, v = f(x, y)
    mx = (x - u).astype(np.float32)
    my = (y - v).astype(np.float32)
    out = cv2.remap(i0.astype(np.float32), mx, my, cv2.INTER_LANCZOS4,
                    borderMode=cv2.BORDER_REFLECT101)
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def ground_truth(f, w, h):
    """flow(p) = f(q) where q = p + f(q), by fixed-point iteration."""
    py, px = np.mgrid[0:h, 0:w].astype(np.float64)
    qx, qy = px.copy(), py.copy()
    for _ in range(200):
        u, v = f(qx, qy)
        nx, ny = px + u, py + v
        d = max(np.abs(nx - qx).max(), np.abs(ny - qy).max())
        qx, qy = nx, ny
        if d < 1e-12:
            break
    assert d < 1e-12, "fixed point did not converge (%g)" % d
    u, v = f(qx, qy)
    # check: q - f(q) == p
    assert np.abs(qx - u - px).max() < 1e-9 and np.abs(qy - v - py).max() < 1e-9
    return np.dstack([u, v]).astype(np.float32)


def write_flo(path, flow):
    h, w, _ = flow.shape
    with open(path, "wb") as f:
        f.write(struct.pack("<fii", 202021.25, w, h))
        f.write(np.ascontiguousarray(flow, dtype="<f4").tobytes())


def read_flo(path):
    with open(path, "rb") as f:
        tag, w, h = struct.unpack("<fii", f.read(12))
        assert tag == 202021.25
        return np.frombuffer(f.read(), dtype="<f4").reshape(h, w, 2)


def stats(est, gt):
    """AEE and AAE (degrees) over the interior, in double."""
    h, w, _ = gt.shape
    e = est[MARGIN:h - MARGIN, MARGIN:w - MARGIN].astype(np.float64)
    g = gt[MARGIN:h - MARGIN, MARGIN:w - MARGIN].astype(np.float64)
    epe = np.hypot(e[..., 0] - g[..., 0], e[..., 1] - g[..., 1])
    c = (e[..., 0] * g[..., 0] + e[..., 1] * g[..., 1] + 1.0) / np.sqrt(
        (e[..., 0] ** 2 + e[..., 1] ** 2 + 1.0) * (g[..., 0] ** 2 + g[..., 1] ** 2 + 1.0))
    ang = np.degrees(np.arccos(np.clip(c, -1.0, 1.0)))
    return epe.mean(), ang.mean()


def make_pairs():
    pairs = []

    bgr = cv2.imread(os.path.join(SKIMAGE, "chelsea.png"), cv2.IMREAD_COLOR)
    assert bgr is not None and bgr.shape == (300, 451, 3)
    i0 = cv2.resize(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), (180, 120),
                    interpolation=cv2.INTER_AREA)
    f = field_chelsea(180, 120)
    pairs.append(("chelsea", i0, warp(i0, f), ground_truth(f, 180, 120)))

    cam = cv2.imread(os.path.join(SKIMAGE, "camera.png"), cv2.IMREAD_GRAYSCALE)
    assert cam is not None and cam.shape == (512, 512)
    i0 = cv2.resize(cam, (160, 160), interpolation=cv2.INTER_AREA)
    a = affine_camera(160, 160)
    f = field_affine(a)
    gt = ground_truth(f, 160, 160)
    # the affine ground truth is known in closed form too
    py, px = np.mgrid[0:160, 0:160].astype(np.float64)
    ex = a[0, 0] * px + a[0, 1] * py + a[0, 2] - px
    ey = a[1, 0] * px + a[1, 1] * py + a[1, 2] - py
    assert np.abs(gt[..., 0] - ex).max() < 1e-4 and np.abs(gt[..., 1] - ey).max() < 1e-4
    pairs.append(("camera", i0, warp(i0, f), gt))
    return pairs


def main():
    lines = []
    for name, i0, i1, gt in make_pairs():
        h, w = i0.shape
        n0, n1, ng = "flow_%s0.png" % name, "flow_%s1.png" % name, "flow_%s_gt.flo" % name
        cv2.imwrite(os.path.join(HERE, n0), i0, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        cv2.imwrite(os.path.join(HERE, n1), i1, [cv2.IMWRITE_PNG_COMPRESSION, 9])
        write_flo(os.path.join(HERE, ng), gt)
        # what the test will read
        assert np.array_equal(cv2.imread(os.path.join(HERE, n0), cv2.IMREAD_UNCHANGED), i0)
        assert np.array_equal(cv2.imread(os.path.join(HERE, n1), cv2.IMREAD_UNCHANGED), i1)
        assert np.array_equal(read_flo(os.path.join(HERE, ng)), gt)
        zero_aee, _ = stats(np.zeros_like(gt), gt)
        mag = np.hypot(gt[..., 0], gt[..., 1])
        print("%s: %dx%d, |flow| %.2f..%.2f px, zero-flow AEE %.4f" %
              (name, w, h, mag.min(), mag.max(), zero_aee))
        for pname, (ps, lev, win, it, pn, psig, flags) in PARAMS.items():
            for init in (0, 1):
                if init:
                    flow = gt.copy()
                    fl = flags | cv2.OPTFLOW_USE_INITIAL_FLOW
                else:
                    flow = None
                    fl = flags
                flow = cv2.calcOpticalFlowFarneback(i0, i1, flow, ps, lev, win, it, pn, psig, fl)
                aee, aae = stats(flow, gt)
                case = "%s_%s%s" % (name, pname, "_init" if init else "")
                print("  %-20s OpenCV AEE %.5f px, AAE %.5f deg" % (case, aee, aae))
                lines.append("%s %s %s %s %d %g %d %d %d %d %g %d %d %.6f %.6f %.6f" %
                             (case, n0, n1, ng, MARGIN, ps, lev, win, it, pn, psig,
                              1 if flags & cv2.OPTFLOW_FARNEBACK_GAUSSIAN else 0, init,
                              aee, aae, zero_aee))

    with open(os.path.join(HERE, "flow_expected.txt"), "w") as f:
        f.write("# made by make_flow.py with OpenCV %s: cv2.calcOpticalFlowFarneback on\n"
                % cv2.__version__)
        f.write("# pairs with known motion, compared with the ground truth over the interior\n")
        f.write("# (margin <= x < w - margin, margin <= y < h - margin), in double.\n")
        f.write("# One case per line, fields separated by spaces:\n")
        f.write("# case prev next ground_truth margin pyr_scale levels winsize iterations poly_n\n")
        f.write("#   poly_sigma gaussian_window use_initial_flow aee_opencv aae_opencv aee_zero\n")
        f.write("# gaussian_window 1 = OPTFLOW_FARNEBACK_GAUSSIAN; use_initial_flow 1 =\n")
        f.write("# OPTFLOW_USE_INITIAL_FLOW with the ground truth as the initial flow;\n")
        f.write("# aee in px, aae in degrees; aee_zero = AEE of a zero flow.\n")
        for line in lines:
            f.write(line + "\n")


if __name__ == "__main__":
    main()
