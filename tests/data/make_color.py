"""Prints the OpenCV values tests/test_color.c embeds (opencv_values()).

Run with /usr/bin/python3 (Debian's python3-opencv; they were made with
OpenCV 4.6.0 on x86-64 with AVX2/FMA). The inputs are the test's own
deterministic 7x5 images, so the test can rebuild them without this script.
convertTo has no Python binding: cv2.normalize(NORM_INF) calls
src.convertTo(dst, rtype, alpha / max|src|), exact here because max|src| is
a power of two."""
import cv2
import numpy as np

W, H = 7, 5


def u8_image():
    y, x, c = np.mgrid[0:H, 0:W, 0:3]
    return ((x * 37 + y * 101 + c * 59 + x * y * 13) % 256).astype(np.uint8)


def u16_image():
    y, x, c = np.mgrid[0:H, 0:W, 0:3]
    return ((x * 9337 + y * 20101 + c * 15859 + x * y * 1311) % 65536).astype(np.uint16)


def f32_image():
    y, x, c = np.mgrid[0:H, 0:W, 0:3]
    return (((x * 37 + y * 101 + c * 59 + x * y * 13) % 256) / 97.0 - 0.5).astype(np.float32)


def convert_to(a, rtype, scale, k):
    return cv2.normalize(a, None, alpha=scale * 2.0 ** k, norm_type=cv2.NORM_INF, dtype=rtype)


def c_array(name, ctype, a, fmt):
    vals = ", ".join(fmt(v) for v in a.ravel())
    print(f"static const {ctype} {name}[] = {{{vals}}};")


u8, u16, f32 = u8_image(), u16_image(), f32_image()
c_array("cv_u8_rgb2gray", "unsigned char", cv2.cvtColor(u8, cv2.COLOR_RGB2GRAY), str)
c_array("cv_u8_bgr2gray", "unsigned char", cv2.cvtColor(u8, cv2.COLOR_BGR2GRAY), str)
c_array("cv_u16_rgb2gray", "uint16_t", cv2.cvtColor(u16, cv2.COLOR_RGB2GRAY), str)
c_array("cv_f32_rgb2gray", "uint32_t", cv2.cvtColor(f32, cv2.COLOR_RGB2GRAY).view(np.uint32),
        lambda v: "0x%08xu" % v)
# u8 -> f32 / 255 (max 128 = 2^7 in a ramp), f32 -> u8 * 255 with ties.
ramp = np.arange(129, dtype=np.uint8).reshape(1, -1)
c_array("cv_u8_to_f32", "uint32_t", convert_to(ramp, cv2.CV_32F, 1 / 255.0, 7).view(np.uint32),
        lambda v: "0x%08xu" % v)
ties = np.array([[0.5, 1.5, 2.5, -0.5, 254.5, 255.5, 300.0, -3.0, 3.49999, 0.25, 512.0]],
                np.float32)
c_array("cv_f32_to_u8", "unsigned char", convert_to(ties, cv2.CV_8U, 1.0, 9), str)
