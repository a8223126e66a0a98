#!/usr/bin/python3
"""Make the Lucas-Kanade test pair and OpenCV's tracking of it (test_lk.c).

Run with the system Python (numpy, OpenCV 4.6):
    /usr/bin/python3 tests/data/make_lk.py

The pair is the skimage chelsea.png photo (the same file as chelsea.png
here, see LICENSE.md) in gray (cv2.cvtColor BGR2GRAY), 451x300:
  lk_prev.png: the gray photo itself
  lk_next.png: next(q) = prev(A^-1(q)), 8x8 Lanczos interpolation
               (cv2.INTER_LANCZOS4) of the float image, reflect101 border,
               rounded to u8
with the motion A(p) = c + s R(theta) (p - c) + t, c = the image centre
((w-1)/2, (h-1)/2), s = 1.01 (1 % zoom), theta = 0.5 degrees,
t = (2.3, -1.7): a point p of prev is at A(p) in next.

lk_opencv.csv: the corners OpenCV's goodFeaturesToTrack finds in prev (300
at most, quality 0.01, minimum distance 5), and what calcOpticalFlowPyrLK
(21x21 window, maxLevel 2 = 3 levels, 30 iterations, epsilon 0.01,
minEigThreshold 1e-4) returns for them. Header lines start with '#'; the
'# A' line holds a11 a12 a13 a21 a22 a23 (A(p) = [a11 a12; a21 a22] p +
[a13; a23]).
"""
import math
import os

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = "/usr/lib/python3/dist-packages/skimage/data/chelsea.png"
ZOOM, THETA_DEG, SHIFT = 1.01, 0.5, (2.3, -1.7)


def motion(w, h):
    """2x3 matrix of A (prev pixel -> next pixel)."""
    c = np.array([(w - 1) / 2.0, (h - 1) / 2.0])
    t = math.radians(THETA_DEG)
    r = ZOOM * np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    off = c - r @ c + np.array(SHIFT)
    return np.hstack([r, off[:, None]])


def main():
    bgr = cv2.imread(SOURCE, cv2.IMREAD_COLOR)
    assert bgr is not None and bgr.shape == (300, 451, 3), SOURCE
    prev = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    h, w = prev.shape
    a = motion(w, h)
    a3 = np.vstack([a, [0, 0, 1]])
    nxt = cv2.warpAffine(prev.astype(np.float32), np.linalg.inv(a3)[:2], (w, h),
                         flags=cv2.INTER_LANCZOS4 | cv2.WARP_INVERSE_MAP,
                         borderMode=cv2.BORDER_REFLECT101)
    nxt = np.clip(np.rint(nxt), 0, 255).astype(np.uint8)
    cv2.imwrite(os.path.join(HERE, "lk_prev.png"), prev, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    cv2.imwrite(os.path.join(HERE, "lk_next.png"), nxt, [cv2.IMWRITE_PNG_COMPRESSION, 9])

    pts = cv2.goodFeaturesToTrack(prev, 300, 0.01, 5, blockSize=3)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 0.01)
    p1, st, err = cv2.calcOpticalFlowPyrLK(prev, nxt, pts, None, winSize=(21, 21),
                                           maxLevel=2, criteria=crit, minEigThreshold=1e-4)
    p0 = pts.reshape(-1, 2)
    p1 = p1.reshape(-1, 2)
    st = st.reshape(-1)
    err = err.reshape(-1)
    gt = p0 @ a[:, :2].T + a[:, 2]
    ok = st == 1
    epe = np.hypot(*(p1[ok] - gt[ok]).T)
    print("OpenCV: %d/%d tracked, median endpoint error %.4f px, mean %.4f" %
          (ok.sum(), len(p0), np.median(epe), epe.mean()))

    with open(os.path.join(HERE, "lk_opencv.csv"), "w") as f:
        f.write("# made by make_lk.py with OpenCV %s\n" % cv2.__version__)
        f.write("# A %s\n" % " ".join("%.17g" % v for v in a.reshape(-1)))
        f.write("# x0,y0,x1,y1,status,err\n")
        for i in range(len(p0)):
            f.write("%.9g,%.9g,%.9g,%.9g,%d,%.9g\n" %
                    (p0[i, 0], p0[i, 1], p1[i, 0], p1[i, 1], st[i], err[i]))


if __name__ == "__main__":
    main()
