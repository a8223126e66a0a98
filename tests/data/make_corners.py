#!/usr/bin/env python3
"""Regenerate corners_opencv.csv: OpenCV's goodFeaturesToTrack corners on the
bundled camera.png and a gray chelsea.png, the reference test_corners.c
checks clv_corners_shi_tomasi against (>= 95% of these within 1 px).

Run from anywhere with a Python that has cv2 and numpy (Debian:
/usr/bin/python3 tests/data/make_corners.py). The gray chelsea is computed
here with OpenCV's integer RGB->gray formula, the same one the test uses:
    gray = (4899 R + 9617 G + 1868 B + 8192) >> 14
"""
import os
import sys

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PARAMS = dict(maxCorners=200, qualityLevel=0.01, minDistance=10, blockSize=3,
              gradientSize=3, useHarrisDetector=False)


def gray_chelsea():
    bgr = cv2.imread(os.path.join(HERE, "chelsea.png"), cv2.IMREAD_COLOR).astype(np.int64)
    b, g, r = bgr[..., 0], bgr[..., 1], bgr[..., 2]
    return ((4899 * r + 9617 * g + 1868 * b + 8192) >> 14).astype(np.uint8)


def main():
    images = [
        ("camera.png", cv2.imread(os.path.join(HERE, "camera.png"), cv2.IMREAD_GRAYSCALE)),
        ("chelsea.png", gray_chelsea()),
    ]
    out = os.path.join(HERE, "corners_opencv.csv")
    with open(out, "w") as f:
        f.write("# cv2.goodFeaturesToTrackWithQuality(img, maxCorners=200, "
                "qualityLevel=0.01, minDistance=10, mask=None, blockSize=3, gradientSize=3, "
                "useHarrisDetector=False); OpenCV %s; chelsea.png as gray = "
                "(4899 R + 9617 G + 1868 B + 8192) >> 14\n" % cv2.__version__)
        f.write("image,x,y,response\n")
        for name, img in images:
            pts, quality = cv2.goodFeaturesToTrackWithQuality(
                img, PARAMS["maxCorners"], PARAMS["qualityLevel"], PARAMS["minDistance"], None,
                blockSize=PARAMS["blockSize"], gradientSize=PARAMS["gradientSize"],
                useHarrisDetector=PARAMS["useHarrisDetector"])
            for (x, y), q in zip(pts.reshape(-1, 2), quality.reshape(-1)):
                f.write("%s,%d,%d,%.9g\n" % (name, int(x), int(y), float(q)))
            print("%s: %d corners" % (name, len(pts)), file=sys.stderr)


if __name__ == "__main__":
    main()
