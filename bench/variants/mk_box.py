#!/usr/bin/env python3
"""Throwaway (issue 17, not part of the library): kernel directories that
differ from cl/ in box_reg only, for timing on a device which part of
box_reg makes it slower than bench/twin's box5_reg (17.7 us against 29.5
through the same OpenCL driver). Timing only: V1..V3 use the replicate
border and integer rounding, not box's results. usage: mk_box.py OUTDIR"""
import os, re, shutil, sys

out = sys.argv[1]
src = open("cl/box.cl").read()
i = src.index("__kernel void box_reg(")
j = src.index("\n}\n", i) + 3
head = src[:i]
tail = src[j:]

TWIN = r'''__kernel void box_reg(__global const uchar *restrict src, int src_pitch, int width, int height,
                      __global uchar *restrict dst, int dst_pitch, float scale CLV_DBG_PARAMS)
{
    const int x4 = get_global_id(0), yb = get_global_id(1) * 8, x = x4 * 4;
    const int w = width, h = height;
    if (x >= w || yb >= h)
        return;
    int rs[12][4];
    for (int j = 0; j < 12; j++) {
        __global const uchar *r = src + (size_t)ROWIDX(yb - 2 + j, h) * src_pitch;
        int v[12];
        if (x >= 4 && x + 8 <= w) {
            LOADS
        } else {
            for (int k = 0; k < 12; k++)
                v[k] = r[clamp(x - 4 + k, 0, w - 1)];
        }
        for (int k = 0; k < 4; k++)
            rs[j][k] = v[k + 2] + v[k + 3] + v[k + 4] + v[k + 5] + v[k + 6];
    }
    for (int p = 0; p < 8 && yb + p < h; p++) {
        int4 s;
        s.s0 = rs[p][0] + rs[p + 1][0] + rs[p + 2][0] + rs[p + 3][0] + rs[p + 4][0];
        s.s1 = rs[p][1] + rs[p + 1][1] + rs[p + 2][1] + rs[p + 3][1] + rs[p + 4][1];
        s.s2 = rs[p][2] + rs[p + 1][2] + rs[p + 2][2] + rs[p + 3][2] + rs[p + 4][2];
        s.s3 = rs[p][3] + rs[p + 1][3] + rs[p + 2][3] + rs[p + 3][3] + rs[p + 4][3];
        STORE
    }
}
'''
UINT_LOADS = '''__global const uint *ru = (__global const uint *)r;
            const uint a = ru[x4 - 1], b = ru[x4], c = ru[x4 + 1];
            for (int k = 0; k < 4; k++) {
                v[k] = (a >> (8 * k)) & 255;
                v[4 + k] = (b >> (8 * k)) & 255;
                v[8 + k] = (c >> (8 * k)) & 255;
            }'''
UCHAR4_LOADS = '''for (int q = 0; q < 3; q++) {
                const int4 t = convert_int4(*(__global const uchar4 *)(r + x - 4 + 4 * q));
                v[4 * q] = t.s0;
                v[4 * q + 1] = t.s1;
                v[4 * q + 2] = t.s2;
                v[4 * q + 3] = t.s3;
            }'''
INT_STORE = '''uint o = 0;
        o |= (uint)((s.s0 * 2 + 25) / 50);
        o |= (uint)((s.s1 * 2 + 25) / 50) << 8;
        o |= (uint)((s.s2 * 2 + 25) / 50) << 16;
        o |= (uint)((s.s3 * 2 + 25) / 50) << 24;
        ((__global uint *)(dst + (size_t)(yb + p) * dst_pitch))[x4] = o;'''
FLOAT_STORE = '''clv_u8_store4(dst CLV_DBG_PASS(dst), ROW(dst, dst_pitch, yb + p) + x,
                      convert_uchar4(clamp(convert_float4(s) * scale + 0.5f, 0.0f, 255.0f)),
                      w - x);'''

variants = {
    # the twin's kernel as box_reg (5x5 only, 8 rows, replicate border)
    "v1_twin": dict(ROWIDX="clamp", LOADS=UINT_LOADS, STORE=INT_STORE),
    # the twin with box_reg's row border rule (reflect 101, clv_border_index)
    "v2_reflect": dict(ROWIDX="BORDER_INDEX", LOADS=UINT_LOADS, STORE=INT_STORE),
    # the twin with box_reg's uchar4 loads
    "v3_uchar4": dict(ROWIDX="clamp", LOADS=UCHAR4_LOADS, STORE=INT_STORE),
    # the twin with box_reg's float rounding and store
    "v4_fstore": dict(ROWIDX="clamp", LOADS=UINT_LOADS, STORE=FLOAT_STORE),
    # all of box_reg's pieces in the twin's shape (all rows first)
    "v5_all": dict(ROWIDX="BORDER_INDEX", LOADS=UCHAR4_LOADS, STORE=FLOAT_STORE),
}
for name, sub in variants.items():
    body = TWIN.replace("LOADS", sub["LOADS"]).replace("STORE", sub["STORE"])
    if sub["ROWIDX"] == "clamp":
        body = body.replace("ROWIDX(yb - 2 + j, h)", "clamp(yb - 2 + j, 0, h - 1)")
    else:
        body = body.replace("ROWIDX(yb - 2 + j, h)", "BORDER_INDEX(yb - 2 + j, h)")
    d = os.path.join(out, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree("cl", d)
    open(os.path.join(d, "box.cl"), "w").write(head + body + tail)
# box_reg as it is, with its row loop unrolled (CLV_NO_UNROLL -> CLV_UNROLL)
d = os.path.join(out, "v6_unrolled")
shutil.rmtree(d, ignore_errors=True)
shutil.copytree("cl", d)
s = src[:i] + src[i:j].replace("CLV_NO_UNROLL", "CLV_UNROLL") + src[j:]
open(os.path.join(d, "box.cl"), "w").write(s)
# box_reg as it is, clv_u8_span (common.cl) loading whole uints and
# shifting the bytes out, as the twin does, instead of uchar4 loads
d = os.path.join(out, "v7_span_uint")
shutil.rmtree(d, ignore_errors=True)
shutil.copytree("cl", d)
c = open("cl/common.cl").read()
old = """            const int4 q = convert_int4(GVLDA(uchar4, src, row + e + 4 * w));
            v[4 * w] = q.s0;
            v[4 * w + 1] = q.s1;
            v[4 * w + 2] = q.s2;
            v[4 * w + 3] = q.s3;"""
new = """            const uint q = GVLDA(uint, src, (__global const uint *)(row + e + 4 * w));
            v[4 * w] = (int)(q & 255u);
            v[4 * w + 1] = (int)((q >> 8) & 255u);
            v[4 * w + 2] = (int)((q >> 16) & 255u);
            v[4 * w + 3] = (int)(q >> 24);"""
assert old in c
open(os.path.join(d, "common.cl"), "w").write(c.replace(old, new))
print(" ".join(sorted(list(variants) + ["v6_unrolled", "v7_span_uint"])))
