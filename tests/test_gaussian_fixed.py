#!/usr/bin/env python3
"""The Gaussian's GPU extras on PoCL: with CLV_TUNE=gpu the one-pass kernel
(gauss_fused) has its radii compiled in, as on GPUs (radii up to 8). The
op tests run it with the radii as arguments (CLV_TUNE=generic builds one
program for every radius); this runs the compiled-in loops against the plain
reference of test_cli (a separable correlation), within 1 level, on crops of
real photos of odd sizes (one narrower than the kernel's 4 columns per
work-item), gray and RGB, u8 and u16, every border, square and lopsided
windows."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pycheck import check, summary  # noqa: E402
from test_cli import (clv, correlate, gaussian_weights, max_diff, png_read,  # noqa: E402
                      png_write, Image)

DATA = os.environ.get("CLV_TEST_DATA", os.path.join(os.path.dirname(__file__), "data"))


def crop(img, x0, y0, w, h):
    ch = img.channels
    px = []
    for y in range(y0, y0 + h):
        row = (y * img.width + x0) * ch
        px += img.pixels[row:row + w * ch]
    return Image(w, h, ch, img.depth, px)


def main():
    env = {"CLV_TUNE": "gpu", "CLV_PROFILE": "2"}
    tmp = tempfile.mkdtemp(prefix="clv-gfixed-")
    photos = [("chelsea", crop(png_read(os.path.join(DATA, "chelsea.png")), 101, 37, 37, 29)),
              ("camera", crop(png_read(os.path.join(DATA, "camera.png")), 60, 90, 41, 23)),
              ("chelsea16", crop(png_read(os.path.join(DATA, "chelsea16.png")), 3, 5, 19, 13)),
              ("thin", crop(png_read(os.path.join(DATA, "camera.png")), 200, 10, 3, 35))]
    cases = [(2.0, 0.0, 13, 13), (1.0, 0.0, 3, 5), (2.5, 0.0, 17, 1), (2.5, 0.0, 1, 17),
             (1.2, 0.7, 0, 0)]
    borders = ["constant", "replicate", "reflect", "reflect101", "wrap"]
    for name, img in photos:
        path = os.path.join(tmp, name + ".png")
        png_write(path, img)
        for k, (sx, sy, kx, ky) in enumerate(cases):
            border = borders[(k + len(name)) % len(borders)]
            out = os.path.join(tmp, "%s_%d.png" % (name, k))
            args = ["gaussian", "--sigma", str(sx), "--border", border, path, out]
            if sy:
                args[3:3] = ["--sigma-y", str(sy)]
            if kx:
                args[1:1] = ["--ksize", "%dx%d" % (kx, ky)]
            r = clv("--time", *args, env=env)
            what = "%s %dx%d sigma %g/%g k=%dx%d %s" % (name, img.width, img.height, sx, sy, kx, ky,
                                                         border)
            if not check(r.code == 0, what + ": runs", r.describe()):
                continue
            check("gauss_fused" in r.err, what + ": the one-pass kernel ran", r.err)
            got = png_read(out)
            want = correlate(img, gaussian_weights(sx, kx), gaussian_weights(sy or sx, ky), border)
            d = max_diff(got.pixels, want) if len(got.pixels) == len(want) else float("inf")
            check(d <= 1.0, what + ": within 1 of the reference", "max diff %g" % d)
    return summary("gaussian-fixed")


if __name__ == "__main__":
    sys.exit(main())
