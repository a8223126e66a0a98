#!/usr/bin/env python3
"""Timing variant (bench/run_gpu.sh cvt): the u8 GPU kernels' conversions
between integers and floats done by float arithmetic instead of conversion
instructions, bit for bit the same results. An integer v < 2^23 becomes
as_float(v | 0x4B000000) - 2^23 (the float 2^23 + v, exact, minus 2^23:
an OR and an add); a float y in [0, 2^22] becomes trunc(y) as RNE(y) from
y + 2^23 (the rounding the add does), minus 1 where that rounded up: two
adds, a compare and an integer add. On NVIDIA's H100/H200 (compute 9.0) the
conversion instructions run at 16 per clock per SM, a quarter of integer
and an eighth of float adds. Kernels: resize_up_reg, gauss_wh, gauss_wv,
box_reg, box_wv. Usage: mk_cvt.py OUTDIR (a copy of cl/ with those
changed)."""
import os
import shutil
import sys

CL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cl")

HELPERS = """
/* bench/variants/mk_cvt.py: conversions by float arithmetic */
#define CVT_M 8388608.0f
static inline float cvt_f(uint v) { return as_float(v | 0x4B000000u) - CVT_M; }
static inline float4 cvt_f4(uint4 v) { return as_float4(v | (uint4)0x4B000000u) - CVT_M; }
static inline float8 cvt_f8(uint8 v) { return as_float8(v | (uint8)0x4B000000u) - CVT_M; }
static inline uint cvt_u(float y)
{
    const float t = y + CVT_M;
    return as_uint(t) - 0x4B000000u - (t - CVT_M > y ? 1u : 0u);
}
static inline uchar4 cvt_uc4(float4 y)
{
    const float4 t = y + CVT_M;
    return convert_uchar4(as_int4(t) - 0x4B000000 + (t - CVT_M > y));
}
static inline uchar8 cvt_uc8(float8 y)
{
    const float8 t = y + CVT_M;
    return convert_uchar8(as_int8(t) - 0x4B000000 + (t - CVT_M > y));
}
static inline ushort16 cvt_us16(float16 y)
{
    const float16 t = y + CVT_M;
    return convert_ushort16(as_int16(t) - 0x4B000000 + (t - CVT_M > y));
}
"""

EDITS = {
    "resize.cl": [
        ("h[i * CN + c] = (float)GLD(src, r, xa[i] + c) * (1.0f - ax[i]) +",
         "h[i * CN + c] = cvt_f(GLD(src, r, xa[i] + c)) * (1.0f - ax[i]) +"),
        ("                            (float)GLD(src, r, xb[i] + c) * ax[i];",
         "                            cvt_f(GLD(src, r, xb[i] + c)) * ax[i];"),
        ("o[k] = convert_uchar(clamp(top[k] * (1.0f - ay) + bot[k] * ay + 0.5f, 0.0f, 255.0f));",
         "o[k] = (uchar)cvt_u(clamp(top[k] * (1.0f - ay) + bot[k] * ay + 0.5f, 0.0f, 255.0f));"),
    ],
    "gaussian.cl": [
        ("s += (float)v[off + t * CN] * GLD(wx, wx, t);",
         "s += cvt_f((uint)v[off + t * CN]) * GLD(wx, wx, t);"),
        (": convert_float8(GVLDA(ushort8, tmp, ROW(tmp, tmp_pitch, sy) + e0));",
         ": cvt_f8(convert_uint8(GVLDA(ushort8, tmp, ROW(tmp, tmp_pitch, sy) + e0)));"),
        ("convert_uchar8(clamp(acc[p] * (1.0f / 256.0f) + 0.5f, 0.0f, 255.0f)),",
         "cvt_uc8(clamp(acc[p] * (1.0f / 256.0f) + 0.5f, 0.0f, 255.0f)),"),
        ("convert_ushort16(clamp(CLV_JOIN16(float16, o) * 256.0f + 0.5f, 0.0f, 65535.0f)),",
         "cvt_us16(clamp(CLV_JOIN16(float16, o) * 256.0f + 0.5f, 0.0f, 65535.0f)),"),
    ],
    "box.cl": [
        ("convert_uchar4(clamp(convert_float4(s) * scale + 0.5f, 0.0f, 255.0f)),",
         "cvt_uc4(clamp(cvt_f4(as_uint4(s)) * scale + 0.5f, 0.0f, 255.0f)),"),
        ("convert_uchar8(clamp(convert_float8(s) * scale + 0.5f, 0.0f, 255.0f)),",
         "cvt_uc8(clamp(cvt_f8(s) * scale + 0.5f, 0.0f, 255.0f)),"),
    ],
}


def main():
    out = sys.argv[1]
    if os.path.exists(out):
        shutil.rmtree(out)
    shutil.copytree(CL, out)
    with open(os.path.join(out, "common.cl"), "a") as f:
        f.write(HELPERS)
    for name, pairs in EDITS.items():
        path = os.path.join(out, name)
        s = open(path).read()
        for old, new in pairs:
            assert s.count(old) == 1, "%s: %r found %d times" % (name, old, s.count(old))
            s = s.replace(old, new)
        open(path, "w").write(s)
    print(out)


if __name__ == "__main__":
    main()
