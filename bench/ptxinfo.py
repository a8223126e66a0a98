#!/usr/bin/env python3
"""Registers, spills and stack of the kernels in clvision's program cache
on an NVIDIA device: each cache entry (<dir>/*.clvbin, src/runtime/cache.c:
magic | key length | key | binary length | binary | SHA-256) holds the PTX
NVIDIA's OpenCL driver returned; ptxas (CUDA toolkit) assembles it for the
GPU's architecture and reports what each kernel uses.

Usage: ptxinfo.py CACHE_DIR [--arch sm_90] [--kernels name,name] [--dump DIR]
(--dump: also write each entry's PTX to DIR, named by its kernels and
options, for bench/twin/ptxrun and for reading its SASS elsewhere)
"""
import argparse
import glob
import os
import re
import struct
import subprocess
import sys
import tempfile


def ptx_of(path):
    data = open(path, "rb").read()
    if data[:8] != b"CLVBIN02":
        return None
    (klen,) = struct.unpack_from("<Q", data, 8)
    pos = 16 + klen
    (blen,) = struct.unpack_from("<Q", data, pos)
    pos += 8
    bin_ = data[pos:pos + blen]
    if b".entry" not in bin_:
        return None
    key = data[16:16 + klen].decode("latin-1")
    line = re.search(r"^options: (.*)$", key, re.M)
    opts = " ".join(t for t in re.findall(r"-D(\w+=\S+)", line.group(1) if line else "")
                    if not t.startswith(("CLV_GPU", "CLV_NV_PTX", "CLV_DEBUG")))
    return bin_.rstrip(b"\0").decode("latin-1"), opts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cache_dir")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--kernels", default="", help="only these kernels (comma list)")
    ap.add_argument("--dump", default="", help="write each entry's PTX into this directory")
    args = ap.parse_args()
    want = set(k for k in args.kernels.split(",") if k)
    rows = []
    for path in sorted(glob.glob(os.path.join(args.cache_dir, "*.clvbin"))):
        got = ptx_of(path)
        if got is None:
            continue
        ptx, opts = got
        names = re.findall(r"\.entry\s+(\w+)", ptx)
        if want and not want.intersection(names):
            continue
        if args.dump:
            os.makedirs(args.dump, exist_ok=True)
            tag = re.sub(r"[^A-Za-z0-9_=]+", "_", opts)[:80]
            with open(os.path.join(args.dump, f"{names[0]}__{tag}.ptx"), "w") as f:
                f.write(f"// options: {opts}\n" + ptx)
        with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
            f.write(ptx)
            tmp = f.name
        try:
            r = subprocess.run(["ptxas", "-arch=" + args.arch, "-v", tmp, "-o", os.devnull],
                               capture_output=True, text=True)
        finally:
            os.unlink(tmp)
        cur = None
        for line in r.stderr.splitlines():
            m = re.search(r"Compiling entry function '(\w+)'", line)
            if m:
                cur = m.group(1)
                continue
            if cur and (not want or cur in want):
                m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                              r"(\d+) bytes spill loads", line)
                if m:
                    rows.append([cur, opts[:60], m.group(1), m.group(2), m.group(3), "?"])
                m = re.search(r"Used (\d+) registers", line)
                if m and rows and rows[-1][0] == cur:
                    rows[-1][5] = m.group(1)
        if r.returncode != 0:
            print(f"{path}: ptxas failed: {r.stderr.strip()[:300]}", file=sys.stderr)
    print(f"{'kernel':20} {'stack':>6} {'spill st':>8} {'spill ld':>8} {'regs':>5}  options")
    for k, o, st, ss, sl, rg in rows:
        print(f"{k:20} {st:>6} {ss:>8} {sl:>8} {rg:>5}  {o}")


if __name__ == "__main__":
    main()
