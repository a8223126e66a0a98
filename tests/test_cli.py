#!/usr/bin/env python3
"""End-to-end tests of the clv command-line tool.

Environment: CLV_CLI (path of the clv binary, required), CLV_TEST_DATA (the
tests/data directory with chelsea.png and camera.png), CLV_KERNEL_PATH.
Standard library only: PNG files are written and read by the small codec
below (8/16-bit, non-interlaced gray, gray+alpha, RGB, RGBA).

Prints "cli: N passed, M failed" and exits 1 when anything failed.
"""

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

from pycheck import check, summary

CLI = os.environ.get("CLV_CLI")
DATA = os.environ.get("CLV_TEST_DATA", os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
TIMEOUT = 240




# ---- PNG codec ---------------------------------------------------------

CHANNELS = {0: 1, 4: 2, 2: 3, 6: 4}
COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}


class Image:
    """width x height x channels values (ints), row-major, 8 or 16 bits."""

    def __init__(self, width, height, channels, depth, pixels):
        self.width, self.height, self.channels, self.depth = width, height, channels, depth
        self.pixels = list(pixels)
        assert len(self.pixels) == width * height * channels

    def at(self, x, y, c=0):
        return self.pixels[(y * self.width + x) * self.channels + c]

    def __repr__(self):
        return "Image(%dx%d, %d ch, %d bit)" % (self.width, self.height, self.channels, self.depth)


def png_write(path, img):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    fmt = ">%dH" if img.depth == 16 else "%dB"
    row_len = img.width * img.channels
    raw = bytearray()
    for y in range(img.height):
        raw.append(0)
        raw += struct.pack(fmt % row_len, *img.pixels[y * row_len:(y + 1) * row_len])
    ihdr = struct.pack(">IIBBBBB", img.width, img.height, img.depth, COLOR_TYPE[img.channels], 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(raw)))
                + chunk(b"IEND", b""))


def png_header(path):
    """(width, height, bit depth, color type) from IHDR."""
    with open(path, "rb") as f:
        head = f.read(33)
    if len(head) < 33 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise ValueError("%s: not a PNG" % path)
    w, h, depth, ctype = struct.unpack(">IIBB", head[16:26])
    return w, h, depth, ctype


def png_read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s: not a PNG" % path)
    pos, idat, ihdr = 8, bytearray(), None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth not in (8, 16) or ctype not in CHANNELS or interlace:
        raise ValueError("%s: unsupported PNG (depth %d, color type %d, interlace %d)"
                         % (path, depth, ctype, interlace))
    ch = CHANNELS[ctype]
    bpp = ch * depth // 8
    stride = w * bpp
    raw = zlib.decompress(bytes(idat))
    out = bytearray()
    prev = bytearray(stride)
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ft == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif ft == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xFF
        elif ft == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ft == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if (pa <= pb and pa <= pc) else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        elif ft != 0:
            raise ValueError("%s: bad filter type %d" % (path, ft))
        out += line
        prev = line
    if depth == 16:
        pixels = struct.unpack(">%dH" % (len(out) // 2), bytes(out))
    else:
        pixels = out
    return Image(w, h, ch, depth, pixels)


# ---- synthetic inputs and plain references ------------------------------

def pattern(width, height, channels, depth, seed):
    top = (1 << depth) - 1
    vals = []
    state = seed
    for y in range(height):
        for x in range(width):
            for c in range(channels):
                state = (state * 1103515245 + 12345) & 0x7FFFFFFF
                smooth = (x * 7 + y * 13 + c * 50) % (top + 1)
                vals.append((smooth + (state >> 16)) % (top + 1))
    return Image(width, height, channels, depth, vals)


def border_index(i, n, mode):
    if 0 <= i < n:
        return i
    if mode == "constant":
        return None
    if n == 1:
        return 0
    if mode == "replicate":
        return 0 if i < 0 else n - 1
    if mode == "wrap":
        return i % n
    while i < 0 or i >= n:
        if mode == "reflect":
            i = -i - 1 if i < 0 else 2 * n - i - 1
        else:  # reflect101
            i = -i if i < 0 else 2 * n - i - 2
    return i


def correlate(img, kx, ky, border):
    """Separable filter with weight lists kx, ky anchored at len//2 (the centre
    for odd lengths; OpenCV's anchor for even ones). Unrounded."""
    ax, ay = len(kx) // 2, len(ky) // 2
    out = []
    for y in range(img.height):
        for x in range(img.width):
            for c in range(img.channels):
                acc = 0.0
                for j, wy in enumerate(ky):
                    sy = border_index(y + j - ay, img.height, border)
                    for i, wx in enumerate(kx):
                        sx = border_index(x + i - ax, img.width, border)
                        v = 0 if sx is None or sy is None else img.at(sx, sy, c)
                        acc += wx * wy * v
                out.append(acc)
    return out


def gaussian_weights(sigma, ksize):
    import math
    if ksize == 0:
        ksize = 2 * math.ceil(3 * sigma) + 1
    r = ksize // 2
    w = [math.exp(-((i - r) ** 2) / (2 * sigma * sigma)) for i in range(ksize)]
    s = sum(w)
    return [v / s for v in w]


def resize_ref(img, dw, dh):
    out = []
    for dy in range(dh):
        sy = min(max((dy + 0.5) * img.height / dh - 0.5, 0.0), img.height - 1)
        y0 = int(sy)
        y1 = min(y0 + 1, img.height - 1)
        fy = sy - y0
        for dx in range(dw):
            sx = min(max((dx + 0.5) * img.width / dw - 0.5, 0.0), img.width - 1)
            x0 = int(sx)
            x1 = min(x0 + 1, img.width - 1)
            fx = sx - x0
            for c in range(img.channels):
                top = img.at(x0, y0, c) * (1 - fx) + img.at(x1, y0, c) * fx
                bot = img.at(x0, y1, c) * (1 - fx) + img.at(x1, y1, c) * fx
                out.append(top * (1 - fy) + bot * fy)
    return out


def max_diff(got, want):
    return max((abs(a - b) for a, b in zip(got, want)), default=0.0)


def pfm_write(path, width, height, channels, values):
    """values: row-major, top row first (PFM stores rows bottom to top)."""
    n = width * channels
    with open(path, "wb") as f:
        f.write(b"%s\n%d %d\n-1.0\n" % (b"PF" if channels == 3 else b"Pf", width, height))
        for y in reversed(range(height)):
            f.write(struct.pack("<%df" % n, *values[y * n:(y + 1) * n]))


def bilateral_ref(img, sigma_space, sigma_range, radius, border):
    """Brute-force bilateral as documented in clvision/edge.h: the disc
    i^2 + j^2 <= radius^2 (pixels outside a constant border are left out).
    Unrounded."""
    import math
    out = []
    for y in range(img.height):
        for x in range(img.width):
            centre = [img.at(x, y, c) for c in range(img.channels)]
            acc = [0.0] * img.channels
            wsum = 0.0
            for j in range(-radius, radius + 1):
                sy = border_index(y + j, img.height, border)
                for i in range(-radius, radius + 1):
                    if i * i + j * j > radius * radius:
                        continue
                    sx = border_index(x + i, img.width, border)
                    if sx is None or sy is None:
                        continue
                    v = [img.at(sx, sy, c) for c in range(img.channels)]
                    d2 = sum(abs(a - b) for a, b in zip(v, centre)) ** 2  # L1, squared
                    w = math.exp(-(i * i + j * j) / (2 * sigma_space ** 2) - d2 / (2 * sigma_range ** 2))
                    wsum += w
                    acc = [a + w * b for a, b in zip(acc, v)]
            out.extend(a / wsum for a in acc)
    return out


def constant_image(width, height, value, depth=8):
    """value: a number (gray) or a tuple (one per channel)."""
    vals = value if isinstance(value, tuple) else (value,)
    return Image(width, height, len(vals), depth, list(vals) * (width * height))


def step_image(width, height, left, right, channels=1, depth=8):
    """Left half `left`, right half `right` (numbers, repeated per channel)."""
    px = []
    for y in range(height):
        for x in range(width):
            px.extend([left if x < width // 2 else right] * channels)
    return Image(width, height, channels, depth, px)


def hdr_ramp(width, height, channels):
    """Linear-light values from 2^-8 on the left to 2^8 on the right, with
    a texture of +-50 % in 4-pixel stripes; colour (0.9, 0.6, 0.3)."""
    vals = []
    tint = (0.9, 0.6, 0.3) if channels == 3 else (0.7,)
    for y in range(height):
        for x in range(width):
            v = 2.0 ** (-8 + 16 * x / (width - 1)) * (1.5 if (y // 4) % 2 else 0.5)
            vals.extend(v * t for t in tint)
    return vals


# ---- running the tool ---------------------------------------------------

class Result:
    def __init__(self, args, proc):
        self.args = args
        self.code = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr

    def describe(self):
        return "clv %s -> exit %d, stdout %r, stderr %r" % (
            " ".join(self.args), self.code, self.out[-600:], self.err[-600:])


def clv(*args, env=None, cwd=None):
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    try:
        proc = subprocess.run([CLI] + list(args), capture_output=True, text=True, env=full_env,
                              cwd=cwd, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        class P:
            returncode = -999
            stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            stderr = "timed out after %d s" % TIMEOUT
        proc = P()
    return Result(list(args), proc)


def ok(r, what):
    return check(r.code == 0 and r.err == "", what, r.describe())


def one_error_line(r):
    lines = r.err.split("\n")
    return (1 <= r.code <= 127 and r.err.endswith("\n") and len(lines) == 2
            and lines[0].startswith("clv: ") and len(lines[0]) > len("clv: x: "))


def same_image(a, b):
    return (a.width, a.height, a.channels, a.depth) == (b.width, b.height, b.channels, b.depth) \
        and list(a.pixels) == list(b.pixels)


# ---- the tests ----------------------------------------------------------

def test_usage(tmp):
    r = clv("--help")
    check(r.code == 0 and "usage" in r.out and r.err == "", "--help prints usage, exit 0", r.describe())
    r = clv()
    check(r.code == 2 and "usage" in r.out and one_error_line(r), "no command: usage, exit 2",
          r.describe())
    r = clv("box", "--help")
    check(r.code == 0 and "--ksize" in r.out and r.err == "", "box --help", r.describe())
    r = clv("--version")
    check(r.code == 0 and re.match(r"^clv \d+\.\d+\.\d+\n$", r.out), "--version", r.describe())


def test_devices(tmp):
    r = clv("devices")
    lines = [l for l in r.out.split("\n") if l.strip()]
    ok(r, "devices exits 0 with nothing on stderr")
    check(len(lines) >= 1, "devices lists at least one device", r.describe())
    check(all(re.match(r"^\d+:\d+\s", l) for l in lines), "devices lines start with P:D", r.describe())
    return lines


def test_transpose(tmp, inputs):
    for name, path, img in inputs:
        once = os.path.join(tmp, name + "_t1.png")
        twice = os.path.join(tmp, name + "_t2.png")
        r = clv("transpose", path, once)
        if not ok(r, "transpose %s" % name):
            continue
        t = png_read(once)
        check((t.width, t.height, t.channels, t.depth) == (img.height, img.width, img.channels, img.depth),
              "transpose %s shape and type" % name, "%r vs %r" % (t, img))
        good = all(t.at(x, y, c) == img.at(y, x, c)
                   for y in range(t.height) for x in range(t.width) for c in range(t.channels)) \
            if (t.width, t.height) == (img.height, img.width) else False
        check(good, "transpose %s: out(x, y) == in(y, x)" % name)
        r = clv("transpose", once, twice)
        if ok(r, "transpose %s back" % name):
            check(same_image(png_read(twice), img), "transpose twice == original (%s)" % name)


def test_resize(tmp, inputs):
    for name, path, img in inputs:
        out = os.path.join(tmp, name + "_r.png")
        dw, dh = img.width * 2 + 3, max(1, img.height // 2)
        r = clv("resize", "--size", "%dx%d" % (dw, dh), path, out)
        if ok(r, "resize %s" % name):
            w, h, depth, ctype = png_header(out)
            check((w, h) == (dw, dh), "resize %s size" % name, "%dx%d, wanted %dx%d" % (w, h, dw, dh))
            check(depth == img.depth and ctype == COLOR_TYPE[img.channels],
                  "resize %s keeps the pixel type" % name, "depth %d type %d" % (depth, ctype))
        same = os.path.join(tmp, name + "_rsame.png")
        r = clv("resize", "--size=%dx%d" % (img.width, img.height), path, same)
        if ok(r, "resize %s to its own size" % name):
            check(same_image(png_read(same), img), "resize to the same size is the identity (%s)" % name)

    # Against a plain bilinear reference, non-square to catch a W/H mix-up.
    name, path, img = inputs[0]
    out = os.path.join(tmp, "resize_ref.png")
    r = clv("resize", "--size", "7x11", path, out)
    if ok(r, "resize 7x11"):
        got = png_read(out)
        if check((got.width, got.height) == (7, 11), "resize 7x11 shape", repr(got)):
            d = max_diff(got.pixels, resize_ref(img, 7, 11))
            check(d <= 1.0, "resize 7x11 matches bilinear reference within 1", "max diff %g" % d)


def test_box(tmp, inputs):
    for name, path, img in inputs:
        out = os.path.join(tmp, name + "_b1.png")
        r = clv("box", "--ksize", "1x1", path, out)
        if ok(r, "box 1x1 %s" % name):
            check(same_image(png_read(out), img), "box 1x1 equals input (%s)" % name)

    name, path, img = inputs[0]
    for border in ("reflect101", "replicate", "reflect", "constant", "wrap"):
        out = os.path.join(tmp, "box_%s.png" % border)
        r = clv("box", "--ksize", "5x3", "--border", border, path, out)
        if not ok(r, "box 5x3 --border %s" % border):
            continue
        got = png_read(out)
        want = correlate(img, [1 / 5] * 5, [1 / 3] * 3, border)
        d = max_diff(got.pixels, want) if len(got.pixels) == len(want) else float("inf")
        check(d <= 1.0, "box 5x3 %s matches reference within 1" % border, "max diff %g" % d)
    out = os.path.join(tmp, "box_default.png")
    r = clv("box", "--ksize=4x2", path, out)
    if ok(r, "box 4x2 (even, default border)"):
        got = png_read(out)
        d = max_diff(got.pixels, correlate(img, [1 / 4] * 4, [1 / 2] * 2, "reflect101"))
        check(d <= 1.0, "box 4x2 default border is reflect101, anchor k/2 as OpenCV", "max diff %g" % d)


def test_gaussian(tmp, inputs):
    name, path, img = inputs[0]
    out = os.path.join(tmp, "gauss.png")
    r = clv("gaussian", "--sigma", "1.5", "--sigma-y", "0.8", "--border", "replicate", path, out)
    if ok(r, "gaussian sigma 1.5/0.8"):
        got = png_read(out)
        want = correlate(img, gaussian_weights(1.5, 0), gaussian_weights(0.8, 0), "replicate")
        d = max_diff(got.pixels, want) if len(got.pixels) == len(want) else float("inf")
        check(d <= 1.0, "gaussian matches reference within 1", "max diff %g" % d)
    out = os.path.join(tmp, "gauss_k.png")
    r = clv("gaussian", "--sigma=2", "--ksize", "3x5", path, out)
    if ok(r, "gaussian --ksize 3x5"):
        got = png_read(out)
        want = correlate(img, gaussian_weights(2, 3), gaussian_weights(2, 5), "reflect101")
        d = max_diff(got.pixels, want) if len(got.pixels) == len(want) else float("inf")
        check(d <= 1.0, "gaussian --ksize 3x5 matches reference within 1", "max diff %g" % d)
    # As the library (and OpenCV's sigmaY): --sigma-y <= 0 means --sigma; the
    # generated command line takes the library's rule, no stricter copy.
    same = os.path.join(tmp, "gauss_same.png")
    for sy in ("0", "-3"):
        out = os.path.join(tmp, "gauss_sy.png")
        if ok(clv("gaussian", "--sigma", "1.5", path, same), "gaussian sigma 1.5") and \
                ok(clv("gaussian", "--sigma", "1.5", "--sigma-y", sy, path, out),
                   "gaussian --sigma-y %s" % sy):
            check(same_image(png_read(out), png_read(same)),
                  "gaussian --sigma-y %s equals --sigma-y left out" % sy)
    # global options after the command name
    r = clv("gaussian", "--sigma", "1.5", path, out, "--time")
    check(r.code == 0 and TIME_LINE.match(r.err) is not None, "--time after the command", r.describe())
    for name, path, img in inputs[1:]:
        out = os.path.join(tmp, name + "_g.png")
        r = clv("gaussian", "--sigma", "2", path, out)
        if ok(r, "gaussian %s" % name):
            got = png_read(out)
            check((got.width, got.height, got.channels, got.depth)
                  == (img.width, img.height, img.channels, img.depth),
                  "gaussian %s keeps shape and type" % name, "%r vs %r" % (got, img))


def test_bilateral(tmp, inputs):
    # Same shape and type for every input; sigma-range is in the image's units.
    for name, path, img in inputs:
        out = os.path.join(tmp, name + "_bil.png")
        sr = "5000" if img.depth == 16 else "30"
        r = clv("bilateral", "--sigma-space", "1.5", "--sigma-range", sr, path, out)
        if ok(r, "bilateral %s" % name):
            got = png_read(out)
            check((got.width, got.height, got.channels, got.depth)
                  == (img.width, img.height, img.channels, img.depth),
                  "bilateral %s keeps shape and type" % name, "%r vs %r" % (got, img))

    # Against a plain reference, two borders, explicit and default radius.
    for (name, path, img), args, ss, sr, rad, border in (
            (inputs[0], ["--radius", "2", "--border", "replicate"], 1.5, 40.0, 2, "replicate"),
            (inputs[1], ["--border=wrap"], 1.0, 25.0, 3, "wrap"),
            (inputs[2], ["--radius=1", "--border", "constant"], 2.0, 9000.0, 1, "constant")):
        out = os.path.join(tmp, name + "_bilref.png")
        r = clv("bilateral", "--sigma-space", str(ss), "--sigma-range", str(sr), *args, path, out)
        if ok(r, "bilateral %s %s" % (name, " ".join(args))):
            got = png_read(out)
            want = bilateral_ref(img, ss, sr, rad, border)
            d = max_diff(got.pixels, want) if len(got.pixels) == len(want) else float("inf")
            check(d <= 1.0, "bilateral %s %s matches the reference within 1" % (name, border),
                  "max diff %g" % d)

    # As the library (and OpenCV's d <= 0): --radius <= 0 means ceil(3 sigma).
    name, path, img = inputs[0]
    a, b = os.path.join(tmp, "bil_r0.png"), os.path.join(tmp, "bil_rneg.png")
    if ok(clv("bilateral", "--sigma-space", "1", "--sigma-range", "30", "--radius", "0", path, a),
          "bilateral --radius 0") and \
            ok(clv("bilateral", "--sigma-space", "1", "--sigma-range", "30", "--radius", "-1", path,
                   b), "bilateral --radius -1"):
        check(same_image(png_read(a), png_read(b)), "bilateral --radius -1 equals --radius 0")

    # A constant image stays that constant, 8 and 16 bits.
    for img, sr in ((constant_image(20, 15, (77, 140, 200)), "10"),
                    (constant_image(17, 9, 40000, depth=16), "300")):
        src = os.path.join(tmp, "const%d.png" % img.depth)
        out = os.path.join(tmp, "const%d_bil.png" % img.depth)
        png_write(src, img)
        r = clv("bilateral", "--sigma-space", "2", "--sigma-range", sr, src, out)
        if ok(r, "bilateral on a constant %d-bit image" % img.depth):
            check(same_image(png_read(out), img), "bilateral keeps a constant %d-bit image" % img.depth)

    # A 30/220 step survives a small sigma-range and is blurred by a huge one.
    step = step_image(40, 12, 30, 220)
    src = os.path.join(tmp, "step.png")
    png_write(src, step)
    out = os.path.join(tmp, "step_bil.png")
    r = clv("bilateral", "--sigma-space", "3", "--sigma-range", "10", src, out)
    if ok(r, "bilateral on a step, sigma-range 10"):
        check(same_image(png_read(out), step), "bilateral with sigma-range 10 keeps a 190 step")
    r = clv("bilateral", "--sigma-space", "3", "--sigma-range", "1e6", src, out)
    if ok(r, "bilateral on a step, sigma-range 1e6"):
        got = png_read(out)
        check(60 < got.at(19, 6) < 190 and 60 < got.at(20, 6) < 190,
              "bilateral with a huge sigma-range blurs the step like a Gaussian",
              "%d %d" % (got.at(19, 6), got.at(20, 6)))


def test_grid(tmp, inputs):
    for name, path, img in inputs:
        out = os.path.join(tmp, name + "_grid.png")
        sr = "2000" if img.depth == 16 else "25.5"
        r = clv("grid", "--sigma-space", "4", "--sigma-range", sr, path, out)
        if ok(r, "grid %s" % name):
            got = png_read(out)
            check((got.width, got.height, got.channels, got.depth)
                  == (img.width, img.height, img.channels, img.depth),
                  "grid %s keeps shape and type" % name, "%r vs %r" % (got, img))

    def levels_kept(out_path, img, tol):
        got = png_read(out_path)
        if (got.width, got.height, got.channels) != (img.width, img.height, img.channels):
            return False, repr(got)
        d = max_diff(got.pixels, img.pixels)
        return d <= tol, "max diff %g" % d

    # Two levels 40 / 200, 8-bit: each stays within 2 of its level.
    step = step_image(64, 48, 40, 200)
    src = os.path.join(tmp, "gstep.png")
    png_write(src, step)
    out = os.path.join(tmp, "gstep_grid.png")
    for blur in ("1", "0", "2.5"):
        r = clv("grid", "--sigma-space", "8", "--sigma-range", "20", "--blur", blur, src, out)
        if ok(r, "grid on a step, --blur %s" % blur):
            good, detail = levels_kept(out, step, 2)
            check(good, "grid --blur %s keeps both levels of a step within 2" % blur, detail)
    # The library's defaults (s_s 16, s_r 25.5) when the options are left out:
    # the command line has no stricter copy of the rules.
    dflt, given = os.path.join(tmp, "gdefault.png"), os.path.join(tmp, "ggiven.png")
    if ok(clv("grid", src, dflt), "grid with the defaults") and \
            ok(clv("grid", "--sigma-space", "16", "--sigma-range", "25.5", src, given),
               "grid 16/25.5"):
        check(same_image(png_read(dflt), png_read(given)), "grid's defaults are 16 and 25.5")
    const = constant_image(30, 20, (90, 160, 20))
    csrc = os.path.join(tmp, "gconst.png")
    png_write(csrc, const)
    r = clv("grid", "--sigma-space=5", "--sigma-range=10", csrc, out)
    if ok(r, "grid on a constant RGB image"):
        good, detail = levels_kept(out, const, 1)
        check(good, "grid keeps a constant RGB image within 1", detail)

    # Cross: the edges come from --edge. The same step given as RGB (turned
    # into its luma on the host) keeps it; a flat edge image blurs it.
    edge_rgb = os.path.join(tmp, "gedge_rgb.png")
    png_write(edge_rgb, step_image(64, 48, 40, 200, channels=3))
    r = clv("grid", "--sigma-space", "8", "--sigma-range", "20", "--edge", edge_rgb, src, out)
    if ok(r, "grid --edge RGB step"):
        good, detail = levels_kept(out, step, 2)
        check(good, "grid --edge with the same step (RGB) keeps both levels within 2", detail)
    edge16 = os.path.join(tmp, "gedge16.png")
    png_write(edge16, step_image(64, 48, 10000, 50000, depth=16))
    r = clv("grid", "--sigma-space", "8", "--sigma-range", "5000", "--edge=" + edge16, src, out)
    if ok(r, "grid --edge 16-bit step, sigma-range in its units"):
        good, detail = levels_kept(out, step, 2)
        check(good, "grid --edge 16-bit keeps both levels within 2", detail)
    flat = os.path.join(tmp, "gedge_flat.png")
    png_write(flat, constant_image(64, 48, 128))
    r = clv("grid", "--sigma-space", "8", "--sigma-range", "20", "--edge", flat, src, out)
    if ok(r, "grid --edge flat"):
        got = png_read(out)
        mid = [got.at(x, 24) for x in (30, 31, 32, 33)]
        check(all(60 < v < 180 for v in mid), "grid --edge with a flat edge image blurs the step",
              repr(mid))


def test_tonemap(tmp, inputs):
    r = clv("tonemap", "--help")
    check(r.code == 0 and r.err == "" and r.out.count("(default ") == 7 and "default 5)" in r.out
          and "default 1.3)" in r.out, "tonemap --help gives the 7 defaults", r.describe())

    w, h = 48, 32
    rgb = os.path.join(tmp, "ramp.pfm")
    pfm_write(rgb, w, h, 3, hdr_ramp(w, h, 3))
    gray = os.path.join(tmp, "ramp_gray.pfm")
    pfm_write(gray, w, h, 1, hdr_ramp(w, h, 1))

    def column_mean(img, x, c=1):
        return sum(img.at(x, y, c) for y in range(img.height)) / img.height

    out = os.path.join(tmp, "ramp_tm.png")
    r = clv("tonemap", rgb, out)
    if ok(r, "tonemap an RGB PFM"):
        check(png_header(out) == (w, h, 8, 2), "tonemap output is 8-bit RGB of the input size",
              repr(png_header(out)))
        got = png_read(out)
        g = got.pixels[1::3]
        check(max(g) - min(g) >= 100, "tonemap output spreads over the 8-bit range",
              "%d..%d" % (min(g), max(g)))
        check(column_mean(got, 0) + 40 < column_mean(got, w - 1),
              "tonemap keeps dark left, bright right",
              "%g vs %g" % (column_mean(got, 0), column_mean(got, w - 1)))
        check(all(got.at(x, y, 0) >= got.at(x, y, 2) for y in range(h) for x in range(w)),
              "tonemap keeps the warm tint (R >= B)")
    out = os.path.join(tmp, "ramp_gray_tm.png")
    r = clv("tonemap", gray, out)
    if ok(r, "tonemap a gray PFM"):
        got = png_read(out)
        check((got.width, got.height, got.channels, got.depth) == (w, h, 3, 8),
              "tonemap of gray input is RGB", repr(got))
        check(all(got.pixels[i] == got.pixels[i + 1] == got.pixels[i + 2]
                  for i in range(0, len(got.pixels), 3)), "tonemap of gray input is gray")
    out = os.path.join(tmp, "ramp_sat0.png")
    r = clv("tonemap", "--saturation", "0", "--blend", "0", "--contrast", "3", "--gamma", "2.2",
            "--sigma-space", "4", "--sigma-range=0.5", rgb, out)
    if ok(r, "tonemap with every option"):
        got = png_read(out)
        check(all(got.pixels[i] == got.pixels[i + 1] == got.pixels[i + 2]
                  for i in range(0, len(got.pixels), 3)), "tonemap --saturation 0 gives gray")
    dark, bright = os.path.join(tmp, "ramp_dark.png"), os.path.join(tmp, "ramp_bright.png")
    if ok(clv("tonemap", "--exposure", "-2", rgb, dark), "tonemap --exposure -2") and \
            ok(clv("tonemap", "--exposure=2", rgb, bright), "tonemap --exposure 2"):
        a, b = png_read(dark), png_read(bright)
        check(sum(a.pixels) < sum(b.pixels), "tonemap --exposure 2 is brighter than -2")

    # A 16-bit PNG is linear input; output is RGB 8-bit of its size.
    for name, path, img in inputs:
        if img.depth != 16:
            continue
        out = os.path.join(tmp, name + "_tm.png")
        if ok(clv("tonemap", path, out), "tonemap a 16-bit PNG (%s)" % name):
            check(png_header(out) == (img.width, img.height, 8, 2),
                  "tonemap of %s is 8-bit RGB of its size" % name, repr(png_header(out)))


def test_time(tmp, inputs):
    name, path, img = inputs[0]
    out = os.path.join(tmp, "timed.png")
    r = clv("--time", "box", "--ksize", "3x3", path, out)
    check(r.code == 0 and re.match(r"^time: wall [0-9.]+ ms, device [0-9.]+ ms\n$", r.err),
          "--time prints one time line", r.describe())
    check(os.path.exists(out), "--time still writes the output")
    r = clv("--time", "transpose", path, os.path.join(tmp, "timed_t.png"))
    check(r.code == 0 and re.match(r"^time: wall [0-9.]+ ms, device [0-9.]+ ms\n$", r.err),
          "--time transpose", r.describe())
    hdr = os.path.join(tmp, "timed.pfm")
    pfm_write(hdr, 16, 8, 3, hdr_ramp(16, 8, 3))
    for args in (["bilateral", "--sigma-space", "2", "--sigma-range", "20", path],
                 ["grid", "--sigma-space", "4", "--sigma-range", "20", path],
                 ["grid", "--sigma-space", "4", "--sigma-range", "20", "--edge", path, path],
                 ["tonemap", hdr]):
        timed = os.path.join(tmp, "timed_%s.png" % args[0])
        if os.path.exists(timed):
            os.remove(timed)
        r = clv("--time", *(args + [timed]))
        check(r.code == 0 and r.out == ""
              and re.match(r"^time: wall [0-9.]+ ms, device [0-9.]+ ms\n$", r.err),
              "--time %s%s prints one time line" % (args[0], " --edge" if "--edge" in args else ""),
              r.describe())
        check(os.path.exists(timed), "--time %s still writes the output" % args[0])


def test_device(tmp, inputs, device_lines):
    name, path, img = inputs[0]
    out = os.path.join(tmp, "nodev.png")
    r = clv("--device", "nosuchdevice", "transpose", path, out)
    check(one_error_line(r) and r.code == 1, "--device nosuchdevice fails with one line", r.describe())
    check("nosuchdevice" in r.err, "the error names the spec", r.describe())
    first = device_lines[0].split()[0] if device_lines else "0:0"
    check(first in r.err, "the error lists the devices (%s)" % first, r.describe())
    check(not os.path.exists(out), "no output after a device error")
    r = clv("--device", "0:0", "transpose", path, out)
    ok(r, "--device 0:0 works")


def test_errors(tmp, inputs):
    name, path, img = inputs[0]
    u16 = [p for n, p, i in inputs if i.depth == 16][0]
    garbage = os.path.join(tmp, "garbage.png")
    with open(garbage, "wb") as f:
        f.write(b"this is not an image at all" * 20)
    truncated = os.path.join(tmp, "truncated.png")
    with open(path, "rb") as f:
        whole = f.read()
    with open(truncated, "wb") as f:
        f.write(whole[:len(whole) // 2])
    empty = os.path.join(tmp, "empty.png")
    open(empty, "wb").close()
    missing = os.path.join(tmp, "does_not_exist.png")

    errdir = os.path.join(tmp, "err")
    os.mkdir(errdir)
    out = os.path.join(errdir, "out.png")
    hdr = os.path.join(tmp, "err_hdr.pfm")
    pfm_write(hdr, 8, 6, 3, hdr_ramp(8, 6, 3))
    other = [p for n, p, i in inputs if (i.width, i.height) != (img.width, img.height)][0]
    usage, runtime = 2, 1
    cases = [
        (usage, ["frobnicate", path, out]),
        (usage, ["--frobnicate", "transpose", path, out]),
        (usage, ["--device"]),
        (usage, ["transpose", path]),
        (usage, ["transpose"]),
        (usage, ["transpose", path, out, out]),
        (usage, ["transpose", "--bogus", path, out]),
        (usage, ["resize", path, out]),
        (usage, ["resize", "--size", "0x0", path, out]),
        (usage, ["resize", "--size", "10x", path, out]),
        (usage, ["resize", "--size", "x10", path, out]),
        (usage, ["resize", "--size", " 10x10", path, out]),
        (usage, ["resize", "--size", "10x10x10", path, out]),
        (usage, ["resize", "--size", "-5x10", path, out]),
        (usage, ["resize", "--size", "99999999999999999999x10", path, out]),
        (usage, ["resize", path, out, "--size"]),
        (usage, ["box", path, out]),
        (usage, ["box", "--ksize", "0x3", path, out]),
        (usage, ["box", "--ksize", "abc", path, out]),
        (usage, ["box", "--ksize", "3x3.5", path, out]),
        (usage, ["box", "--ksize", "256x3", path, out]),
        (usage, ["box", "--ksize", "3x3", "--border", "foo", path, out]),
        (usage, ["box", "--ksize", "3x3", "--border", "", path, out]),
        (usage, ["gaussian", path, out]),
        (usage, ["gaussian", "--sigma", "-1", path, out]),
        (usage, ["gaussian", "--sigma", "0", path, out]),
        (usage, ["gaussian", "--sigma", "nan", path, out]),
        (usage, ["gaussian", "--sigma", "inf", path, out]),
        (usage, ["gaussian", "--sigma", "2x", path, out]),
        (usage, ["gaussian", "--sigma", "2", "--ksize", "4x5", path, out]),
        (usage, ["gaussian", "--sigma", "2", "--border", "mirror", path, out]),
        (usage, ["devices", "extra"]),
        (usage, ["demo", "a", "b"]),
        (runtime, ["transpose", missing, out]),
        (runtime, ["transpose", garbage, out]),
        (runtime, ["transpose", truncated, out]),
        (runtime, ["transpose", empty, out]),
        (runtime, ["transpose", tmp, out]),
        (runtime, ["transpose", path, os.path.join(errdir, "out.xyz")]),
        (runtime, ["transpose", path, os.path.join(errdir, "out")]),
        (runtime, ["transpose", path, os.path.join(errdir, "nodir", "out.png")]),
        (runtime, ["box", "--ksize", "3x3", u16, os.path.join(errdir, "out16.jpg")]),
        (usage, ["gaussian", "--sigma", "1000", path, out]),  # 6001 taps: known from the line
        # bilateral
        (usage, ["bilateral", path, out]),
        (usage, ["bilateral", "--sigma-space", "2", path, out]),
        (usage, ["bilateral", "--sigma-range", "20", path, out]),
        (usage, ["bilateral", "--sigma-space", "-1", "--sigma-range", "20", path, out]),
        (usage, ["bilateral", "--sigma-space", "0", "--sigma-range", "20", path, out]),
        (usage, ["bilateral", "--sigma-space", "nan", "--sigma-range", "20", path, out]),
        (usage, ["bilateral", "--sigma-space", "2", "--sigma-range", "-20", path, out]),
        (usage, ["bilateral", "--sigma-space", "2", "--sigma-range", "NaN", path, out]),
        (usage, ["bilateral", "--sigma-space", "2", "--sigma-range", "inf", path, out]),
        (usage, ["bilateral", "--sigma-space", "2", "--sigma-range", "20x", path, out]),
        (usage, ["bilateral", "--sigma-space", "2", "--sigma-range", "20", "--radius", "65", path, out]),
        (usage, ["bilateral", "--sigma-space", "2", "--sigma-range", "20", "--radius", "2.5", path, out]),
        (usage, ["bilateral", "--sigma-space", "30", "--sigma-range", "20", path, out]),
        (usage, ["bilateral", "--sigma-space", "2", "--sigma-range", "20", "--border", "foo", path, out]),
        (usage, ["bilateral", "--sigma-space", "2", "--sigma-range", "20", "--bogus", path, out]),
        (usage, ["bilateral", "--sigma-space", "2", "--sigma-range", "20", path]),
        (usage, ["bilateral", "--sigma-space", "2", path, out, "--sigma-range"]),
        (runtime, ["bilateral", "--sigma-space", "2", "--sigma-range", "20", missing, out]),
        # grid
        (usage, ["grid", "--sigma-space", "-16", "--sigma-range", "25", path, out]),
        (usage, ["grid", "--sigma-space", "0.5", "--sigma-range", "25", path, out]),
        (usage, ["grid", "--sigma-space", "nan", "--sigma-range", "25", path, out]),
        (usage, ["grid", "--sigma-space", "16", "--sigma-range", "0", path, out]),
        (usage, ["grid", "--sigma-space", "16", "--sigma-range", "-nan", path, out]),
        (usage, ["grid", "--sigma-space", "16", "--sigma-range", "25", "--blur", "-1", path, out]),
        (usage, ["grid", "--sigma-space", "16", "--sigma-range", "25", "--blur", "nan", path, out]),
        (usage, ["grid", "--sigma-space", "16", "--sigma-range", "25", "--edge", "", path, out]),
        (usage, ["grid", "--sigma-space", "16", "--sigma-range", "25", path, out, "--edge"]),
        (usage, ["grid", "--sigma-space", "16", "--sigma-range", "25", "--radius", "3", path, out]),
        (runtime, ["grid", "--sigma-space", "16", "--sigma-range", "25", "--edge", other, path, out]),
        (runtime, ["grid", "--sigma-space", "16", "--sigma-range", "25", "--edge", missing, path, out]),
        (usage, ["grid", "--sigma-space", "16", "--sigma-range", "25", "--blur", "25", path, out]),
        (runtime, ["grid", "--sigma-space", "4", "--sigma-range", "0.001", u16, out]),
        # tonemap
        (usage, ["tonemap", "--blend", "2", hdr, out]),
        (usage, ["tonemap", "--blend", "-0.5", hdr, out]),
        (usage, ["tonemap", "--contrast", "0", hdr, out]),
        (usage, ["tonemap", "--contrast", "31", hdr, out]),
        (usage, ["tonemap", "--exposure", "inf", hdr, out]),
        (usage, ["tonemap", "--saturation", "-1", hdr, out]),
        (usage, ["tonemap", "--gamma", "-1", hdr, out]),
        (usage, ["tonemap", "--sigma-space", "-3", hdr, out]),
        (usage, ["tonemap", "--sigma-range", "0", hdr, out]),
        (usage, ["tonemap", "--sigma-range", "nan", hdr, out]),
        (usage, ["tonemap", "--bogus", hdr, out]),
        (usage, ["tonemap", hdr]),
        (usage, ["tonemap", hdr, out, out]),
        (runtime, ["tonemap", path, out]),
        (runtime, ["tonemap", missing, out]),
        (runtime, ["tonemap", garbage, out]),
        (usage, ["tonemap", "--gamma", "11", hdr, out]),
        (runtime, ["tonemap", hdr, os.path.join(errdir, "out.exr")]),
    ]
    for want, args in cases:
        r = clv(*args)
        what = "clv %s" % " ".join(a.replace(tmp, "$TMP") for a in args)
        check(one_error_line(r), "%s: exactly one error line, exit 1..127" % what, r.describe())
        check(r.code == want, "%s: exit %d" % (what, want), r.describe())
        check(r.out == "", "%s: nothing on stdout" % what, r.describe())
        left = os.listdir(errdir)
        check(left == [], "%s: no output file" % what, repr(left))
        for f in left:
            p = os.path.join(errdir, f)
            if os.path.isdir(p):
                shutil.rmtree(p)
            else:
                os.remove(p)

    # A failing run leaves an existing output alone.
    keep = os.path.join(errdir, "keep.png")
    with open(keep, "wb") as f:
        f.write(b"old contents")
    r = clv("transpose", garbage, keep)
    check(r.code == 1, "failing run over an existing output", r.describe())
    with open(keep, "rb") as f:
        check(f.read() == b"old contents", "the existing output is untouched")
    check(sorted(os.listdir(errdir)) == ["keep.png"], "no temporary files left",
          repr(os.listdir(errdir)))

    # A kernel that fails to build: the multi-line build log is flattened
    # into the one line, and nothing is written.
    kdir = os.environ.get("CLV_KERNEL_PATH")
    if check(kdir and os.path.isfile(os.path.join(kdir, "box.cl")), "CLV_KERNEL_PATH holds box.cl",
             repr(kdir)):
        bad = os.path.join(tmp, "badcl")
        shutil.copytree(kdir, bad)
        with open(os.path.join(bad, "box.cl"), "a") as f:
            f.write("\nthis is not OpenCL C;\n#error deliberately broken for test_cli\n")
        r = clv("box", "--ksize", "3x3", path, out, env={"CLV_KERNEL_PATH": bad})
        # The compiler's own chatter ("1 error generated.") is captured by
        # the library (issue 13 #5): it may not reach stderr as a second line.
        check(one_error_line(r) and r.code == 1, "build failure: one error line, exit 1", r.describe())
        check("box" in r.err and len(r.err) <= 1000, "build failure: the line names the op and is capped",
              "%d chars" % len(r.err))
        check(sorted(os.listdir(errdir)) == ["keep.png"], "build failure: no output file",
              repr(os.listdir(errdir)))

    # Detail from the library arrives on the one line.
    r = clv("transpose", garbage, out)
    check("garbage.png" in r.err, "read error names the file", r.describe())
    r = clv("grid", "--sigma-space", "16", "--sigma-range", "25", "--edge", other, path, out)
    check("edge is" in r.err and "%dx%d" % (img.width, img.height) in r.err,
          "grid --edge size mismatch says so, with the sizes", r.describe())
    r = clv("tonemap", path, out)
    check("u8" in r.err and "takes f32" in r.err, "tonemap on 8-bit input says it takes f32",
          r.describe())
    r = clv("tonemap", "--blend", "2", hdr, out)
    check("--blend" in r.err and "0..1" in r.err, "tonemap --blend 2 names the option and range",
          r.describe())


def test_bundled(tmp):
    """Real files from tests/data through the tool: 16-bit, JPEG in and out,
    interlaced and palette PNGs, an unsupported CMYK JPEG."""
    def data(name):
        p = os.path.join(DATA, name)
        return p if os.path.isfile(p) else None

    src = data("chelsea16.png")
    if check(src is not None, "tests/data/chelsea16.png present"):
        once, twice = os.path.join(tmp, "c16_t.png"), os.path.join(tmp, "c16_tt.png")
        if ok(clv("transpose", src, once), "transpose chelsea16") and \
                ok(clv("transpose", once, twice), "transpose chelsea16 back"):
            check(png_header(once)[2] == 16, "16-bit input gives 16-bit output")
            check(same_image(png_read(twice), png_read(src)), "chelsea16 transposed twice == original")
        out = os.path.join(tmp, "c16_g.png")
        if ok(clv("gaussian", "--sigma", "1", src, out), "gaussian on chelsea16"):
            check(png_header(out) == (150, 100, 16, 2), "gaussian chelsea16 is 150x100 RGB 16-bit",
                  repr(png_header(out)))

    src = data("coffee.jpg")
    if check(src is not None, "tests/data/coffee.jpg present"):
        out = os.path.join(tmp, "coffee_t.png")
        if ok(clv("transpose", src, out), "transpose a JPEG into a PNG"):
            check(png_header(out) == (200, 300, 8, 2), "JPEG 300x200 RGB transposed is 200x300",
                  repr(png_header(out)))
        out = os.path.join(tmp, "coffee_b.jpg")
        if ok(clv("box", "--ksize", "3x3", src, out), "box JPEG to JPEG"):
            with open(out, "rb") as f:
                check(f.read(3) == b"\xff\xd8\xff", "a .jpg output is a JPEG file")

    src, plain = data("interlaced.png"), data("interlaced_plain.png")
    if check(src is not None and plain is not None, "tests/data/interlaced*.png present"):
        out = os.path.join(tmp, "interlaced_t.png")
        if ok(clv("transpose", src, out), "transpose an interlaced PNG"):
            a, b = png_read(out), png_read(plain)
            check(a.width == b.height and a.height == b.width and
                  all(a.at(x, y, c) == b.at(y, x, c) for y in range(a.height) for x in range(a.width)
                      for c in range(3)), "interlaced input decodes like the plain one")

    src = data("palette.png")
    if check(src is not None, "tests/data/palette.png present"):
        out = os.path.join(tmp, "palette_t.png")
        if ok(clv("transpose", src, out), "transpose a palette PNG"):
            check(png_header(out) == (80, 120, 8, 6), "palette with transparency becomes RGBA",
                  repr(png_header(out)))

    src = data("cmyk.jpg")
    if check(src is not None, "tests/data/cmyk.jpg present"):
        out = os.path.join(tmp, "cmyk_t.png")
        r = clv("transpose", src, out)
        check(one_error_line(r) and r.code == 1 and not os.path.exists(out),
              "a CMYK JPEG is refused with one line", r.describe())


# ---- optical flow -------------------------------------------------------

FLOW_EVAL_LINE = re.compile(r"^AEE=\d+\.\d{4} AAE=\d+\.\d{4} R1=\d+\.\d{4} R3=\d+\.\d{4} R5=\d+\.\d{4}\n$")
TIME_LINE = re.compile(r"^time: wall [0-9.]+ ms, device [0-9.]+ ms\n$")


def flo_write(path, width, height, uv):
    """uv: list of (u, v) per pixel, row-major."""
    with open(path, "wb") as f:
        f.write(b"PIEH" + struct.pack("<ii", width, height))
        f.write(struct.pack("<%df" % (2 * len(uv)), *[c for p in uv for c in p]))


def flo_read(path):
    """(width, height, [(u, v), ...])."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"PIEH":
        raise ValueError("%s: not a .flo file" % path)
    w, h = struct.unpack("<ii", data[4:12])
    vals = struct.unpack("<%df" % (2 * w * h), data[12:12 + 8 * w * h])
    return w, h, list(zip(vals[0::2], vals[1::2]))


def csv_rows(path):
    with open(path) as f:
        text = f.read()
    lines = text.split("\n")
    return lines[0], [l.split(",") for l in lines[1:] if l != ""], text


def texture(width, height, dx=0.0, dy=0.0):
    """Smooth 8-bit gray texture moved by (dx, dy): its content at p is at p + (dx, dy)."""
    import math
    px = []
    for y in range(height):
        for x in range(width):
            u, v = x - dx, y - dy
            val = 128 + 50 * math.sin(u * 0.35 + 0.5 * math.sin(v * 0.21)) \
                + 40 * math.cos(v * 0.29 - u * 0.13)
            px.append(max(0, min(255, int(round(val)))))
    return Image(width, height, 1, 8, px)


def pyr_down_ref(img):
    """OpenCV pyrDown of an 8-bit gray image: [1 4 6 4 1]/16 both ways,
    reflect101, even pixels, (sum + 128) >> 8."""
    k = [1, 4, 6, 4, 1]
    w, h = (img.width + 1) // 2, (img.height + 1) // 2
    out = []
    for y in range(h):
        for x in range(w):
            acc = 0
            for j in range(5):
                sy = border_index(2 * y + j - 2, img.height, "reflect101")
                for i in range(5):
                    sx = border_index(2 * x + i - 2, img.width, "reflect101")
                    acc += k[i] * k[j] * img.at(sx, sy)
            out.append((acc + 128) >> 8)
    return Image(w, h, 1, 8, out)


def lk_motion(w, h):
    """The known motion of tests/data/lk_next.png (make_lk.py): p -> A p + t."""
    import math
    cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
    t = math.radians(0.5)
    c, s = 1.01 * math.cos(t), 1.01 * math.sin(t)
    return (c, -s, cx - (c * cx - s * cy) + 2.3, s, c, cy - (s * cx + c * cy) - 1.7)


def test_pyramid(tmp, inputs):
    r = clv("pyramid", "--help")
    check(r.code == 0 and r.err == "" and "--levels" in r.out, "pyramid --help", r.describe())
    for name, path, img in inputs:
        prefix = os.path.join(tmp, "pyr_" + name)
        if not ok(clv("pyramid", "--levels", "3", path, prefix), "pyramid --levels 3 %s" % name):
            continue
        w, h = img.width, img.height
        for level in range(3):
            out = "%s_%d.png" % (prefix, level)
            if not check(os.path.isfile(out), "pyramid %s writes level %d" % (name, level)):
                break
            got = png_read(out)
            check((got.width, got.height, got.channels, got.depth) == (w, h, img.channels, img.depth),
                  "pyramid %s level %d is %dx%d, type kept" % (name, level, w, h), repr(got))
            if level == 0:
                check(same_image(got, img), "pyramid %s level 0 is the input" % name)
            w, h = (w + 1) // 2, (h + 1) // 2
        check(not os.path.exists("%s_3.png" % prefix), "pyramid --levels 3 writes 3 files")
    # Bit-exact pyrDown on 8-bit gray.
    name, path, img = [i for i in inputs if i[2].channels == 1 and i[2].depth == 8][0]
    prefix = os.path.join(tmp, "pyrref")
    if ok(clv("pyramid", "--levels=3", path, prefix), "pyramid --levels=3 gray8"):
        want = pyr_down_ref(img)
        check(same_image(png_read(prefix + "_1.png"), want), "pyramid level 1 == pyrDown reference")
        check(same_image(png_read(prefix + "_2.png"), pyr_down_ref(want)),
              "pyramid level 2 == pyrDown of pyrDown")
    # Other scales: round(w s^k) x round(h s^k).
    name, path, img = inputs[0]
    prefix = os.path.join(tmp, "pyr075")
    if ok(clv("pyramid", "--levels", "3", "--scale", "0.75", path, prefix), "pyramid --scale 0.75"):
        for level in range(3):
            s = 0.75 ** level
            want = (int(img.width * s + 0.5), int(img.height * s + 0.5))
            got = png_header("%s_%d.png" % (prefix, level))[:2]
            check(got == want, "pyramid --scale 0.75 level %d size" % level, "%r vs %r" % (got, want))
    # The prefix's extension picks the format: x.jpg -> x_0.jpg, x_1.jpg.
    gray = [i for i in inputs if i[2].channels == 1 and i[2].depth == 8][0][1]
    if ok(clv("pyramid", "--levels", "2", gray, os.path.join(tmp, "pyrj.jpg")), "pyramid x.jpg prefix"):
        for level in range(2):
            with open(os.path.join(tmp, "pyrj_%d.jpg" % level), "rb") as f:
                check(f.read(3) == b"\xff\xd8\xff", "pyramid pyrj_%d.jpg is a JPEG" % level)
    # As many levels as fit (sides >= 2): 23x17 -> 12x9, 6x5, 3x3, 2x2 (5 levels).
    rgb = os.path.join(tmp, "rgb8.png")
    ok(clv("pyramid", "--levels", "5", rgb, os.path.join(tmp, "pyrmax")), "pyramid with the most levels")


def test_corners(tmp, inputs):
    r = clv("corners", "--help")
    check(r.code == 0 and r.err == "" and "--min-distance" in r.out, "corners --help", r.describe())
    # A bright square: its four corners are the strongest.
    sq = Image(40, 36, 1, 8, [200 if 10 <= x < 30 and 8 <= y < 28 else 20
                              for y in range(36) for x in range(40)])
    src = os.path.join(tmp, "square.png")
    png_write(src, sq)
    csv = os.path.join(tmp, "square.csv")
    drawn = os.path.join(tmp, "square_drawn.png")
    r = clv("corners", "--max", "10", "--quality", "0.1", "--min-distance", "5", src, csv, "--draw", drawn)
    if ok(r, "corners on a square"):
        header, rows, text = csv_rows(csv)
        check(header == "x,y,response", "corners CSV header", repr(header))
        check(text.endswith("\n") and all(len(row) == 3 for row in rows), "corners CSV rows have 3 fields",
              text[:200])
        vals = [[float(v) for v in row] for row in rows]
        resp = [v[2] for v in vals]
        check(resp == sorted(resp, reverse=True) and all(v > 0 for v in resp),
              "corners sorted by decreasing response", repr(resp))
        check(4 <= len(vals) <= 10, "corners finds the square's corners (4..10)", repr(vals))
        top = sorted((round(v[0]), round(v[1])) for v in vals[:4])
        want = [(10, 8), (10, 27), (29, 8), (29, 27)]
        check(len(top) == 4 and all(abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1 for a, b in zip(top, want)),
              "the 4 strongest corners are the square's (within 1 px)", "%r vs %r" % (top, want))
        if check(os.path.isfile(drawn), "corners --draw writes the picture"):
            d = png_read(drawn)
            check((d.width, d.height, d.channels, d.depth) == (40, 36, 3, 8), "--draw is RGB of the input size",
                  repr(d))
            cx, cy = int(round(vals[0][0])), int(round(vals[0][1]))
            check([d.at(cx, cy, c) for c in range(3)] == [255, 0, 0], "a red marker at the strongest corner")
            check([d.at(0, 35, c) for c in range(3)] == [20, 20, 20], "unmarked pixels are the input, gray to RGB")
    # Colour input (gray on the device), 16-bit input, --block-size.
    for name, path, img in inputs:
        csv = os.path.join(tmp, "corners_%s.csv" % name)
        r = clv("corners", "--max=5", "--quality=0.01", "--min-distance=2", "--block-size", "5", path, csv)
        if ok(r, "corners on %s" % name):
            header, rows, _ = csv_rows(csv)
            check(header == "x,y,response" and len(rows) <= 5, "corners %s: header, at most --max rows" % name)
        drawn = os.path.join(tmp, "corners_%s.png" % name)
        r = clv("corners", "--max", "5", "--quality", "0.01", "--min-distance", "2", path, csv, "--draw", drawn)
        if ok(r, "corners --draw on %s" % name):
            d = png_read(drawn)
            check((d.width, d.height, d.channels, d.depth) == (img.width, img.height, 3, img.depth),
                  "corners --draw on %s is RGB, depth kept" % name, repr(d))
    # camera.png against OpenCV's goodFeaturesToTrack (tests/data/corners_opencv.csv).
    ref = os.path.join(DATA, "corners_opencv.csv")
    cam = os.path.join(DATA, "camera.png")
    if os.path.isfile(ref) and os.path.isfile(cam):
        with open(ref) as f:
            want = [l.split(",") for l in f.read().split("\n") if l.startswith("camera.png,")]
        csv = os.path.join(tmp, "camera_corners.csv")
        if ok(clv("corners", "--max", "200", "--quality", "0.01", "--min-distance", "10", cam, csv),
              "corners on camera.png"):
            _, rows, _ = csv_rows(csv)
            got = {(float(r[0]), float(r[1])) for r in rows[:10]}
            exp = {(float(r[1]), float(r[2])) for r in want[:10]}
            check(len(rows) == len(want) and got == exp,
                  "camera.png corners: OpenCV's count and 10 strongest", "%d vs %d rows" % (len(rows), len(want)))


def gray_of(img, weights):
    """The gray the CLI makes of an 8-bit RGB(A) image: Rec. 601 in OpenCV's
    15-bit fixed point (cv2.cvtColor(COLOR_RGB2GRAY) exactly; test_color
    checks it against OpenCV's own values), or Rec. 709 rounded half up."""
    out = []
    cn = img.channels
    for i in range(0, len(img.pixels), cn):
        r, g, b = img.pixels[i:i + 3]
        if weights == 601:
            out.append((r * 9798 + g * 19235 + b * 3735 + 16384) >> 15)
        else:
            out.append((r * 2126 + g * 7152 + b * 722 + 5000) // 10000)
    return Image(img.width, img.height, 1, 8, out)


def test_gray_weights(tmp):
    """Colour input to corners, track and flow is gray of OpenCV's Rec. 601
    weights unless --gray 709 says otherwise (the CLI used Rec. 709 before,
    and its corners on a photo then disagreed with OpenCV's)."""
    src = os.path.join(DATA, "chelsea.png")
    img = png_read(src)
    check(img.channels == 3 and img.depth == 8, "chelsea.png is 8-bit RGB", repr(img))
    grays = {}
    for w in (601, 709):
        grays[w] = os.path.join(tmp, "chelsea_gray%d.png" % w)
        png_write(grays[w], gray_of(img, w))
    args = ["--max", "200", "--quality", "0.01", "--min-distance", "10"]

    def corners(path, *extra):
        csv = os.path.join(tmp, "gw_%d.csv" % len(os.listdir(tmp)))
        r = clv("corners", *(args + list(extra)), path, csv)
        if not ok(r, "corners %s %s" % (os.path.basename(path), " ".join(extra))):
            return None
        with open(csv) as f:
            return f.read()

    on_601, on_709 = corners(grays[601]), corners(grays[709])
    default, g601, g709 = corners(src), corners(src, "--gray", "601"), corners(src, "--gray=709")
    check(default is not None and default == on_601,
          "corners on colour = corners on its Rec. 601 gray (OpenCV's COLOR_RGB2GRAY)")
    check(g601 is not None and g601 == on_601, "corners --gray 601 = corners on the Rec. 601 gray")
    check(g709 is not None and g709 == on_709, "corners --gray 709 = corners on the Rec. 709 gray")
    check(on_601 != on_709, "the two weights give different corners on chelsea.png")
    # flow and track: the same for a colour pair (chelsea cut twice, 2 px apart)
    def crop(x0, y0, w, h):
        px = []
        for y in range(y0, y0 + h):
            i = (y * img.width + x0) * 3
            px += img.pixels[i:i + w * 3]
        return Image(w, h, 3, 8, px)
    frames = [crop(100, 60, 96, 72), crop(102, 61, 96, 72)]
    col, gry = [], []
    for i, fr in enumerate(frames):
        col.append(os.path.join(tmp, "fcol%d.png" % i))
        png_write(col[-1], fr)
        gry.append(os.path.join(tmp, "fgray%d.png" % i))
        png_write(gry[-1], gray_of(fr, 601))
    outs = {}
    for label, pair in (("colour", col), ("gray", gry)):
        f = os.path.join(tmp, "gw_%s.flo" % label)
        t = os.path.join(tmp, "gw_%s_track.csv" % label)
        if ok(clv("flow", pair[0], pair[1], f), "flow on the %s pair" % label) and \
           ok(clv("track", "--corners", "50", pair[0], pair[1], t), "track on the %s pair" % label):
            with open(f, "rb") as ff, open(t) as ft:
                outs[label] = (ff.read(), ft.read())
    if check(len(outs) == 2, "flow and track ran on both pairs"):
        check(outs["colour"][0] == outs["gray"][0], "flow on colour = flow on its Rec. 601 gray")
        check(outs["colour"][1] == outs["gray"][1], "track on colour = track on its Rec. 601 gray")
    for cmd in (["corners"] + args, ["track"], ["flow"], ["flow-seq"], ["grid", "--sigma-space", "4",
                                                                     "--sigma-range", "20"]):
        r = clv(*cmd, "--help")
        check(r.code == 0 and "--gray 601|709" in r.out, "%s --help names --gray" % cmd[0], r.describe())
    r = clv("corners", *args, "--gray", "2020", src, os.path.join(tmp, "x.csv"))
    check(r.code == 2 and "expected 601 or 709" in r.err, "corners --gray 2020 is a usage error",
          r.describe())


def test_track(tmp, inputs):
    r = clv("track", "--help")
    check(r.code == 0 and r.err == "" and "--corners" in r.out, "track --help", r.describe())
    # A smooth texture moved by (3, -2): points in the interior move by that.
    prev, nxt = os.path.join(tmp, "tex0.png"), os.path.join(tmp, "tex1.png")
    png_write(prev, texture(96, 80))
    png_write(nxt, texture(96, 80, 3.0, -2.0))
    pts = os.path.join(tmp, "pts.csv")
    points = [(30, 30), (48.5, 40.25), (60, 50), (40, 55)]
    with open(pts, "w") as f:
        f.write("x,y\n" + "".join("%g,%g\n" % p for p in points))
    out = os.path.join(tmp, "track.csv")
    if ok(clv("track", "--points", pts, prev, nxt, out), "track --points on a moved texture"):
        header, rows, text = csv_rows(out)
        check(header == "x0,y0,x1,y1,status,error", "track CSV header", repr(header))
        check(len(rows) == len(points) and all(len(row) == 6 for row in rows), "track: a row per point, 6 fields",
              text)
        vals = [[float(v) for v in row] for row in rows]
        check([(v[0], v[1]) for v in vals] == [(float(x), float(y)) for x, y in points],
              "track keeps the input points and their order")
        check(all(v[4] == 1 for v in vals), "track: every point tracked", text)
        d = max(max(abs(v[2] - v[0] - 3), abs(v[3] - v[1] + 2)) for v in vals)
        check(d < 0.05, "track finds the (3, -2) motion within 0.05 px", "max diff %g" % d)
        check(all(v[5] >= 0 for v in vals), "track: errors are >= 0")
    # Options; the corners' CSV (x,y,response) as --points; Windows line ends.
    corners = os.path.join(tmp, "tex_corners.csv")
    if ok(clv("corners", "--max", "20", "--quality", "0.05", "--min-distance", "8", prev, corners),
          "corners of the texture"):
        _, crow, _ = csv_rows(corners)
        r = clv("track", "--win", "15", "--levels", "2", "--iterations", "20", "--points", corners, prev, nxt, out)
        if ok(r, "track --points with the corners' CSV and every option"):
            _, rows, _ = csv_rows(out)
            check(len(rows) == len(crow), "track: one row per corner", "%d vs %d" % (len(rows), len(crow)))
    crlf = os.path.join(tmp, "pts_crlf.csv")
    with open(crlf, "wb") as f:
        f.write(b"x,y\r\n30,30\r\n")
    if ok(clv("track", "--points=" + crlf, prev, nxt, out), "track --points with CRLF line ends"):
        _, rows, _ = csv_rows(out)
        check(len(rows) == 1, "track CRLF: one point")
    # An empty list is fine: just the header.
    empty = os.path.join(tmp, "pts_empty.csv")
    with open(empty, "w") as f:
        f.write("x,y\n")
    if ok(clv("track", "--points", empty, prev, nxt, out), "track with an empty point list"):
        with open(out) as f:
            check(f.read() == "x0,y0,x1,y1,status,error\n", "track, no points: only the header")
    # Default: --corners 500 on PREV; the bundled pair against its known motion.
    p0, p1 = os.path.join(DATA, "lk_prev.png"), os.path.join(DATA, "lk_next.png")
    if os.path.isfile(p0) and os.path.isfile(p1):
        for args in ([], ["--corners", "50"]):
            r = clv("track", *(args + [p0, p1, out]))
            if not ok(r, "track %s on the bundled pair" % (" ".join(args) or "(default corners)")):
                continue
            _, rows, _ = csv_rows(out)
            vals = [[float(v) for v in row] for row in rows]
            a = lk_motion(png_header(p0)[0], png_header(p0)[1])
            errs = sorted(((v[2] - (a[0] * v[0] + a[1] * v[1] + a[2])) ** 2 +
                           (v[3] - (a[3] * v[0] + a[4] * v[1] + a[5])) ** 2) ** 0.5 for v in vals if v[4] == 1)
            tracked = len(errs)
            check(len(vals) == 50 if args else len(vals) >= 100, "track %s: the number of points"
                  % " ".join(args), "%d" % len(vals))
            check(tracked >= 0.9 * len(vals), "track %s: most points tracked" % " ".join(args),
                  "%d of %d" % (tracked, len(vals)))
            check(errs and errs[len(errs) // 2] < 0.1, "track %s: median error < 0.1 px vs the known motion"
                  % " ".join(args), repr(errs[len(errs) // 2] if errs else None))
        # Colour and 16-bit frames of one size work (converted on the host).
        r = clv("track", "--corners", "20", os.path.join(tmp, "rgb8.png"), os.path.join(tmp, "rgb8.png"), out)
        if ok(r, "track on RGB frames"):
            _, rows, _ = csv_rows(out)
            check(all(float(row[0]) == float(row[2]) and float(row[1]) == float(row[3]) for row in rows
                      if row[4] == "1"), "track between identical frames: points stay")


def test_flow(tmp, inputs):
    r = clv("flow", "--help")
    check(r.code == 0 and r.err == "" and "--poly-sigma" in r.out and "(default 1.2)" in r.out, "flow --help",
          r.describe())
    prev, nxt = os.path.join(tmp, "ftex0.png"), os.path.join(tmp, "ftex1.png")
    w, h = 96, 72
    png_write(prev, texture(w, h))
    png_write(nxt, texture(w, h, 1.5, -1.0))
    flo = os.path.join(tmp, "f.flo")
    color = os.path.join(tmp, "f_color.png")
    if ok(clv("flow", prev, nxt, flo, "--color", color), "flow on a moved texture"):
        fw, fh, uv = flo_read(flo)
        check((fw, fh) == (w, h), "flow .flo has the input size", "%dx%d" % (fw, fh))
        inner = [uv[y * w + x] for y in range(16, h - 16) for x in range(16, w - 16)]
        mu = sum(p[0] for p in inner) / len(inner)
        mv = sum(p[1] for p in inner) / len(inner)
        check(abs(mu - 1.5) < 0.1 and abs(mv + 1.0) < 0.1, "flow finds the (1.5, -1) motion inside",
              "mean (%g, %g)" % (mu, mv))
        check(png_header(color) == (w, h, 8, 2), "flow --color is 8-bit RGB of the input size",
              repr(png_header(color)))
        # Against itself: every error is 0.
        r = clv("flow-eval", flo, flo)
        check(r.code == 0 and r.err == "" and r.out == "AEE=0.0000 AAE=0.0000 R1=0.0000 R3=0.0000 R5=0.0000\n",
              "flow-eval of a flow against itself is 0", r.describe())
        # The ground truth of the motion: the estimate is close.
        gt = os.path.join(tmp, "f_gt.flo")
        flo_write(gt, w, h, [(1.5, -1.0)] * (w * h))
        r = clv("flow-eval", flo, gt)
        if check(r.code == 0 and FLOW_EVAL_LINE.match(r.out), "flow-eval output format", r.describe()):
            aee = float(r.out.split()[0].split("=")[1])
            check(aee < 0.3, "flow vs its ground truth: AEE < 0.3", r.out)
        # Warping NEXT by the flow gives about PREV inside.
        back = os.path.join(tmp, "f_back.png")
        if ok(clv("warp", nxt, flo, back), "warp NEXT by the flow"):
            a, b = png_read(back), png_read(prev)
            d = sum(abs(a.at(x, y) - b.at(x, y)) for y in range(16, h - 16) for x in range(16, w - 16)) / len(inner)
            check(d < 3, "warped NEXT ~ PREV inside (mean abs diff < 3)", "%g" % d)
    # Every option.
    r = clv("flow", "--pyr-scale", "0.6", "--levels", "2", "--winsize", "9", "--iterations", "2", "--poly-n", "7",
            "--poly-sigma", "1.5", "--gaussian", prev, nxt, flo)
    ok(r, "flow with every option")
    r = clv("flow", "--pyr-scale=0.5", "--levels=0", "--winsize=21", "--iterations=1", "--poly-n=5",
            "--poly-sigma=1.1", prev, nxt, flo)
    ok(r, "flow with --option=value")
    # Colour and 16-bit inputs of one size.
    rgb, u16 = os.path.join(tmp, "ftex_rgb.png"), os.path.join(tmp, "ftex16.png")
    t = texture(w, h)
    png_write(rgb, Image(w, h, 3, 8, [v for v in t.pixels for _ in range(3)]))
    png_write(u16, Image(w, h, 1, 16, [v * 257 for v in t.pixels]))
    zero = os.path.join(tmp, "zero.flo")
    flo_write(zero, w, h, [(0.0, 0.0)] * (w * h))
    for a, b, what in ((rgb, prev, "RGB and gray"), (u16, prev, "16-bit and 8-bit")):
        if ok(clv("flow", a, b, flo), "flow on %s frames" % what):
            r = clv("flow-eval", flo, zero)
            check(r.code == 0 and r.out.startswith("AEE=0.00"), "flow between equal %s frames ~ 0" % what, r.describe())


def test_flow_eval(tmp):
    r = clv("flow-eval", "--help")
    check(r.code == 0 and r.err == "" and "AEE" in r.out, "flow-eval --help", r.describe())
    w, h = 7, 5
    gt, est = os.path.join(tmp, "e_gt.flo"), os.path.join(tmp, "e_est.flo")
    # Zero truth, estimate (3, 4): AEE 5, AAE acos(1/sqrt(26)), all errors above 1 and 3, none above 5.
    flo_write(gt, w, h, [(0.0, 0.0)] * (w * h))
    flo_write(est, w, h, [(3.0, 4.0)] * (w * h))
    r = clv("flow-eval", est, gt)
    check(r.code == 0 and r.err == "" and r.out == "AEE=5.0000 AAE=78.6901 R1=100.0000 R3=100.0000 R5=0.0000\n",
          "flow-eval of a known error", r.describe())
    # Unknown ground truth (1e9) is left out.
    flo_write(gt, w, h, [(0.0, 0.0) if x < 3 else (1e9, 0.0) for y in range(h) for x in range(w)])
    flo_write(est, w, h, [(0.0, 2.0) if x < 3 else (50.0, 50.0) for y in range(h) for x in range(w)])
    r = clv("flow-eval", est, gt)
    check(r.code == 0 and r.out.startswith("AEE=2.0000 ") and " R1=100.0000 R3=0.0000 R5=0.0000\n" in r.out,
          "flow-eval leaves out unknown ground truth", r.describe())
    r = clv("--time", "flow-eval", est, gt)
    check(r.code == 0 and FLOW_EVAL_LINE.match(r.out) and TIME_LINE.match(r.err),
          "--time flow-eval: figures on stdout, time on stderr", r.describe())


def test_generic_ops(tmp, inputs):
    """Commands that exist only through their descriptors: an output type
    the caller picks (--type), an f32 result."""
    name, path, img = [i for i in inputs if i[2].depth == 8][0]
    out = os.path.join(tmp, "ct16.png")
    r = clv("convert_type", "--type", "u16", "--scale", "257", path, out)
    if ok(r, "convert_type --type u16 --scale 257"):
        got = png_read(out)
        check(got.depth == 16 and (got.width, got.height, got.channels)
              == (img.width, img.height, img.channels)
              and list(got.pixels) == [257 * v for v in img.pixels],
              "convert_type to u16 times 257", repr(got))
    r = clv("convert_type", "--type", "f64", path, out)
    check(r.code == 2 and one_error_line(r), "convert_type --type f64 is a usage error",
          r.describe())
    r = clv("help", "sobel")
    check(r.code == 0 and "--dx" in r.out and "0..2" in r.out, "clv help sobel", r.describe())


def test_warp(tmp, inputs):
    r = clv("warp", "--help")
    check(r.code == 0 and r.err == "" and "FLOW.flo" in r.out, "warp --help", r.describe())
    for name, path, img in inputs:
        zero = os.path.join(tmp, "wzero_%s.flo" % name)
        flo_write(zero, img.width, img.height, [(0.0, 0.0)] * (img.width * img.height))
        out = os.path.join(tmp, "warp0_%s.png" % name)
        if ok(clv("warp", path, zero, out), "warp %s by a zero flow" % name):
            check(same_image(png_read(out), img), "warp by a zero flow == input (%s)" % name)
    # u = 1: out(x, y) = in(x + 1, y), the last column replicated; out has the flow's size.
    name, path, img = [i for i in inputs if i[2].channels == 1 and i[2].depth == 8][0]
    fw, fh = img.width - 3, img.height - 2
    shift = os.path.join(tmp, "wshift.flo")
    flo_write(shift, fw, fh, [(1.0, 0.0)] * (fw * fh))
    out = os.path.join(tmp, "warp_shift.png")
    if ok(clv("warp", path, shift, out), "warp by u = 1 with a smaller flow"):
        got = png_read(out)
        check((got.width, got.height) == (fw, fh), "warp output has the flow's size", repr(got))
        check(all(got.at(x, y) == img.at(min(x + 1, img.width - 1), y) for y in range(fh) for x in range(fw)),
              "warp by u = 1 shifts left by one pixel")


def test_flow_seq(tmp, inputs):
    r = clv("flow-seq", "--help")
    check(r.code == 0 and r.err == "" and "FRAME_GLOB" in r.out and "--winsize" in r.out, "flow-seq --help",
          r.describe())
    frames = os.path.join(tmp, "frames")
    os.mkdir(frames)
    w, h = 64, 48
    for i in range(3):
        png_write(os.path.join(frames, "f%02d.png" % i), texture(w, h, 1.0 * i, -0.5 * i))
    out = os.path.join(tmp, "seq", "out")
    r = clv("flow-seq", "--color", os.path.join(frames, "f*.png"), out)
    if ok(r, "flow-seq over 3 frames"):
        check(sorted(os.listdir(out)) == ["flow_0000.flo", "flow_0000.png", "flow_0001.flo", "flow_0001.png"],
              "flow-seq writes 2 .flo and 2 .png files, nothing else", repr(os.listdir(out)))
        # flow_0000 is the flow of the first pair, as 'clv flow' computes it.
        single = os.path.join(tmp, "seq_single.flo")
        if ok(clv("flow", os.path.join(frames, "f00.png"), os.path.join(frames, "f01.png"), single),
              "flow on the first pair"):
            with open(single, "rb") as a, open(os.path.join(out, "flow_0000.flo"), "rb") as b:
                check(a.read() == b.read(), "flow-seq flow_0000.flo == clv flow on frames 0 and 1")
        with open(os.path.join(out, "flow_0001.flo"), "rb") as f:
            check(f.read(4) == b"PIEH", "flow_0001.flo is a .flo file")
        check(png_header(os.path.join(out, "flow_0001.png")) == (w, h, 8, 2), "flow-seq colour PNGs")
    out2 = os.path.join(tmp, "seq2")
    r = clv("flow-seq", "--levels", "2", "--gaussian", os.path.join(frames, "f0[01].png"), out2)
    if ok(r, "flow-seq over 2 frames, with options, no colour"):
        check(sorted(os.listdir(out2)) == ["flow_0000.flo"], "flow-seq over 2 frames writes one .flo",
              repr(os.listdir(out2)))
    r = clv("--time", "flow-seq", os.path.join(frames, "f*.png"), os.path.join(tmp, "seq3"))
    check(r.code == 0 and r.out == "" and TIME_LINE.match(r.err), "--time flow-seq prints one time line",
          r.describe())


def test_flow_time(tmp, inputs):
    name, path, img = inputs[0]
    gray = [i for i in inputs if i[2].channels == 1 and i[2].depth == 8][0][1]
    flo = os.path.join(tmp, "t.flo")
    flo_write(flo, img.width, img.height, [(0.5, -0.25)] * (img.width * img.height))
    for args, outs in ((["pyramid", "--levels", "2", path, os.path.join(tmp, "tpyr")], ["tpyr_0.png", "tpyr_1.png"]),
                       (["corners", "--max", "5", "--quality", "0.1", "--min-distance", "2", path,
                         os.path.join(tmp, "tc.csv")], ["tc.csv"]),
                       (["track", "--corners", "5", path, path, os.path.join(tmp, "tt.csv")], ["tt.csv"]),
                       (["flow", gray, gray, os.path.join(tmp, "tf.flo")], ["tf.flo"]),
                       (["warp", path, flo, os.path.join(tmp, "tw.png")], ["tw.png"])):
        r = clv("--time", *args)
        check(r.code == 0 and r.out == "" and TIME_LINE.match(r.err), "--time %s prints one time line" % args[0],
              r.describe())
        check(all(os.path.exists(os.path.join(tmp, o)) for o in outs), "--time %s still writes the output" % args[0])


def test_flow_errors(tmp, inputs):
    name, path, img = inputs[0]
    u16 = [p for n, p, i in inputs if i.depth == 16][0]
    other = [p for n, p, i in inputs if (i.width, i.height) != (img.width, img.height)][0]
    missing = os.path.join(tmp, "does_not_exist.png")
    errdir = os.path.join(tmp, "flowerr")
    os.mkdir(errdir)
    out = os.path.join(errdir, "out.png")
    csv = os.path.join(errdir, "out.csv")
    flo = os.path.join(errdir, "out.flo")
    good_flo = os.path.join(tmp, "err_good.flo")
    flo_write(good_flo, img.width, img.height, [(0.0, 0.0)] * (img.width * img.height))
    small_flo = os.path.join(tmp, "err_small.flo")
    flo_write(small_flo, 3, 2, [(0.0, 0.0)] * 6)
    trunc_flo = os.path.join(tmp, "err_trunc.flo")
    with open(good_flo, "rb") as f:
        whole = f.read()
    with open(trunc_flo, "wb") as f:
        f.write(whole[:len(whole) // 2])
    frames = os.path.join(tmp, "errframes")
    os.mkdir(frames)
    shutil.copy(path, os.path.join(frames, "a0.png"))
    shutil.copy(path, os.path.join(frames, "a1.png"))
    shutil.copy(other, os.path.join(frames, "a2.png"))
    shutil.copy(path, os.path.join(frames, "b0.png"))
    seq_out = os.path.join(errdir, "seq")

    def pts_file(label, text):
        p = os.path.join(tmp, "pts_%s.csv" % label)
        with open(p, "wb") as f:
            f.write(text)
        return p

    bad_points = [
        (pts_file("noheader", b"1,2\n"), "line 1"),
        (pts_file("badheader", b"x;y\n1;2\n"), "line 1"),
        (pts_file("empty", b""), "empty"),
        (pts_file("onefield", b"x,y\n1,2\n3\n"), "line 3"),
        (pts_file("threefields", b"x,y\n1,2,3\n"), "line 2"),
        (pts_file("twofields", b"x,y,response\n1,2,0.5\n3,4\n"), "line 3"),
        (pts_file("nan", b"x,y\nnan,2\n"), "line 2"),
        (pts_file("inf", b"x,y\n1,1e400\n"), "line 2"),
        (pts_file("blank", b"x,y\n1,2\n\n3,4\n"), "line 3"),
        (pts_file("space", b"x,y\n 1,2\n"), "line 2"),
        (pts_file("hex", b"x,y\n0x10,2\n"), "line 2"),
        (pts_file("text", b"x,y\n1,abc\n"), "line 2"),
        (pts_file("nul", b"x,y\n1,2\x00\n"), "line 2"),
    ]
    usage, runtime = 2, 1
    cases = [
        # pyramid
        (usage, ["pyramid", path, os.path.join(errdir, "p")]),
        (usage, ["pyramid", "--levels", "0", path, os.path.join(errdir, "p")]),
        (usage, ["pyramid", "--levels", "17", path, os.path.join(errdir, "p")]),
        (usage, ["pyramid", "--levels", "2.5", path, os.path.join(errdir, "p")]),
        (usage, ["pyramid", "--levels", "3", "--scale", "1", path, os.path.join(errdir, "p")]),
        (usage, ["pyramid", "--levels", "3", "--scale", "0", path, os.path.join(errdir, "p")]),
        (usage, ["pyramid", "--levels", "3", "--scale", "nan", path, os.path.join(errdir, "p")]),
        (usage, ["pyramid", "--levels", "3", path]),
        (usage, ["pyramid", "--levels", "3", path, os.path.join(errdir, "p"), "x"]),
        (usage, ["pyramid", "--levels", "3", "--bogus", path, os.path.join(errdir, "p")]),
        (usage, ["pyramid", path, os.path.join(errdir, "p"), "--levels"]),
        (runtime, ["pyramid", "--levels", "6", path, os.path.join(errdir, "p")]),
        (runtime, ["pyramid", "--levels", "3", missing, os.path.join(errdir, "p")]),
        (runtime, ["pyramid", "--levels", "3", u16, os.path.join(errdir, "p.jpg")]),
        (runtime, ["pyramid", "--levels", "3", path, os.path.join(errdir, "nodir", "p")]),
        # corners
        (usage, ["corners", "--quality", "0.1", "--min-distance", "5", path, csv]),
        (usage, ["corners", "--max", "10", "--min-distance", "5", path, csv]),
        (usage, ["corners", "--max", "10", "--quality", "0.1", path, csv]),
        (usage, ["corners", "--max", "0", "--quality", "0.1", "--min-distance", "5", path, csv]),
        (usage, ["corners", "--max", "ten", "--quality", "0.1", "--min-distance", "5", path, csv]),
        (usage, ["corners", "--max", "10", "--quality", "0", "--min-distance", "5", path, csv]),
        (usage, ["corners", "--max", "10", "--quality", "1.5", "--min-distance", "5", path, csv]),
        (usage, ["corners", "--max", "10", "--quality", "nan", "--min-distance", "5", path, csv]),
        (usage, ["corners", "--max", "10", "--quality", "0.1", "--min-distance", "-1", path, csv]),
        (usage, ["corners", "--max", "10", "--quality", "0.1", "--min-distance", "inf", path, csv]),
        (usage, ["corners", "--max", "10", "--quality", "0.1", "--min-distance", "5", "--block-size", "4", path, csv]),
        (usage, ["corners", "--max", "10", "--quality", "0.1", "--min-distance", "5", "--block-size", "33", path, csv]),
        (usage, ["corners", "--max", "10", "--quality", "0.1", "--min-distance", "5", "--draw", "", path, csv]),
        (usage, ["corners", "--max", "10", "--quality", "0.1", "--min-distance", "5", path, csv, "--draw"]),
        (usage, ["corners", "--max", "10", "--quality", "0.1", "--min-distance", "5", path]),
        (usage, ["corners", "--max", "10", "--quality", "0.1", "--min-distance", "5", path, csv, csv]),
        (runtime, ["corners", "--max", "10", "--quality", "0.1", "--min-distance", "5", missing, csv]),
        (runtime, ["corners", "--max", "10", "--quality", "0.1", "--min-distance", "5", path,
                   os.path.join(errdir, "nodir", "c.csv")]),
        # --draw fails after the CSV would be written: neither appears.
        (runtime, ["corners", "--max", "10", "--quality", "0.1", "--min-distance", "5", path, csv,
                   "--draw", os.path.join(errdir, "out.xyz")]),
        (runtime, ["corners", "--max", "10", "--quality", "0.1", "--min-distance", "5", path, csv,
                   "--draw", os.path.join(errdir, "nodir", "d.png")]),
        # track
        (usage, ["track", path, path]),
        (usage, ["track", path, path, csv, csv]),
        (usage, ["track", "--corners", "0", path, path, csv]),
        (usage, ["track", "--corners", "x", path, path, csv]),
        (usage, ["track", "--win", "4", path, path, csv]),
        (usage, ["track", "--win", "1", path, path, csv]),
        (usage, ["track", "--win", "257", path, path, csv]),
        (usage, ["track", "--levels", "0", path, path, csv]),
        (usage, ["track", "--levels", "17", path, path, csv]),
        (usage, ["track", "--iterations", "0", path, path, csv]),
        (usage, ["track", "--iterations", "-3", path, path, csv]),
        (usage, ["track", "--points", "", path, path, csv]),
        (usage, ["track", "--points", bad_points[0][0], "--corners", "5", path, path, csv]),
        (usage, ["track", "--bogus", path, path, csv]),
        (usage, ["track", path, path, csv, "--points"]),
        (runtime, ["track", path, other, csv]),
        (runtime, ["track", missing, path, csv]),
        (runtime, ["track", path, missing, csv]),
        (runtime, ["track", "--points", missing, path, path, csv]),
        (runtime, ["track", path, path, os.path.join(errdir, "nodir", "t.csv")]),
        # flow
        (usage, ["flow", path, path]),
        (usage, ["flow", path, path, flo, flo]),
        (usage, ["flow", "--pyr-scale", "1", path, path, flo]),
        (usage, ["flow", "--pyr-scale", "0", path, path, flo]),
        (usage, ["flow", "--pyr-scale", "-0.5", path, path, flo]),
        (usage, ["flow", "--levels", "-1", path, path, flo]),
        (usage, ["flow", "--levels", "17", path, path, flo]),
        (usage, ["flow", "--winsize", "4", path, path, flo]),
        (usage, ["flow", "--winsize", "1", path, path, flo]),
        (usage, ["flow", "--winsize", "257", path, path, flo]),
        (usage, ["flow", "--iterations", "0", path, path, flo]),
        (usage, ["flow", "--iterations", "101", path, path, flo]),
        (usage, ["flow", "--poly-n", "6", path, path, flo]),
        (usage, ["flow", "--poly-n", "3", path, path, flo]),
        (usage, ["flow", "--poly-sigma", "0", path, path, flo]),
        (usage, ["flow", "--poly-sigma", "nan", path, path, flo]),
        (usage, ["flow", "--poly-sigma", "1.2x", path, path, flo]),
        (usage, ["flow", "--gaussian=1", path, path, flo]),
        (usage, ["flow", "--color", "", path, path, flo]),
        (usage, ["flow", path, path, flo, "--color"]),
        (usage, ["flow", "--bogus", path, path, flo]),
        (runtime, ["flow", path, other, flo]),
        (runtime, ["flow", missing, path, flo]),
        (runtime, ["flow", path, path, out]),
        (runtime, ["flow", path, path, os.path.join(errdir, "nodir", "f.flo")]),
        (runtime, ["flow", path, path, flo, "--color", os.path.join(errdir, "c.xyz")]),
        (runtime, ["flow", path, path, flo, "--color", os.path.join(errdir, "nodir", "c.png")]),
        # flow-eval
        (usage, ["flow-eval", good_flo]),
        (usage, ["flow-eval", good_flo, good_flo, good_flo]),
        (usage, ["flow-eval", "--bogus", good_flo, good_flo]),
        (usage, ["flow-eval", "", good_flo]),
        (runtime, ["flow-eval", good_flo, small_flo]),
        (runtime, ["flow-eval", good_flo, missing]),
        (runtime, ["flow-eval", good_flo, path]),
        (runtime, ["flow-eval", trunc_flo, good_flo]),
        # warp
        (usage, ["warp", path, good_flo]),
        (usage, ["warp", path, good_flo, out, out]),
        (usage, ["warp", "--bogus", path, good_flo, out]),
        (runtime, ["warp", missing, good_flo, out]),
        (runtime, ["warp", path, missing, out]),
        (runtime, ["warp", path, path, out]),
        (runtime, ["warp", path, trunc_flo, out]),
        (runtime, ["warp", path, good_flo, os.path.join(errdir, "out.xyz")]),
        # flow-seq
        (usage, ["flow-seq", os.path.join(frames, "a*.png")]),
        (usage, ["flow-seq", os.path.join(frames, "a*.png"), seq_out, "x"]),
        (usage, ["flow-seq", "--color=1", os.path.join(frames, "a*.png"), seq_out]),
        (usage, ["flow-seq", "--winsize", "4", os.path.join(frames, "a*.png"), seq_out]),
        (usage, ["flow-seq", "--bogus", os.path.join(frames, "a*.png"), seq_out]),
        (usage, ["flow-seq", "", seq_out]),
        (runtime, ["flow-seq", os.path.join(frames, "none*.png"), seq_out]),
        (runtime, ["flow-seq", os.path.join(frames, "b*.png"), seq_out]),
        (runtime, ["flow-seq", os.path.join(frames, "a*.png"), seq_out]),
        (runtime, ["flow-seq", "--color", os.path.join(frames, "a*.png"), os.path.join(seq_out, "deeper")]),
        (runtime, ["flow-seq", os.path.join(frames, "a[01].png"), path]),
    ]
    for pts, where in bad_points:
        cases.append((runtime, ["track", "--points", pts, path, path, csv]))
    for want, args in cases:
        r = clv(*args)
        what = "clv %s" % " ".join(a.replace(tmp, "$TMP") for a in args)
        check(one_error_line(r), "%s: exactly one error line, exit 1..127" % what, r.describe())
        check(r.code == want, "%s: exit %d" % (what, want), r.describe())
        check(r.out == "", "%s: nothing on stdout" % what, r.describe())
        left = os.listdir(errdir)
        check(left == [], "%s: no output file" % what, repr(left))
        for f in left:
            p = os.path.join(errdir, f)
            if os.path.isdir(p):
                shutil.rmtree(p)
            else:
                os.remove(p)
    # The messages say what is wrong, with the line for point files.
    for pts, where in bad_points:
        r = clv("track", "--points", pts, path, path, csv)
        check(where in r.err and os.path.basename(pts) in r.err, "track --points %s names %r and the file"
              % (os.path.basename(pts), where), r.describe())
    r = clv("track", path, other, csv)
    check("must match" in r.err, "track with frames of two sizes says so", r.describe())
    r = clv("flow", path, path, out)
    check(".flo" in r.err, "flow to a non-.flo name says so", r.describe())
    r = clv("flow-seq", os.path.join(frames, "a*.png"), seq_out)
    check("a2.png" in r.err and "size" in r.err, "flow-seq names the frame of another size", r.describe())
    r = clv("flow-seq", os.path.join(frames, "b*.png"), seq_out)
    check("at least 2" in r.err, "flow-seq with one frame says 2 are needed", r.describe())
    r = clv("pyramid", "--levels", "6", path, os.path.join(errdir, "p"))
    check("5 of the 6" in r.err, "pyramid says how many levels fit", r.describe())
    # A failing run leaves existing outputs alone (and no temporary files).
    keep = os.path.join(errdir, "keep.csv")
    with open(keep, "w") as f:
        f.write("old")
    r = clv("corners", "--max", "10", "--quality", "0.1", "--min-distance", "5", path, keep,
            "--draw", os.path.join(errdir, "nodir", "d.png"))
    check(r.code == 1, "corners failing after its CSV", r.describe())
    with open(keep) as f:
        check(f.read() == "old", "the existing CSV is untouched")
    check(os.listdir(errdir) == ["keep.csv"], "no temporary files left", repr(os.listdir(errdir)))


DEMO_LINE = re.compile(r"^(?P<label>\S.*?)\s+(?P<stem>chelsea|camera|chelsea_hdr|studio_256|lk_prev|lk_next"
                       r"|flow_\w+0)\.(png|pfm|exr)"
                       r" (?P<w>\d+)x(?P<h>\d+) (gray|rgb|rgba) (u8|u16|f32)"
                       r"\s+wall\s+[0-9.]+ ms\s+device\s+[0-9.]+ ms\s+-> (?P<outs>\S+\.(png|csv|flo)(, \S+\.(png|csv|flo))*)"
                       r"(?P<note> \(.*\))?$")
DEMO_SKIP = re.compile(r"^tonemap  skipped: studio_256\.exr: built without OpenEXR$")
DEMO_EVAL = re.compile(r"^flow-eval\s+(?P<est>\S+\.flo) vs (?P<gt>\S+\.flo)  (?P<figures>AEE=\d+\.\d{4} AAE=\d+\.\d{4}"
                       r" R1=\d+\.\d{4} R3=\d+\.\d{4} R5=\d+\.\d{4})$")
DEMO_TRACK_NOTE = re.compile(r"^ \((?P<tracked>\d+) of (?P<n>\d+) corners tracked into lk_next\.png, median error"
                             r" (?P<median>[0-9.]+) px vs the known motion\)$")
# 6 ops x 2 images x (own type, f32), bilateral, grid x 2, grid cross, and
# tonemap of the synthetic HDR and of studio_256.exr (or its skip line);
# then corners, track, farneback, warp and flow-eval on the bundled pair,
# and farneback and flow-eval per ground-truth pair (flow_*_gt.flo).
DEMO_LINES = 35


def test_demo(tmp):
    if not check(os.path.isfile(os.path.join(DATA, "chelsea.png"))
                 and os.path.isfile(os.path.join(DATA, "camera.png")),
                 "bundled images present in CLV_TEST_DATA", DATA):
        return
    chelsea = png_header(os.path.join(DATA, "chelsea.png"))
    camera = png_header(os.path.join(DATA, "camera.png"))
    lk = png_header(os.path.join(DATA, "lk_prev.png"))
    sizes = {"chelsea": chelsea[:2], "camera": camera[:2], "chelsea_hdr": chelsea[:2], "lk_prev": lk[:2],
             "lk_next": lk[:2]}
    import glob
    truth = sorted(glob.glob(os.path.join(DATA, "flow_*_gt.flo")))

    demo_dir = os.path.join(tmp, "demo", "nested")
    r = clv("demo", demo_dir, env={"CLV_DATA_DIR": DATA})
    if not ok(r, "demo runs"):
        return
    lines = r.out.rstrip("\n").split("\n")
    want_lines = DEMO_LINES + 2 * len(truth)
    check(len(lines) == want_lines, "demo prints one line per op (%d)" % want_lines,
          "%d lines:\n%s" % (len(lines), r.out))
    skipped = [l for l in lines if DEMO_SKIP.match(l)]
    check(len(skipped) <= 1 and (not skipped or lines[lines.index(skipped[0]) - 1].startswith("tonemap")),
          "demo skips at most the EXR tone mapping, after the other one", r.out)
    files = set()
    in_size = {}  # output file -> size of its input
    evals = []
    for line in lines:
        if DEMO_SKIP.match(line):
            continue
        m = DEMO_EVAL.match(line)
        if m:
            evals.append(m)
            for key in ("est", "gt"):
                if os.path.dirname(m.group(key)) == demo_dir:
                    files.add(os.path.basename(m.group(key)))
            continue
        m = DEMO_LINE.match(line)
        if not check(m is not None, "demo line format", repr(line)):
            continue
        stem, w, h = m.group("stem"), int(m.group("w")), int(m.group("h"))
        check((w, h) == sizes.get(stem, (w, h)), "demo line gives the input size", line)
        for out in m.group("outs").split(", "):
            check(os.path.dirname(out) == demo_dir, "demo writes into DIR", line)
            check(os.path.isfile(out), "demo output exists", out)
            files.add(os.path.basename(out))
            in_size[os.path.basename(out)] = (w, h)
        if m.group("label") == "track LK":
            n = DEMO_TRACK_NOTE.match(m.group("note") or "")
            if check(n is not None, "demo track line says how many were tracked and how well", line):
                check(int(n.group("tracked")) >= 0.9 * int(n.group("n")) >= 90 and float(n.group("median")) < 0.1,
                      "demo tracks most corners of the bundled pair within 0.1 px (median)", line)
    check(len(evals) == 1 + len(truth), "demo prints flow-eval for the bundled pair and each truth pair",
          "%d lines for %d pairs" % (len(evals), len(truth)))
    for m in evals:
        # The line is what 'clv flow-eval EST GT' prints.
        e = clv("flow-eval", m.group("est"), m.group("gt"))
        check(e.code == 0 and e.out == m.group("figures") + "\n", "demo flow-eval line == clv flow-eval",
              "%r vs %r" % (m.group(0), e.out))
        check(float(m.group("figures").split()[0][4:]) < 2.0, "demo flow has an AEE below 2 px", m.group(0))
    files.add("chelsea_hdr.pfm")  # the synthetic HDR input, named on its line
    listed = set(os.listdir(demo_dir))
    check(files == listed, "demo files are the printed ones and the PFM",
          "%r vs %r" % (sorted(files), sorted(listed)))
    # The corners drawing and the colour wheel picture.
    corners_csv = os.path.join(demo_dir, "camera_corners.csv")
    if os.path.isfile(corners_csv):
        header, rows, _ = csv_rows(corners_csv)
        check(header == "x,y,response" and 50 <= len(rows) <= 500, "demo camera_corners.csv", repr(header))
        drawn = png_read(os.path.join(demo_dir, "camera_corners.png"))
        x, y = int(float(rows[0][0])), int(float(rows[0][1]))
        check(drawn.channels == 3 and [drawn.at(x, y, c) for c in range(3)] == [255, 0, 0],
              "demo camera_corners.png marks the strongest corner in red")
    track_csv = os.path.join(demo_dir, "lk_track.csv")
    if os.path.isfile(track_csv):
        check(csv_rows(track_csv)[0] == "x0,y0,x1,y1,status,error", "demo lk_track.csv header")
    wheel = os.path.join(demo_dir, "lk_flow.png")
    if os.path.isfile(wheel):
        img = png_read(wheel)
        check(img.channels == 3 and len(set(zip(img.pixels[0::3], img.pixels[1::3], img.pixels[2::3]))) > 100,
              "demo lk_flow.png is a colourful RGB picture")
    n_files = len(listed)

    # Shapes and spot checks of content.
    for f in sorted(listed):
        if not f.endswith(".png"):
            continue
        w0, h0 = in_size.get(f, (0, 0))
        w, h, depth, ctype = png_header(os.path.join(demo_dir, f))
        if "transpose" in f:
            want = (h0, w0)
        elif "resize_half" in f:
            want = (round(w0 / 2 + 1e-9), round(h0 / 2 + 1e-9))
        elif "resize_1.5x" in f:
            want = (int(w0 * 1.5 + 0.5), int(h0 * 1.5 + 0.5))
        else:
            want = (w0, h0)
        check(abs(w - want[0]) <= 1 and abs(h - want[1]) <= 1 and depth == 8,
              "demo %s size" % f, "%dx%d, wanted about %dx%d" % (w, h, want[0], want[1]))
        if "tonemap" in f:
            check((w, h) == (w0, h0) and ctype == 2, "demo %s is RGB of the input size" % f,
                  "%dx%d color type %d" % (w, h, ctype))
    pfm = os.path.join(demo_dir, "chelsea_hdr.pfm")
    if check(os.path.isfile(pfm), "demo saves the synthetic HDR as chelsea_hdr.pfm"):
        with open(pfm, "rb") as f:
            head = f.read(32)
        check(head.startswith(b"PF\n%d %d\n" % chelsea[:2]),
              "chelsea_hdr.pfm is an RGB PFM of chelsea's size", repr(head))
        again = os.path.join(tmp, "chelsea_hdr_again.png")
        tm = os.path.join(demo_dir, "chelsea_hdr_tonemap.png")
        if ok(clv("tonemap", pfm, again), "clv tonemap on the demo's PFM") and os.path.isfile(tm):
            check(same_image(png_read(again), png_read(tm)),
                  "clv tonemap on chelsea_hdr.pfm reproduces the demo's chelsea_hdr_tonemap.png")
    ga = os.path.join(demo_dir, "chelsea_grid.png")
    gb = os.path.join(demo_dir, "chelsea_grid_cross.png")
    if os.path.isfile(ga) and os.path.isfile(gb):
        a, b = png_read(ga), png_read(gb)
        d = max_diff(a.pixels, b.pixels) if len(a.pixels) == len(b.pixels) else float("inf")
        check(d <= 2, "demo grid cross with the image's own luma ~ plain grid (within 2)",
              "max diff %g" % d)
    cam = png_read(os.path.join(DATA, "camera.png"))
    t8 = os.path.join(demo_dir, "camera_transpose.png")
    t32 = os.path.join(demo_dir, "camera_transpose_f32.png")
    if os.path.isfile(t8) and os.path.isfile(t32):
        a, b = png_read(t8), png_read(t32)
        check(a.width == cam.height and all(a.at(x, y) == cam.at(y, x) for y in range(0, a.height, 7)
                                            for x in range(a.width)),
              "demo camera transpose is right")
        check(same_image(a, b), "demo transpose u8 == f32 round trip")
    g8 = os.path.join(demo_dir, "camera_gaussian2.png")
    g32 = os.path.join(demo_dir, "camera_gaussian2_f32.png")
    if os.path.isfile(g8) and os.path.isfile(g32):
        a, b = png_read(g8), png_read(g32)
        d = max_diff(a.pixels, b.pixels) if len(a.pixels) == len(b.pixels) else float("inf")
        check(d <= 1, "demo gaussian u8 and f32 agree within 1", "max diff %g" % d)

    # The data directory has to exist; the error names what was tried.
    r = clv("demo", os.path.join(tmp, "demo2"), env={"CLV_DATA_DIR": os.path.join(tmp, "nowhere")})
    check(one_error_line(r) and r.code == 1 and "nowhere" in r.err,
          "demo with a bad CLV_DATA_DIR fails with one line naming it", r.describe())
    # The bundled HDR image is part of the data: without it the demo fails
    # before writing anything (a library without OpenEXR only skips it).
    partial = os.path.join(tmp, "partial")
    os.mkdir(partial)
    for name in ("chelsea.png", "camera.png"):
        os.symlink(os.path.abspath(os.path.join(DATA, name)), os.path.join(partial, name))
    r = clv("demo", os.path.join(tmp, "demo3"), env={"CLV_DATA_DIR": partial})
    check(one_error_line(r) and r.code == 1 and "studio_256.exr" in r.err and r.out == ""
          and not os.path.exists(os.path.join(tmp, "demo3")),
          "demo without studio_256.exr fails up front with one line naming it", r.describe())
    # So is the flow pair.
    os.symlink(os.path.abspath(os.path.join(DATA, "studio_256.exr")), os.path.join(partial, "studio_256.exr"))
    os.symlink(os.path.abspath(os.path.join(DATA, "lk_prev.png")), os.path.join(partial, "lk_prev.png"))
    r = clv("demo", os.path.join(tmp, "demo3"), env={"CLV_DATA_DIR": partial})
    check(one_error_line(r) and r.code == 1 and "lk_next.png" in r.err and r.out == ""
          and not os.path.exists(os.path.join(tmp, "demo3")),
          "demo without lk_next.png fails up front with one line naming it", r.describe())
    # Without CLV_DATA_DIR: tests/data next to the executable or in the current
    # directory. Here the current directory has none, so the outcome depends on
    # where the build tree is: either it finds the images next to the binary
    # and writes ./clv-demo, or it fails naming the places it looked.
    env = {k: v for k, v in os.environ.items() if k != "CLV_DATA_DIR"}
    bare = os.path.join(tmp, "bare")
    os.mkdir(bare)
    proc = subprocess.run([CLI, "demo"], capture_output=True, text=True, cwd=bare, env=env,
                          timeout=TIMEOUT)
    r = Result(["demo"], proc)
    if r.code == 0:
        check(len(os.listdir(os.path.join(bare, "clv-demo"))) == n_files,
              "demo without DIR writes ./clv-demo", r.describe())
    else:
        check(one_error_line(r) and "./tests/data" in r.err and "CLV_DATA_DIR" in r.err,
              "demo without data names the paths tried", r.describe())
    # With ./tests/data in the current directory it always finds them.
    here = os.path.join(tmp, "here")
    os.makedirs(os.path.join(here, "tests"))
    os.symlink(os.path.abspath(DATA), os.path.join(here, "tests", "data"))
    proc = subprocess.run([CLI, "demo", "out"], capture_output=True, text=True, cwd=here, env=env,
                          timeout=TIMEOUT)
    r = Result(["demo", "out"], proc)
    if ok(r, "demo finds ./tests/data"):
        check(len(os.listdir(os.path.join(here, "out"))) == n_files,
              "demo writes %d files into out" % n_files)


def test_issue13_numbers(tmp, inputs):
    """Issue 13 #14: subnormal numbers are numbers (the library takes them)."""
    name, path, img = inputs[1]
    out = os.path.join(tmp, "gauss_subnormal.png")
    if ok(clv("gaussian", "--sigma", "1e-320", path, out), "gaussian --sigma 1e-320 (subnormal)"):
        check(same_image(png_read(out), img), "gaussian --sigma 1e-320: a 1-tap kernel, IN itself")
    prev, nxt = os.path.join(tmp, "tex0.png"), os.path.join(tmp, "tex1.png")
    png_write(prev, texture(96, 80))
    png_write(nxt, texture(96, 80, 3.0, -2.0))
    pts = os.path.join(tmp, "pts_subnormal.csv")
    with open(pts, "w") as f:
        f.write("x,y,response\n1e-320,30,4.9e-324\n30,30,1\n")
    out = os.path.join(tmp, "track_subnormal.csv")
    if ok(clv("track", "--points", pts, prev, nxt, out), "track --points with subnormal numbers"):
        _, rows, text = csv_rows(out)
        check(len(rows) == 2 and float(rows[0][0]) == 0.0 and float(rows[0][1]) == 30.0,
              "track: the subnormal x is kept (0 as a float)", text)


def test_issue13_csv_limits(tmp, inputs):
    """Issue 13 #12, #16: the CSV bounds take what is inside them."""
    prev, nxt = os.path.join(tmp, "tex0.png"), os.path.join(tmp, "tex1.png")
    png_write(prev, texture(96, 80))
    png_write(nxt, texture(96, 80, 3.0, -2.0))
    pts = os.path.join(tmp, "pts_limits.csv")
    line = "30." + "0" * (1024 - len("30.,40")) + ",40"
    assert len(line) == 1024
    with open(pts, "wb") as f:
        f.write(b"x,y\r\n" + line.encode() + b"\r\n3.4e38,-3.4e38\r\n")
    out = os.path.join(tmp, "track_limits.csv")
    if ok(clv("track", "--points", pts, prev, nxt, out),
          "track --points: a 1024-byte line (CRLF) and coordinates near the float limit"):
        _, rows, text = csv_rows(out)
        check(len(rows) == 2 and float(rows[0][0]) == 30.0 and float(rows[0][1]) == 40.0,
              "track: the 1024-byte line is read", text)
        check(len(rows) == 2 and rows[1][0] != "inf" and abs(float(rows[1][0]) - 3.4e38) < 1e32,
              "track: 3.4e38 stays finite", text)


def test_issue13_outputs(tmp, inputs):
    """Issue 13 #11: an output may be an input (read whole first, then the
    result renamed into place); two outputs may be in one directory."""
    name, path, img = inputs[1]
    same = os.path.join(tmp, "box_inplace.png")
    shutil.copy(path, same)
    ref = os.path.join(tmp, "box_ref.png")
    if ok(clv("box", "--ksize", "3x3", path, ref), "box into another file") and \
            ok(clv("box", "--ksize", "3x3", same, same), "box IN IN (in place)"):
        check(same_image(png_read(same), png_read(ref)), "box IN IN gives the same result")
    src = os.path.join(tmp, "corners_inplace.png")
    shutil.copy(path, src)
    drawn = os.path.join(tmp, "corners_drawn.png")
    csv = os.path.join(tmp, "corners_inplace.csv")
    if ok(clv("corners", "--max", "5", "--quality", "0.1", "--min-distance", "2", path, csv,
              "--draw", drawn), "corners --draw into another file") and \
            ok(clv("corners", "--max", "5", "--quality", "0.1", "--min-distance", "2", src,
                   os.path.join(tmp, ".", "corners_inplace.csv"), "--draw", src),
               "corners --draw over IN, OUT.csv spelled with ./"):
        check(same_image(png_read(src), png_read(drawn)), "corners --draw over IN: the same drawing")


def main():
    if not CLI or not os.path.isfile(CLI):
        print("cli: CLV_CLI must name the clv binary (got %r)" % CLI)
        print("cli: 0 passed, 1 failed")
        return 1
    tmp = tempfile.mkdtemp(prefix="clv-cli-test-")
    code = run_all(tmp)
    if code is not None:
        return code
    return summary("cli")


def run_all(tmp):
    if not os.environ.get("CLV_CACHE_DIR"):
        os.environ["CLV_CACHE_DIR"] = os.path.join(tmp, "cache")
    try:
        inputs = []
        for name, img in (("rgb8", pattern(23, 17, 3, 8, 1)),
                          ("gray8", pattern(31, 12, 1, 8, 2)),
                          ("gray16", pattern(13, 19, 1, 16, 3)),
                          ("rgba8", pattern(9, 14, 4, 8, 4))):
            p = os.path.join(tmp, name + ".png")
            png_write(p, img)
            assert same_image(png_read(p), img)
            inputs.append((name, p, img))

        test_usage(tmp)
        # Like the C tests: no OpenCL device at all is a skip (77), unless
        # CLV_REQUIRE_DEVICE=1 (CI) or CLV_DEVICE asks for one.
        r = clv("devices")
        if r.code != 0 and os.environ.get("CLV_REQUIRE_DEVICE") != "1" \
                and not os.environ.get("CLV_DEVICE"):
            print("SKIP: no OpenCL device: %s" % r.err.strip())
            return 77
        device_lines = test_devices(tmp)
        test_transpose(tmp, inputs)
        test_resize(tmp, inputs)
        test_box(tmp, inputs)
        test_gaussian(tmp, inputs)
        test_bilateral(tmp, inputs)
        test_grid(tmp, inputs)
        test_tonemap(tmp, inputs)
        test_time(tmp, inputs)
        test_device(tmp, inputs, device_lines)
        test_errors(tmp, inputs)
        test_bundled(tmp)
        test_pyramid(tmp, inputs)
        test_corners(tmp, inputs)
        test_gray_weights(tmp)
        test_track(tmp, inputs)
        test_flow(tmp, inputs)
        test_flow_eval(tmp)
        test_warp(tmp, inputs)
        test_generic_ops(tmp, inputs)
        test_flow_seq(tmp, inputs)
        test_flow_seq_order(tmp)
        test_flow_seq_incremental(tmp)
        test_flow_seq_progress(tmp)
        test_flow_seq_color_scale(tmp)
        test_flow_time(tmp, inputs)
        test_flow_errors(tmp, inputs)
        test_demo(tmp)
        test_issue13_numbers(tmp, inputs)
        test_issue13_csv_limits(tmp, inputs)
        test_issue13_outputs(tmp, inputs)
        test_io2_signals(tmp, inputs)
    finally:
        if os.environ.get("CLV_KEEP_TMP"):
            print("cli: files kept in %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return None


# ---- issue 13 #8, #17: signals remove temporaries; modes are kept ---------

def staged_files(d):
    """Temporaries of a write in progress: the CLI's ".clv-*" staged files and
    the library's "<name>.XXXXXX" ones."""
    return sorted(n for n in os.listdir(d)
                  if n.startswith(".clv-") or re.search(r"\.(png|csv|flo)\.[A-Za-z0-9]{6}$", n))


def test_io2_signals(tmp, inputs):
    import signal
    import time
    d = os.path.join(tmp, "signals")
    os.mkdir(d)
    name, path, img = inputs[0]
    cases = (("transpose", signal.SIGTERM, ["transpose", path, os.path.join(d, "t.png")]),
             ("pyramid", signal.SIGINT, ["pyramid", "--levels", "2", path, os.path.join(d, "p")]),
             ("transpose", signal.SIGHUP, ["transpose", path, os.path.join(d, "t.png")]))
    old = b"old contents"
    for what, sig, args in cases:
        for n in os.listdir(d):
            os.unlink(os.path.join(d, n))
        with open(os.path.join(d, "t.png"), "wb") as f:
            f.write(old)
        env = dict(os.environ)
        env["CLV_TEST_HOLD_WRITE"] = "1"
        proc = subprocess.Popen([CLI] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env)
        line = b""
        deadline = time.time() + TIMEOUT
        while b"clv-test: holding" not in line and time.time() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
        held = staged_files(d)
        if b"clv-test: holding" in line:
            proc.send_signal(sig)
        else:
            proc.kill()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        err = proc.stderr.read().decode(errors="replace")
        desc = "%s: held %r, exit %r, stderr %r" % (what, held, proc.returncode, err[-400:])
        check(b"clv-test: holding" in line, "%s: the write reached its temporary file" % what, desc)
        want_held = 2 if what == "pyramid" else 1  # staged .clv-* + library temp, or library temp
        check(len(held) == want_held, "%s: %d temporaries while writing" % (what, want_held), desc)
        check(proc.returncode == -sig, "%s: killed by %s (exit status shows the signal)"
              % (what, signal.Signals(sig).name), desc)
        check(staged_files(d) == [], "%s: %s removed every temporary" % (what,
              signal.Signals(sig).name), "%r left; %s" % (staged_files(d), desc))
        with open(os.path.join(d, "t.png"), "rb") as f:
            check(f.read() == old, "%s: the old output is untouched" % what, desc)
        check(not os.path.exists(os.path.join(d, "p_0.png")), "%s: no output" % what, desc)

    # Overwriting keeps the permission bits (direct write, staged image and CSV).
    outs = (("transpose", ["transpose", path, os.path.join(d, "m.png")], "m.png"),
            ("pyramid", ["pyramid", "--levels", "2", path, os.path.join(d, "mp")], "mp_1.png"),
            ("corners", ["corners", "--max", "5", "--quality", "0.01", "--min-distance", "2",
                         path, os.path.join(d, "m.csv")], "m.csv"))
    for what, args, out in outs:
        target = os.path.join(d, out)
        if not ok(clv(*args), "%s: first write" % what):
            continue
        for mode in (0o600, 0o640):
            os.chmod(target, mode)
            r = clv(*args)
            ok(r, "%s: overwrite a %o file" % (what, mode))
            got = os.stat(target).st_mode & 0o7777
            check(got == mode, "%s: overwrite keeps mode %o (got %o)" % (what, mode, got))
    check(staged_files(d) == [], "no temporaries after the writes", repr(staged_files(d)))


# ---- flow-seq: frame order, incremental results, progress, one colour scale --

SEQ_NAME = re.compile(r"^flow_(\d{4})\.(flo|png)$")


def seq_pairs_written(d, color):
    """The pair indices whose files are all in d, and a list of problems: a
    name other than flow_NNNN.flo/.png (a temporary), a .flo or .png that is
    not a whole file, a pair missing one of its files, a gap in the indices."""
    problems, found = [], {}
    for n in sorted(os.listdir(d)):
        m = SEQ_NAME.match(n)
        if not m:
            problems.append("unexpected %r" % n)
            continue
        found.setdefault(int(m.group(1)), set()).add(m.group(2))
        p = os.path.join(d, n)
        try:
            if m.group(2) == "flo":
                w, h, uv = flo_read(p)
                if os.path.getsize(p) != 12 + 8 * w * h:
                    problems.append("%s has %d bytes" % (n, os.path.getsize(p)))
            else:
                png_read(p)
        except Exception as e:  # a cut file: struct or zlib errors
            problems.append("%s: %s" % (n, e))
    want = {"flo", "png"} if color else {"flo"}
    for k, kinds in sorted(found.items()):
        if kinds != want:
            problems.append("pair %d has only %s" % (k, sorted(kinds)))
    pairs = sorted(found)
    if pairs != list(range(len(pairs))):
        problems.append("pairs %r are not 0..n-1" % pairs)
    return pairs, problems


def test_flow_seq_order(tmp):
    """Frames are taken in natural order (digit runs by value) and frames of
    another size are refused before anything is computed or written."""
    d = os.path.join(tmp, "seq_order")
    os.mkdir(d)
    w, h = 64, 48
    # Text order would be f_10, f_100, f_9.
    names = ["f_9.png", "f_10.png", "f_100.png"]
    for i, n in enumerate(names):
        png_write(os.path.join(d, n), texture(w, h, 0.7 * i, 0.4 * i * i))
    out = os.path.join(tmp, "seq_order_out")
    if ok(clv("flow-seq", os.path.join(d, "f_*.png"), out), "flow-seq over f_9, f_10, f_100"):
        for k in range(2):
            single = os.path.join(tmp, "seq_order_%d.flo" % k)
            a, b = names[k], names[k + 1]
            if ok(clv("flow", os.path.join(d, a), os.path.join(d, b), single), "flow %s %s" % (a, b)):
                with open(single, "rb") as x, open(os.path.join(out, "flow_%04d.flo" % k), "rb") as y:
                    check(x.read() == y.read(), "flow-seq flow_%04d.flo is the flow %s -> %s (natural order)"
                          % (k, a, b))
    # A frame of another size, last in natural order: refused up front, before
    # the device is even looked for (so the message is about the frame, not
    # about CLV_DEVICE), and nothing is created.
    shutil.copy(os.path.join(d, "f_9.png"), os.path.join(d, "f_1.png"))
    png_write(os.path.join(d, "f_1000.png"), texture(w + 2, h, 0.0, 0.0))
    out2 = os.path.join(tmp, "seq_order_mixed", "out")
    for env in (None, {"CLV_DEVICE": "no-such-device"}):
        r = clv("flow-seq", "--color", os.path.join(d, "f_*.png"), out2, env=env)
        what = "flow-seq with f_1000.png of another size%s" % (" (no device)" if env else "")
        check(one_error_line(r) and r.code == 1, "%s: one error line, exit 1" % what, r.describe())
        check("f_1000.png" in r.err and "size" in r.err and "device" not in r.err,
              "%s: names the frame and the size" % what, r.describe())
        check(not os.path.exists(os.path.dirname(out2)), "%s: nothing created" % what,
              repr(os.listdir(tmp)))


def test_flow_seq_incremental(tmp):
    """Results appear pair by pair: a failure or a signal part way leaves the
    pairs done, whole, no temporary files, and says how many there are."""
    import signal
    import time
    d = os.path.join(tmp, "seq_inc")
    os.mkdir(d)
    w, h = 64, 48
    for i in range(6):
        png_write(os.path.join(d, "f%d.png" % i), texture(w, h, 0.5 * i, 0.25 * i))
    # A failure at pair 3 (its .flo name is taken by a directory).
    out = os.path.join(tmp, "seq_inc_out")
    os.makedirs(os.path.join(out, "flow_0003.flo"))
    r = clv("flow-seq", "--color", os.path.join(d, "f*.png"), out)
    lines = r.err.split("\n")
    check(r.code == 1 and len(lines) == 3 and lines[2] == "", "flow-seq failing at pair 3: exit 1, two lines",
          r.describe())
    check("flow_0003.flo" in lines[0], "flow-seq failing at pair 3: the first line names the output",
          r.describe())
    check(len(lines) > 1 and "wrote 3 of 5 pairs" in lines[1], "flow-seq failing at pair 3: says 3 of 5 are written",
          r.describe())
    os.rmdir(os.path.join(out, "flow_0003.flo"))
    pairs, problems = seq_pairs_written(out, True)
    check(pairs == [0, 1, 2] and not problems, "flow-seq failing at pair 3 keeps pairs 0..2, whole",
          "%r %r" % (pairs, problems))

    # SIGINT after the first pair is in place.
    big = os.path.join(tmp, "seq_sig")
    os.mkdir(big)
    bw, bh = 320, 240
    png_write(os.path.join(big, "f000.png"), texture(bw, bh, 0.0, 0.0))
    png_write(os.path.join(big, "f001.png"), texture(bw, bh, 1.0, 0.5))
    frames = 61
    for i in range(2, frames):
        shutil.copy(os.path.join(big, "f%03d.png" % (i % 2)), os.path.join(big, "f%03d.png" % i))
    out = os.path.join(tmp, "seq_sig_out")
    proc = subprocess.Popen([CLI, "flow-seq", "--color", os.path.join(big, "f*.png"), out],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + TIMEOUT
    seen = False
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(os.path.join(out, "flow_0000.flo")):
            seen = True
            proc.send_signal(signal.SIGINT)
            break
        time.sleep(0.005)
    if proc.poll() is None and not seen:
        proc.kill()
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    err = err.decode(errors="replace")
    desc = "exit %r, stderr %r" % (proc.returncode, err[-600:])
    check(seen, "flow-seq: the first result appears while the run goes on", desc)
    check(proc.returncode == -signal.SIGINT, "flow-seq: SIGINT part way kills it (exit shows the signal)", desc)
    if os.path.isdir(out):
        pairs, problems = seq_pairs_written(out, True)
        check(not problems, "flow-seq after SIGINT: only whole results, no temporaries", "%r; %s"
              % (problems, desc))
        check(1 <= len(pairs) < frames - 1, "flow-seq after SIGINT: some but not all pairs written",
              "%d pairs; %s" % (len(pairs), desc))
        check("interrupted after %d of %d pairs" % (len(pairs), frames - 1) in err,
              "flow-seq after SIGINT says how many pairs are written", desc)


def test_flow_seq_progress(tmp):
    """Without a terminal: a plain line every 10 pairs and after the last."""
    r = clv("flow-seq", "--help")
    check("every 10 pairs" in r.out, "flow-seq --help tells the progress lines", r.describe())
    d = os.path.join(tmp, "seq_prog")
    os.mkdir(d)
    w, h = 48, 40
    for i in range(13):
        png_write(os.path.join(d, "f%02d.png" % i), texture(w, h, 0.3 * i, 0.0))
    out = os.path.join(tmp, "seq_prog_out")
    r = clv("flow-seq", os.path.join(d, "f*.png"), out)
    check(r.code == 0 and r.err == "clv: flow-seq: 10/12 pairs\nclv: flow-seq: 12/12 pairs\n",
          "flow-seq over 12 pairs, stderr not a terminal: lines at 10 and 12", r.describe())
    r = clv("--time", "flow-seq", os.path.join(d, "f*.png"), out)
    lines = r.err.split("\n")
    check(r.code == 0 and len(lines) == 4 and lines[:2] == ["clv: flow-seq: 10/12 pairs",
                                                            "clv: flow-seq: 12/12 pairs"]
          and TIME_LINE.match(lines[2] + "\n"), "--time flow-seq: progress lines, then the time", r.describe())


def test_flow_seq_color_scale(tmp):
    """--color codes every frame with one scale: --max-flow, by default the
    first pair's largest motion; larger motions are darker (Middlebury)."""
    import math
    d = os.path.join(tmp, "seq_scale")
    os.mkdir(d)
    w, h = 64, 48
    # pair 0 moves 0.5 px, pair 1 about 2.5 px
    shifts = [(0.0, 0.0), (0.5, 0.0), (2.5, 1.0)]
    for i, (dx, dy) in enumerate(shifts):
        png_write(os.path.join(d, "f%d.png" % i), texture(w, h, dx, dy))
    out = os.path.join(tmp, "seq_scale_out")
    if not ok(clv("flow-seq", "--color", os.path.join(d, "f*.png"), out), "flow-seq --color, two motions"):
        return
    mags = []
    for k in range(2):
        _, _, uv = flo_read(os.path.join(out, "flow_%04d.flo" % k))
        mags.append([math.hypot(u, v) for u, v in uv])
    m0 = max(mags[0])
    check(max(mags[1]) > 2 * m0, "pair 1 moves more than pair 0", "%g vs %g" % (max(mags[1]), m0))
    # Pixels of pair 1 beyond pair 0's largest motion are past full colour:
    # darkened to 3/4 (no channel above 191), not at full saturation as with
    # a per-frame scale.
    rgb1 = png_read(os.path.join(out, "flow_0001.png"))
    beyond = [i for i, m in enumerate(mags[1]) if m > 1.01 * m0]
    brightest = max(max(rgb1.pixels[3 * i:3 * i + 3]) for i in beyond) if beyond else None
    check(len(beyond) > len(mags[1]) // 2 and brightest is not None and brightest <= 192,
          "flow-seq --color: pair 1 coded with pair 0's scale (its larger motions darkened)",
          "%d of %d beyond, brightest channel %r" % (len(beyond), len(mags[1]), brightest))
    # The same as giving that scale explicitly (up to the rounding of the
    # scale: one level).
    out2 = os.path.join(tmp, "seq_scale_out2")
    if ok(clv("flow-seq", "--color", "--max-flow", "%.9g" % m0, os.path.join(d, "f*.png"), out2),
          "flow-seq --color --max-flow M"):
        for k in range(2):
            a = png_read(os.path.join(out, "flow_%04d.png" % k))
            b = png_read(os.path.join(out2, "flow_%04d.png" % k))
            diff = max_diff(a.pixels, b.pixels)
            check(diff <= 1, "flow-seq default scale == --max-flow <pair 0's largest> (frame %d)" % k,
                  "max diff %d" % diff)
    # An explicit scale is used for every frame, the first included.
    out3 = os.path.join(tmp, "seq_scale_out3")
    if ok(clv("flow-seq", "--color", "--max-flow=%.9g" % (4 * m0), os.path.join(d, "f*.png"), out3),
          "flow-seq --color --max-flow 4M"):
        def saturation(img):  # full colours have a channel at 255 and one at 0
            return max(max(img.pixels[i:i + 3]) - min(img.pixels[i:i + 3]) for i in range(0, len(img.pixels), 3))
        own = saturation(png_read(os.path.join(out, "flow_0000.png")))
        quarter = saturation(png_read(os.path.join(out3, "flow_0000.png")))
        check(own >= 250 and quarter <= 70, "flow-seq --max-flow 4M: pair 0 at a quarter of full colour",
              "saturation %d by default, %d with 4M" % (own, quarter))
    for bad in (["--max-flow", "0", "--color"], ["--max-flow", "-1", "--color"], ["--max-flow", "x", "--color"],
                ["--max-flow", "2"]):
        r = clv("flow-seq", *bad, os.path.join(d, "f*.png"), os.path.join(tmp, "seq_scale_bad"))
        check(one_error_line(r) and r.code == 2 and "--max-flow" in r.err, "flow-seq %s: usage error" % " ".join(bad),
              r.describe())
        check(not os.path.exists(os.path.join(tmp, "seq_scale_bad")), "flow-seq %s: nothing written" % " ".join(bad))


if __name__ == "__main__":
    sys.exit(main())
