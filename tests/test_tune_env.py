#!/usr/bin/env python3
"""The tuning overrides (README, environment table): CLV_TUNE picks a
family of kernels, CLV_U8_REG which u8 register kernels run (each for any
channel count, or with a 1 for one-channel images only), CLV_REG_PY their
rows per work-item, CLV_REG_LOCAL their work-group shape, CLV_FB_BLUR
Farneback's averaging in one launch or two. Checked through the kernel
names CLV_PROFILE=2 prints: on PoCL nothing but CLV_TUNE=gpu turns the
register kernels on; there every one runs, CLV_U8_REG narrows them, per
kernel and channel count; results stay the reference's. A value the library does not know fails the
context with a message naming the variable, never a silent default."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pycheck import check, summary  # noqa: E402
from test_cli import clv, png_read, png_write, Image  # noqa: E402


def box_ref(img, k):
    """k x k mean, BORDER_REFLECT_101, rounded half up (OpenCV's blur)."""
    w, h, ch = img.width, img.height, img.channels
    r = k // 2

    def refl(i, n):
        while i < 0 or i >= n:
            i = -i if i < 0 else 2 * n - 2 - i
        return i
    out = []
    for y in range(h):
        for x in range(w):
            for c in range(ch):
                s = 0
                for dy in range(-r, r + 1):
                    for dx in range(-r, r + 1):
                        s += img.pixels[(refl(y + dy, h) * w + refl(x + dx, w)) * ch + c]
                out.append(int(s / (k * k) + 0.5))
    return out


def resize_ref(img, dw, dh):
    """OpenCV's INTER_LINEAR: centres aligned, edges replicated."""
    w, h, ch = img.width, img.height, img.channels

    def taps(d, n, dn):
        s = (d + 0.5) * n / dn - 0.5
        i = int(s // 1)
        a = s - i
        if i < 0:
            return 0, 0, 0.0
        if i >= n - 1:
            return n - 1, n - 1, 0.0
        return i, i + 1, a
    out = []
    for y in range(dh):
        y0, y1, ay = taps(y, h, dh)
        for x in range(dw):
            x0, x1, ax = taps(x, w, dw)
            for c in range(ch):
                def px(xx, yy):
                    return img.pixels[(yy * w + xx) * ch + c]
                top = px(x0, y0) * (1 - ax) + px(x1, y0) * ax
                bot = px(x0, y1) * (1 - ax) + px(x1, y1) * ax
                out.append(int(top * (1 - ay) + bot * ay + 0.5))
    return out


def main():
    tmp = tempfile.mkdtemp(prefix="clv-tune-")
    # wide enough for every u8 register kernel and wide pass (more pixels
    # than the values one work-item loads, box_wh's 48)
    gray = Image(53, 17, 1, 8, [(x * 37 + y * 101 + x * y) % 256 for y in range(17)
                                for x in range(53)])
    rgb = Image(53, 9, 3, 8, [(i * 53 + (i // 7) * 11) % 256 for i in range(53 * 9 * 3)])
    paths = {}
    for name, img in (("gray", gray), ("rgb", rgb)):
        paths[name] = os.path.join(tmp, name + ".png")
        png_write(paths[name], img)

    def run(env, name, op="box"):
        out = os.path.join(tmp, "out.png")
        if op == "box":
            args = ["--time", "box", "--ksize", "5x5", paths[name], out]
        elif op == "gaussian":
            args = ["--time", "gaussian", "--sigma", "1.5", paths[name], out]
        elif op == "resize":
            args = ["--time", "resize", "--size", "37x20", paths[name], out]
        elif op in ("pyramid", "pyramid5"):
            n = 5 if op == "pyramid5" else 4
            args = ["--time", "pyramid", "--levels", str(n), paths[name],
                    os.path.join(tmp, "pyr.png")]
            out = os.path.join(tmp, "pyr_%d.png" % (n - 1))  # the last level
        elif op == "flow":
            out = os.path.join(tmp, "out.flo")
            args = ["--time", "flow", "--levels", "1", paths[name], paths[name], out]
        else:
            args = ["--time", "transpose", paths[name], out]
        e = {"CLV_PROFILE": "2", "CLV_TUNE": "", "CLV_U8_REG": "", "CLV_REG_PY": "",
             "CLV_REG_LOCAL": "", "CLV_FB_BLUR": ""}
        e.update(env)
        return clv(*args, env=e), out

    # the device the tests run on: PoCL's CPU keeps its own kernels by
    # default, a GPU takes box_reg for one channel (context.c's table)
    r = clv("devices")
    sel = [ln for ln in r.out.split("\n") if "(selected" in ln]
    on_gpu = bool(sel) and sel[0].split()[1] == "gpu"
    # (environment, image, kernel that must run, kernel that must not)
    cases = [({}, "gray", "box_reg", None) if on_gpu else ({}, "gray", None, "box_reg"),
             ({"CLV_TUNE": "gpu"}, "gray", "box_reg", None),
             ({"CLV_TUNE": "gpu"}, "rgb", "box_reg", None),
             ({"CLV_TUNE": "gpu", "CLV_U8_REG": "box1"}, "gray", "box_reg", None),
             ({"CLV_TUNE": "gpu", "CLV_U8_REG": "box1"}, "rgb", "box_small", "box_reg"),
             ({"CLV_TUNE": "gpu", "CLV_U8_REG": "none"}, "gray", "box_small", "box_reg"),
             ({"CLV_TUNE": "gpu", "CLV_U8_REG": "half,transpose1"}, "gray", "box_small",
              "box_reg"),
             ({"CLV_TUNE": "gpu", "CLV_U8_REG": "gauss,box"}, "rgb", "box_reg", None),
             ({"CLV_TUNE": "gpu", "CLV_U8_REG": "boxw"}, "gray", "box_wv", "box_reg"),
             ({"CLV_TUNE": "gpu", "CLV_U8_REG": "boxw"}, "rgb", "box_wh", "box_small"),
             ({"CLV_TUNE": "gpu", "CLV_U8_REG": "boxw1"}, "rgb", "box_small", "box_wh"),
             ({"CLV_TUNE": "gpu", "CLV_U8_REG": "boxw1", "CLV_REG_PY": "2"}, "gray", "box_wh",
              "box_small"),
             ({"CLV_TUNE": "gpu", "CLV_REG_PY": "3"}, "gray", "box_reg", None),
             ({"CLV_TUNE": "gpu", "CLV_REG_PY": "1"}, "rgb", "box_reg", None),
             ({"CLV_TUNE": "gpu", "CLV_REG_LOCAL": "8x32"}, "gray", "box_reg", None),
             ({"CLV_TUNE": "gpu", "CLV_REG_LOCAL": "driver"}, "gray", "box_reg", None),
             ({"CLV_TUNE": "gpu", "CLV_U8_REG": "boxw", "CLV_REG_LOCAL": "3x5"}, "rgb",
              "box_wv", "box_small"),
             ({"CLV_TUNE": "generic"}, "gray", "box_small", "box_reg")]

    def ran(env, name, op, want, not_want):
        """Runs op on image name under env and checks which kernels ran:
        (label, the output pixels, or None when it failed)."""
        what = "%s %s %s" % (op, name,
                             " ".join("%s=%s" % kv for kv in env.items()) or "default")
        r, out = run(env, name, op)
        if not check(r.code == 0, what + ": runs", r.describe()):
            return what, None
        if want:
            check(want in r.err, what + ": " + want + " ran", r.err)
        if not_want:
            check(not_want not in r.err, what + ": no " + not_want, r.err)
        return what, png_read(out).pixels

    def near(what, got, ref):
        d = max(abs(a - b) for a, b in zip(got, ref)) if len(got) == len(ref) else 999
        check(d <= 1, what + ": within 1 of the reference", "max diff %d" % d)

    for env, name, want, not_want in cases:
        what, got = ran(env, name, "box", want, not_want)
        if got is not None:
            near(what, got, box_ref(gray if name == "gray" else rgb, 5))
    for env, name, want, not_want in (
            ({"CLV_TUNE": "gpu", "CLV_U8_REG": "transpose1"}, "gray", "transpose_reg", None),
            ({"CLV_TUNE": "gpu", "CLV_U8_REG": "transpose1", "CLV_REG_LOCAL": "5x7"}, "gray",
             "transpose_reg", None),
            ({"CLV_TUNE": "gpu", "CLV_U8_REG": "transpose1"}, "rgb", None, "transpose_reg"),
            ({"CLV_TUNE": "gpu", "CLV_U8_REG": "transpose"}, "rgb", "transpose_rgb",
             "transpose_reg")):
        what, got = ran(env, name, "transpose", want, not_want)
        if got is not None:
            img = gray if name == "gray" else rgb
            ch = img.channels
            ref = [img.pixels[(x * img.width + y) * ch + c] for y in range(img.width)
                   for x in range(img.height) for c in range(ch)]
            check(got == ref, what + ": transposed", "")

    # the u8 upscaling resize (resize_up_reg), its own CLV_U8_REG word and
    # any work-group shape
    for env, name, want, not_want in (
            ({"CLV_TUNE": "gpu"}, "gray", "resize_up_reg", None),
            ({"CLV_TUNE": "gpu", "CLV_REG_LOCAL": "3x5", "CLV_REG_PY": "3"}, "rgb",
             "resize_up_reg", None),
            ({"CLV_TUNE": "gpu", "CLV_U8_REG": "up1"}, "rgb", "resize_bilinear",
             "resize_up_reg"),
            ({"CLV_TUNE": "gpu", "CLV_U8_REG": "none"}, "gray", "resize_bilinear",
             "resize_up_reg")):
        what, got = ran(env, name, "resize", want, not_want)
        if got is not None:
            near(what, got, resize_ref(gray if name == "gray" else rgb, 37, 20))

    # the u8 gray pyramid's steps per launch: pyr_reg one, pyr2 pyr_reg2's two,
    # pyr3 pyr_reg3's three (4 levels: one launch), at any work-group shape;
    # both words only where pyr runs (else pyr_down); every one the same bytes
    pyr_want = None
    for env, want, not_want in (
            ({"CLV_TUNE": "gpu", "CLV_U8_REG": "pyr"}, "pyr_reg", "pyr_reg2"),
            ({"CLV_TUNE": "gpu", "CLV_U8_REG": "pyr,pyr2"}, "pyr_reg2", "pyr_reg3"),
            ({"CLV_TUNE": "gpu", "CLV_U8_REG": "pyr,pyr3"}, "pyr_reg3", "pyr_reg2"),
            ({"CLV_TUNE": "gpu", "CLV_U8_REG": "pyr,pyr3", "CLV_REG_LOCAL": "3x5"}, "pyr_reg3",
             "pyr_reg2"),
            ({"CLV_TUNE": "gpu"}, "pyr_reg3", "pyr_down"),
            ({"CLV_TUNE": "gpu", "CLV_U8_REG": "pyr2,pyr3"}, "pyr_down", "pyr_reg")):
        what, got = ran(env, "gray", "pyramid", want, not_want)
        if got is not None:
            if pyr_want is None:
                pyr_want = got
            check(got == pyr_want, what + ": level 3 as pyr_reg's", "")

    # levels too narrow for pyr_reg's loads (16 values: 14 and 7 pixels
    # here) go to pyr_down, a step at a time, also where pyr_reg2 would
    # have made two; the same bytes
    pyr5_want = None
    for env, want, not_want in (
            ({"CLV_TUNE": "gpu", "CLV_U8_REG": "pyr"}, ("pyr_reg ", "pyr_down"), "pyr_reg2"),
            ({"CLV_TUNE": "gpu", "CLV_U8_REG": "pyr,pyr2"}, ("pyr_reg2", "pyr_down"),
             "pyr_reg "),
            ({"CLV_TUNE": "gpu", "CLV_U8_REG": "pyr,pyr3"}, ("pyr_reg3", "pyr_down"),
             "pyr_reg2")):
        what, got = ran(env, "gray", "pyramid5", None, not_want)
        r, _ = run(env, "gray", "pyramid5")
        for k in want:
            check(k in r.err, what + ": " + k.strip() + " ran", r.err)
        if got is not None:
            if pyr5_want is None:
                pyr5_want = got
            check(got == pyr5_want, what + ": level 4 as pyr_reg's", "")

    # the Gaussian's wide passes: named, they run, and agree with gauss_fused
    # within the u8 rounding
    for name in ("gray", "rgb"):
        what = "gaussian %s CLV_U8_REG=gaussw" % name
        r, out = run({"CLV_TUNE": "gpu", "CLV_U8_REG": "gaussw"}, name, "gaussian")
        if check(r.code == 0, what + ": runs", r.describe()):
            check("gauss_wh" in r.err and "gauss_wv" in r.err and "gauss_fused" not in r.err,
                  what + ": gauss_wh and gauss_wv ran", r.err)
            wide = png_read(out).pixels
            r, out = run({"CLV_TUNE": "gpu", "CLV_U8_REG": "none"}, name, "gaussian")
            if check(r.code == 0 and "gauss_fused" in r.err, what + ": gauss_fused runs",
                     r.describe()):
                fused = png_read(out).pixels
                d = max(abs(a - b) for a, b in zip(wide, fused)) if len(wide) == len(
                    fused) else 999
                check(d <= 1, what + ": within 1 of gauss_fused", "max diff %d" % d)

    # Farneback's averaging: one launch (fb_blur_solve) with CLV_TUNE=gpu or
    # CLV_FB_BLUR=fused (at any work-group shape), the two passes with CLV_FB_BLUR=two and by default
    # (no GPU row has it yet; CPUs run their 16-wide passes). Its results:
    # test_farneback fused.
    for env, want, not_want in (
            ({}, "fb_blur_h_solve", "fb_blur_solve"),
            ({"CLV_TUNE": "gpu"}, "fb_blur_solve", "fb_blur_v"),
            ({"CLV_TUNE": "gpu", "CLV_FB_BLUR": "two"}, "fb_blur_h_solve", "fb_blur_solve"),
            ({"CLV_TUNE": "generic", "CLV_FB_BLUR": "fused"}, "fb_blur_solve", "fb_blur_v"),
            ({"CLV_TUNE": "generic", "CLV_FB_BLUR": "fused:7x3"}, "fb_blur_solve",
             "fb_blur_v"),
            ({"CLV_TUNE": "generic"}, "fb_blur_h_solve", "fb_blur_solve")):
        what = "flow gray " + (" ".join("%s=%s" % kv for kv in env.items()) or "default")
        r, _ = run(env, "gray", "flow")
        if check(r.code == 0, what + ": runs", r.describe()):
            check(want in r.err, what + ": " + want + " ran", r.err)
            check(not_want not in r.err, what + ": no " + not_want, r.err)

    for var, val in (("CLV_TUNE", "fast"), ("CLV_FB_BLUR", "one"), ("CLV_FB_BLUR", "fused:"),
                     ("CLV_FB_BLUR", "fused:0x8"), ("CLV_FB_BLUR", "fusedx"),
                     ("CLV_FB_BLUR", "two:8x8"), ("CLV_FB_BLUR", "fused: 4x4"),
                     ("CLV_FB_BLUR", "fused:+4x4"), ("CLV_REG_LOCAL", "4x 4"), ("CLV_U8_REG", "box,blur"), ("CLV_U8_REG", "box2"),
                     ("CLV_U8_REG", "boxw2"), ("CLV_U8_REG", "gaussw,gaus"),
                     ("CLV_REG_PY", "0"), ("CLV_REG_PY", "33"), ("CLV_REG_PY", "4x"),
                     ("CLV_REG_LOCAL", "8x"), ("CLV_REG_LOCAL", "0x8"), ("CLV_REG_LOCAL", "8"),
                     ("CLV_REG_LOCAL", "4096x4096"), ("CLV_U8_REG", "up2"),
                     ("CLV_U8_REG", "pyr4")):
        r, out = run({var: val}, "gray")
        check(r.code != 0 and var in r.err and val in r.err,
              "%s=%s: the context fails, naming it" % (var, val), r.describe())
    return summary("tune-env")


if __name__ == "__main__":
    sys.exit(main())
