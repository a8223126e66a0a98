#!/usr/bin/env python3
"""The Python binding's cost per call above the C call, on a small image.

For each case the same operation runs N times three ways, on device images
(out= reused), back to back, then one finish() (as clv-bench --mode chain):
  C       clv_op_call in a C loop, arguments bound once (_clvision._repeat_call):
          the library's own cost per call (validation, enqueue);
  call    clvision.call(ctx, name, {...}): the generic C entry, binding the
          dict through the descriptor each time;
  func    the generated function, clvision.gaussian_blur(img, 2.0, out=dst):
          what a user writes.
host = the time until the N-th call returned, / N: what the caller's thread
spends per call (the device works behind it); overhead = host(call or func) -
host(C), in microseconds, median of the rounds. wall adds the finish().
numpy in/out is shown for reference, a new result array each call: "numpy" with
numpy's default allocator (upload + op + download), "np al" with the input made
under clvision.aligned_arrays() (used in place on a CPU device, and so is the
new result: the op and a wait, no copy).

Run: PYTHONPATH=build/python:python /usr/bin/python3 bench/py_overhead.py
"""
import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("POCL_AFFINITY", "1")
import numpy as np  # noqa: E402

import clvision  # noqa: E402


def per_call_us(fn, ctx, n):
    """(host, wall) microseconds per call of n calls of fn."""
    fn()
    ctx.finish()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t1 = time.perf_counter()
    ctx.finish()
    t2 = time.perf_counter()
    return (t1 - t0) / n * 1e6, (t2 - t0) / n * 1e6


def c_loop_us(ctx, name, args, n):
    return per_call_us(lambda: clvision._c._repeat_call(ctx, name, args, n), ctx, 1)[0] / n, \
        None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", default="64x48")
    p.add_argument("--n", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--device", default=None)
    a = p.parse_args()
    w, h = (int(x) for x in a.size.split("x"))
    ctx = clvision.Context(a.device)
    clvision._local.ctx = ctx
    host = (np.arange(w * h) % 251).astype(np.uint8).reshape(h, w)
    if host.ctypes.data % 64 == 0:  # numpy's default gives 16-byte alignment: make it certain
        host = np.empty(host.nbytes + 16, np.uint8)[16:].reshape(h, w)
        host[...] = (np.arange(w * h) % 251).astype(np.uint8).reshape(h, w)
    with clvision.aligned_arrays():
        host_al = host.copy()
    src = clvision.upload(host, ctx)
    dst = clvision.Image(ctx, w, h)
    tr = clvision.Image(ctx, h, w)
    cases = [
        ("gaussian_blur", {"src": src, "dst": dst, "sigma_x": 2.0},
         lambda: clvision.gaussian_blur(src, 2.0, out=dst),
         lambda a: clvision.gaussian_blur(a, 2.0)),
        ("box_filter", {"src": src, "dst": dst, "ksize_x": 5, "ksize_y": 5},
         lambda: clvision.box_filter(src, 5, 5, out=dst),
         lambda a: clvision.box_filter(a, 5, 5)),
        ("transpose", {"src": src, "dst": tr},
         lambda: clvision.transpose(src, out=tr),
         lambda a: clvision.transpose(a)),
    ]
    print("# clvision %s on %s, %dx%d u8, %d calls per batch, median of %d; microseconds"
          % (clvision.__version__, ctx.device_name, w, h, a.n, a.rounds))
    print("%-14s %9s %9s %9s %11s %11s %10s %10s %10s" % (
        "op", "C host", "call host", "func host", "call-C", "func-C", "func wall", "numpy",
        "np al"))
    for name, args, func, numpy_fn in cases:
        rows = {"c": [], "call": [], "func": [], "wall": [], "np": [], "al": []}
        for _ in range(a.rounds):
            rows["c"].append(c_loop_us(ctx, name, args, a.n)[0])
            rows["call"].append(per_call_us(lambda: clvision.call(ctx, name, args), ctx, a.n)[0])
            fhost, wall = per_call_us(func, ctx, a.n)
            rows["func"].append(fhost)
            rows["wall"].append(wall)
            rows["np"].append(per_call_us(lambda: numpy_fn(host), ctx, a.n // 4)[1])
            rows["al"].append(per_call_us(lambda: numpy_fn(host_al), ctx, a.n // 4)[1])
        m = {k: statistics.median(v) for k, v in rows.items()}
        print("%-14s %9.2f %9.2f %9.2f %11.2f %11.2f %10.2f %10.2f %10.2f" % (
            name, m["c"], m["call"], m["func"], m["call"] - m["c"], m["func"] - m["c"],
            m["wall"], m["np"], m["al"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
