#!/usr/bin/env python3
"""The Gaussian's GPU extras on PoCL: with CLV_TUNE=gpu the radii up to 8
are compiled in, as on GPUs: u8 runs gauss_reg (registers), u16 the f32
kernels' two wide passes (gauss_whf, gauss_wvf) where its rows are wide
enough, else the one-pass local-memory kernel gauss_fused. The op tests run gauss_fused with the radii
as arguments (CLV_TUNE=generic builds one program for every radius); this
runs the compiled-in loops against the plain reference of test_cli (a
separable correlation), within 1 level, on crops of real photos of odd sizes
(one narrower than the kernels' 4 values per work-item), 1, 3 and 4
channels, u8 and u16, every border, square and lopsided windows, and a radius past 8
(u8 then takes gauss_fused). gauss_reg takes only rows of more pixels than
the values one work-item loads (the library's CLV__SPAN_FITS: its row ends
then go through one reflection); narrower rows, the thin crop's, must go to
gauss_fused."""
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


def reg_takes(img, sx, kx):
    """1 where the u8 kernel gauss_reg must run: radius up to 8 and a row of
    more pixels than its 2 ceil(rx cn / 4) + 1 4-byte words (the ksize from
    sigma as OpenCV's for u8: round(6 sigma + 1) made odd)."""
    k = kx if kx else (int(sx * 6 + 1 + 0.5) | 1)
    rx = k // 2
    return (img.depth == 8 and rx <= 8 and
            img.width > 4 * (2 * ((rx * img.channels + 3) // 4) + 1))


def widef_takes(img, sx, sy, kx, ky):
    """1 where u16 must run gauss_whf + gauss_wvf (the f32 Gaussian's wide
    passes): radii up to 8 and a row of more pixels than the
    4 (2 ceil(rx cn / 4) + 4) values gauss_whf loads (gaussian.c)."""
    kx = kx if kx else (int(sx * 6 + 1 + 0.5) | 1)
    ky = ky if ky else (int((sy or sx) * 6 + 1 + 0.5) | 1)
    rx, ry = kx // 2, ky // 2
    return (img.depth == 16 and rx <= 8 and ry <= 8 and
            img.width > 4 * (2 * ((rx * img.channels + 3) // 4) + 4))


def main():
    env = {"CLV_TUNE": "gpu", "CLV_PROFILE": "2"}
    tmp = tempfile.mkdtemp(prefix="clv-gfixed-")
    photos = [("chelsea", crop(png_read(os.path.join(DATA, "chelsea.png")), 101, 37, 71, 29)),
              ("camera", crop(png_read(os.path.join(DATA, "camera.png")), 60, 90, 41, 23)),
              ("chelsea16", crop(png_read(os.path.join(DATA, "chelsea16.png")), 3, 5, 19, 13)),
              ("thin", crop(png_read(os.path.join(DATA, "camera.png")), 200, 10, 3, 35))]
    # 4 channels: the colour crop's with a varying fourth (2 channels: the CLI
    # reads gray+alpha as RGBA; test_gaussian's fixed mode has them)
    rgb = photos[0][1]
    rgba = [rgb.pixels[i * 3 + c] if c < 3 else (i * 37) % 256
            for i in range(rgb.width * rgb.height) for c in range(4)]
    photos.append(("rgba", Image(rgb.width, rgb.height, 4, 8, rgba)))
    cases = [(2.0, 0.0, 13, 13), (1.0, 0.0, 3, 5), (2.5, 0.0, 17, 1), (2.5, 0.0, 1, 17),
             (1.2, 0.7, 0, 0), (3.0, 0.0, 19, 7)]
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
            kernel = ("gauss_reg" if reg_takes(img, sx, kx) else
                      "gauss_whf" if widef_takes(img, sx, sy, kx, ky) else "gauss_fused")
            check(kernel in r.err, what + ": " + kernel + " ran", r.err)
            got = png_read(out)
            want = correlate(img, gaussian_weights(sx, kx), gaussian_weights(sy or sx, ky), border)
            d = max_diff(got.pixels, want) if len(got.pixels) == len(want) else float("inf")
            check(d <= 1.0, what + ": within 1 of the reference", "max diff %g" % d)
    return summary("gaussian-fixed")


if __name__ == "__main__":
    sys.exit(main())
