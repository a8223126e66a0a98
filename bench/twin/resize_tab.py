#!/usr/bin/env python3
"""The coordinate table of resize_up_reg / resize_bilinear (src/ops/resize.c's
clv__resize_table: x0[dw], ax[dw] as float bits, y0[dh], ay[dh]) for
bench/twin/ptxrun. Usage: resize_tab.py SW SH DW DH OUTFILE"""
import struct
import sys


def coord(d, s, dsize):
    num = (2 * d + 1) * s - dsize
    den = 2 * dsize
    q = num // den
    frac = (num - q * den) / den
    if q < 0:
        q, frac = 0, 0.0
    if q >= s - 1:
        q, frac = s - 1, 0.0
    return q, frac


def main():
    sw, sh, dw, dh = (int(a) for a in sys.argv[1:5])
    xs = [coord(i, sw, dw) for i in range(dw)]
    ys = [coord(i, sh, dh) for i in range(dh)]
    out = struct.pack(f"<{dw}i", *[q for q, _ in xs]) + struct.pack(f"<{dw}f", *[a for _, a in xs])
    out += struct.pack(f"<{dh}i", *[q for q, _ in ys]) + struct.pack(f"<{dh}f", *[a for _, a in ys])
    open(sys.argv[5], "wb").write(out)


if __name__ == "__main__":
    main()
