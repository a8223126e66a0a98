#!/usr/bin/env python3
"""Farneback's fused expansion and tone mapping give byte-identical output
with their work-groups fitted to a small device (64 work-items, 32 KiB of
local memory: cl_limits.so and POCL_MAX_WORK_GROUP_SIZE) and at full size
(issue 13 #22: the tile size must not change any result). GPU-style kernels.
Env: CLV_CLI, CLV_TEST_DATA, CLV_KERNEL_PATH, CLV_LIMITS_SO (the interposer),
CLV_HAVE_OPENEXR (1: also the EXR photo)."""
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    cli, data, so = os.environ["CLV_CLI"], os.environ["CLV_TEST_DATA"], os.environ["CLV_LIMITS_SO"]
    tmp = tempfile.mkdtemp(prefix="clv-limits-")
    try:
        full = dict(os.environ, CLV_TUNE="generic", CLV_CACHE_DIR=os.path.join(tmp, "cache"))
        for k in ("LD_PRELOAD", "POCL_MAX_WORK_GROUP_SIZE", "CLV_LIMIT_WG", "CLV_LIMIT_LOCAL_MEM"):
            full.pop(k, None)
        small = dict(full, LD_PRELOAD=so, POCL_MAX_WORK_GROUP_SIZE="64", CLV_LIMIT_WG="64",
                     CLV_LIMIT_LOCAL_MEM="32768")

        def clv(env, *args):
            r = subprocess.run([cli] + list(args), env=env, cwd=tmp, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
            if r.returncode != 0:
                raise SystemExit("clv %s: exit %d: %s" % (" ".join(args), r.returncode,
                                                          r.stderr.strip()))

        for i in (0, 1):
            clv(full, "resize", "--size", "96x72", os.path.join(data, "flow_chelsea%d.png" % i),
                "f%d.png" % i)
        cases = [
            ("flow5", ["flow", "--levels", "1", "f0.png", "f1.png"], ".flo"),
            ("flow7", ["flow", "--levels", "1", "--poly-n", "7", "--poly-sigma", "1.5", "f0.png",
                       "f1.png"], ".flo"),
            ("tonemap", ["tonemap", os.path.join(data, "chelsea16.png")], ".png"),
        ]
        # The EXR photo's full range too, where the library reads EXR.
        if os.environ.get("CLV_HAVE_OPENEXR") == "1":
            cases.append(("tonemap-exr", ["tonemap", os.path.join(data, "studio_256.exr")], ".png"))
        else:
            print("no   tonemap-exr: built without OpenEXR (tonemap covers the kernels)")
        bad = 0
        for name, args, ext in cases:
            a, b = name + "_full" + ext, name + "_small" + ext
            clv(full, *(args + [a]))
            clv(small, *(args + [b]))
            same = filecmp.cmp(os.path.join(tmp, a), os.path.join(tmp, b), shallow=False)
            print("%s %s" % ("ok  " if same else "FAIL", name))
            bad += not same
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
