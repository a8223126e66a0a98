#!/usr/bin/python3
"""Regenerate the test images in this directory from photos shipped by Debian
packages (python3-skimage, opencv-doc) and, for the HDR test image, an HDRI
shipped by blender-data. See LICENSE.md for sources/licences.

Run with the system Python (it needs numpy, OpenCV and Pillow):
    /usr/bin/python3 tests/data/make_data.py

Besides the images it writes expected.txt: for each PNG the size, channel
count, sample type and an FNV-1a 64 hash of the pixels clvision must decode
(rows packed, samples in order, u16 samples as little-endian byte pairs),
computed from the arrays this script encoded -- never from clvision's output.
Most PNGs are encoded by the small writer below (so every colour type, bit
depth, filter type and Adam7 interlacing is under our control) and each one
is decoded again with OpenCV and/or Pillow to check it holds what we meant.
For the lossy JPEG the manifest holds the per-channel mean of Pillow's
decode instead; the test allows a small tolerance. For the OpenEXR file it
holds the per-channel mean of the half-float array encoded (checked against
OpenCV's decode of the file).
"""
import os
import shutil
import struct
import zlib

# OpenCV reads and writes OpenEXR only when asked to (set before the import).
os.environ.setdefault("OPENCV_IO_ENABLE_OPENEXR", "1")

import cv2
import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
SKIMAGE = "/usr/lib/python3/dist-packages/skimage/data"
OPENCV = "/usr/share/doc/opencv-doc/examples/data"
BLENDER_WORLD = "/usr/share/blender/datafiles/studiolights/world"


# ---------------------------------------------------------------- PNG writer

def _chunk(tag, data):
    return (struct.pack(">I", len(data)) + tag + data +
            struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))


def _row_bytes(row, depth):
    """One row of samples (1-D array) as PNG bytes."""
    if depth == 16:
        return row.astype(">u2").tobytes()
    if depth == 8:
        return row.astype(np.uint8).tobytes()
    per = 8 // depth
    v = row.astype(np.uint16)
    pad = (-len(v)) % per
    v = np.concatenate([v, np.zeros(pad, np.uint16)]).reshape(-1, per)
    shifts = np.array([8 - depth * (i + 1) for i in range(per)], np.uint16)
    return (v << shifts).sum(axis=1).astype(np.uint8).tobytes()


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def _filter(raw, prev, bpp, ftype):
    """Filter one row (bytes) with PNG filter ftype 0..4 against prev (raw)."""
    x = np.frombuffer(raw, np.uint8).astype(np.int32)
    b = np.frombuffer(prev, np.uint8).astype(np.int32) if prev else np.zeros_like(x)
    a = np.concatenate([np.zeros(bpp, np.int32), x[:-bpp]]) if len(x) > bpp else np.zeros_like(x)
    c = np.concatenate([np.zeros(bpp, np.int32), b[:-bpp]]) if len(x) > bpp else np.zeros_like(x)
    pred = [np.zeros_like(x), a, b, (a + b) // 2, _paeth(a, b, c)][ftype]
    return bytes([ftype]) + ((x - pred) & 0xFF).astype(np.uint8).tobytes()


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
         (0, 1, 1, 2)]


def write_png(path, arr, color_type, depth, palette=None, trns=None, interlace=False):
    """arr: H x W (gray/palette index) or H x W x C samples."""
    arr = np.asarray(arr)
    h, w = arr.shape[:2]
    channels = 1 if arr.ndim == 2 else arr.shape[2]
    bpp = max(1, channels * depth // 8)
    flat = arr.reshape(h, w * channels) if arr.ndim == 3 else arr

    def encode(block, row0):
        out = b""
        prev = None
        for y in range(block.shape[0]):
            raw = _row_bytes(block[y], depth)
            out += _filter(raw, prev, bpp, (row0 + y) % 5)  # every filter type
            prev = raw
        return out

    if not interlace:
        data = encode(flat, 0)
    else:
        data = b""
        for x0, y0, dx, dy in ADAM7:
            sub = arr[y0::dy, x0::dx]
            if sub.shape[0] == 0 or sub.shape[1] == 0:
                continue
            sub = sub.reshape(sub.shape[0], -1) if sub.ndim == 3 else sub
            data += encode(sub, x0 + y0)
    png = b"\x89PNG\r\n\x1a\n"
    png += _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0,
                                       1 if interlace else 0))
    if palette is not None:
        png += _chunk(b"PLTE", np.asarray(palette, np.uint8).tobytes())
    if trns is not None:
        png += _chunk(b"tRNS", np.asarray(trns, np.uint8).tobytes())
    png += _chunk(b"IDAT", zlib.compress(data, 9))
    png += _chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


# ---------------------------------------------------------------- helpers

def fnv1a64(arr):
    """FNV-1a 64 over the samples, u16 as little-endian byte pairs."""
    arr = np.ascontiguousarray(arr)
    data = arr.astype("<u2").tobytes() if arr.dtype == np.uint16 else arr.astype(np.uint8).tobytes()
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def cv2_decode(path):
    """Decode with OpenCV, channels in RGB(A) order."""
    im = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    assert im is not None, path
    if im.ndim == 3 and im.shape[2] == 3:
        im = cv2.cvtColor(im, cv2.COLOR_BGR2RGB)
    elif im.ndim == 3 and im.shape[2] == 4:
        im = cv2.cvtColor(im, cv2.COLOR_BGRA2RGBA)
    return im


def pil_decode(path, mode):
    return np.asarray(Image.open(path).convert(mode))


def resize(img, w, h):
    return cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)


manifest = []


def expect(name, arr):
    arr = np.asarray(arr)
    h, w = arr.shape[:2]
    c = 1 if arr.ndim == 2 else arr.shape[2]
    t = "u16" if arr.dtype == np.uint16 else "u8"
    manifest.append("%s %d %d %d %s %s" % (name, w, h, c, t, fnv1a64(arr)))


def out(name):
    return os.path.join(HERE, name)


def same(a, b, what):
    assert a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b), what


# ---------------------------------------------------------------- HDR

def make_studio_exr():
    """studio_256.exr: Blender's studio.exr HDRI (CC0, 1024x512 RGB float),
    averaged over 4x4 blocks to 256x128, rounded to half floats and written
    by OpenCV's OpenEXR encoder (HALF channels R, G, B, ZIP compression).
    Without blender-data an existing file is kept (its manifest line comes
    from OpenCV's decode of it); with neither, the file is skipped."""
    name = "studio_256.exr"
    src = os.path.join(BLENDER_WORLD, "studio.exr")
    values = None
    if os.path.exists(src):
        bgr = cv2.imread(src, cv2.IMREAD_UNCHANGED)
        assert bgr is not None and bgr.shape == (512, 1024, 3) and bgr.dtype == np.float32, src
        rgb = bgr[:, :, ::-1].astype(np.float64)
        half = rgb.reshape(128, 4, 256, 4, 3).mean(axis=(1, 3)).astype(np.float16)
        assert np.isfinite(half).all() and half.max() > 1.0, "expected HDR content"
        ok = cv2.imwrite(out(name), np.ascontiguousarray(half.astype(np.float32)[:, :, ::-1]),
                         [cv2.IMWRITE_EXR_TYPE, cv2.IMWRITE_EXR_TYPE_HALF,
                          cv2.IMWRITE_EXR_COMPRESSION, cv2.IMWRITE_EXR_COMPRESSION_ZIP])
        assert ok, name
        values = half.astype(np.float64)
    elif os.path.exists(out(name)):
        print("make_data: %s not found (install blender-data): keeping the existing %s"
              % (src, name))
    else:
        print("make_data: %s not found (install blender-data): skipping %s" % (src, name))
        return
    dec = cv2_decode(out(name)).astype(np.float64)
    if values is None:
        values = dec
    same(dec, values, name)
    manifest.append("%s %d %d %d f32 mean %.7f %.7f %.7f" %
                    ((name, 256, 128, 3) + tuple(values.reshape(-1, 3).mean(axis=0))))


# ---------------------------------------------------------------- the files

def main():
    rgb_chelsea = pil_decode(os.path.join(SKIMAGE, "chelsea.png"), "RGB")

    # chelsea.png: the original file (8-bit RGB with iCCP/iTXt chunks).
    shutil.copyfile(os.path.join(SKIMAGE, "chelsea.png"), out("chelsea.png"))
    same(cv2_decode(out("chelsea.png")), rgb_chelsea, "chelsea")
    expect("chelsea.png", rgb_chelsea)

    # camera.png: 8-bit gray, 256x256, encoded by Pillow.
    camera = resize(pil_decode(os.path.join(SKIMAGE, "camera.png"), "L"), 256, 256)
    Image.fromarray(camera).save(out("camera.png"), optimize=True)
    same(cv2_decode(out("camera.png")), camera, "camera")
    expect("camera.png", camera)

    # camera_2bit.png: 2-bit gray, 64x64; decodes to v * 85.
    cam2 = resize(camera, 64, 64) >> 6
    write_png(out("camera_2bit.png"), cam2, 0, 2)
    same(cv2_decode(out("camera_2bit.png")), (cam2 * 85).astype(np.uint8), "camera_2bit")
    expect("camera_2bit.png", (cam2 * 85).astype(np.uint8))

    # coffee.jpg: 300x200, quality 90, encoded by Pillow (libjpeg-turbo).
    coffee = resize(pil_decode(os.path.join(SKIMAGE, "coffee.png"), "RGB"), 300, 200)
    Image.fromarray(coffee).save(out("coffee.jpg"), quality=90)
    dec = pil_decode(out("coffee.jpg"), "RGB").astype(np.float64)
    manifest.append("coffee.jpg 300 200 3 u8 mean %.3f %.3f %.3f" %
                    tuple(dec.reshape(-1, 3).mean(axis=0)))

    # cmyk.jpg: a small CMYK JPEG (clvision refuses CMYK).
    Image.fromarray(resize(coffee, 32, 24)).convert("CMYK").save(out("cmyk.jpg"), quality=80)

    # rocket_rgba.png: 213x142 RGBA, alpha = radial ramp with fully clear and
    # fully opaque areas.
    rocket = resize(pil_decode(os.path.join(SKIMAGE, "rocket.jpg"), "RGB"), 213, 142)
    yy, xx = np.mgrid[0:142, 0:213]
    r = np.hypot((xx - 106) / 106.0, (yy - 71) / 71.0)
    alpha = np.clip((1.2 - r) * 400, 0, 255).astype(np.uint8)
    rgba = np.dstack([rocket, alpha])
    write_png(out("rocket_rgba.png"), rgba, 6, 8)
    same(cv2_decode(out("rocket_rgba.png")), rgba, "rocket_rgba")
    same(pil_decode(out("rocket_rgba.png"), "RGBA"), rgba, "rocket_rgba (PIL)")
    expect("rocket_rgba.png", rgba)

    # chelsea16.png: 16-bit RGB 150x100, v * 257 + a small gradient so the
    # low bytes differ from the high bytes (catches byte-order mistakes).
    small = resize(rgb_chelsea, 150, 100).astype(np.uint32)
    yy, xx = np.mgrid[0:100, 0:150]
    grad = ((xx * 7 + yy * 3) % 200)[:, :, None] + np.array([0, 50, 100])
    c16 = np.minimum(small * 257 + grad, 65535).astype(np.uint16)
    write_png(out("chelsea16.png"), c16, 2, 16)
    same(cv2_decode(out("chelsea16.png")), c16, "chelsea16")
    expect("chelsea16.png", c16)

    # baboon_gray_alpha.png: 8-bit gray+alpha 96x96; decodes to RGBA
    # (g, g, g, a). baboon_gray_alpha_rgba.png holds that RGBA directly.
    baboon = resize(pil_decode(os.path.join(OPENCV, "baboon.jpg"), "L"), 96, 96)
    yy, xx = np.mgrid[0:96, 0:96]
    a = ((xx + yy) * 255 // 190).astype(np.uint8)
    write_png(out("baboon_gray_alpha.png"), np.dstack([baboon, a]), 4, 8)
    ga_rgba = np.dstack([baboon, baboon, baboon, a])
    write_png(out("baboon_gray_alpha_rgba.png"), ga_rgba, 6, 8)
    same(pil_decode(out("baboon_gray_alpha.png"), "RGBA"), ga_rgba, "gray_alpha (PIL)")
    same(cv2_decode(out("baboon_gray_alpha_rgba.png")), ga_rgba, "gray_alpha_rgba")
    expect("baboon_gray_alpha.png", ga_rgba)
    expect("baboon_gray_alpha_rgba.png", ga_rgba)

    # palette.png: 4-bit palette (16 colours, median cut) of chelsea at
    # 120x80 with a tRNS chunk for the first five entries: decodes to RGBA.
    # palette_rgba.png holds that RGBA directly.
    q = Image.fromarray(resize(rgb_chelsea, 120, 80)).quantize(16)
    idx = np.asarray(q, np.uint8)
    pal = np.array(q.getpalette()[:48], np.uint8).reshape(16, 3)
    trns = np.array([0, 60, 120, 180, 240], np.uint8)
    write_png(out("palette.png"), idx, 3, 4, palette=pal, trns=trns)
    alpha_of = np.full(16, 255, np.uint8)
    alpha_of[:len(trns)] = trns
    pal_rgba = np.dstack([pal[idx], alpha_of[idx]])
    write_png(out("palette_rgba.png"), pal_rgba, 6, 8)
    same(pil_decode(out("palette.png"), "RGBA"), pal_rgba, "palette (PIL)")
    same(cv2_decode(out("palette.png")), pal_rgba, "palette (cv2)")
    expect("palette.png", pal_rgba)
    expect("palette_rgba.png", pal_rgba)

    # interlaced.png: Adam7 8-bit RGB, 101x67 (odd sizes leave partial passes);
    # interlaced_plain.png: the same array, not interlaced.
    inter = resize(coffee, 101, 67)
    write_png(out("interlaced.png"), inter, 2, 8, interlace=True)
    write_png(out("interlaced_plain.png"), inter, 2, 8)
    same(cv2_decode(out("interlaced.png")), inter, "interlaced (cv2)")
    same(pil_decode(out("interlaced.png"), "RGB"), inter, "interlaced (PIL)")
    expect("interlaced.png", inter)
    expect("interlaced_plain.png", inter)

    make_studio_exr()

    with open(out("expected.txt"), "w") as f:
        f.write("# Generated by make_data.py. PNG: name width height channels type fnv1a64\n"
                "# (of the decoded samples: rows packed, u16 as little-endian pairs).\n"
                "# JPEG: name width height channels type mean <per-channel mean of a\n"
                "# reference decode by Pillow>.\n"
                "# EXR: name width height channels f32 mean <per-channel mean of the\n"
                "# half-float array encoded>.\n")
        f.write("\n".join(manifest) + "\n")
    total = sum(os.path.getsize(out(n)) for n in os.listdir(HERE))
    print("wrote %d manifest entries; tests/data holds %d bytes" % (len(manifest), total))


if __name__ == "__main__":
    main()
