#!/usr/bin/env python3
"""Every operation once under Oclgrind (--data-races --check-api) on tiny
images; any Oclgrind report fails the test (issue 13 #24).

The GPU-style kernels run (CLV_TUNE=generic): they are what GPUs run, and
Oclgrind 21.10 misreads the CPU kernels' int16 idiom in
fb_update_matrices_vec. The Gaussians run again with CLV_TUNE=gpu (radii
compiled in), the flow too (its averaging in one launch, fb_blur_solve), the u8
box's and pyramid's register kernels on the narrowest rows they are taken for,
and the box and Gaussians with the u8 wide passes (CLV_U8_REG=boxw,gaussw),
whose whole 16-byte vectors reach into the rows' padding, and the f32 box's
register kernel and wide passes (CLV_U8_REG=boxf, boxfw), and the GPUs'
bilateral (bil_fixed, CLV_TUNE=gpu: its tile of u8 values times the range
factor) on gray, RGB and RGBA crops, and the u8 x 3 transpose's word-store
tile (transpose_rgb, CLV_TUNE=gpu) on an RGB crop of two whole tiles and
cut ones. Some CPU kernels
run too (CLV_TUNE=cpu): the pyramid's band kernel, whose bands of a tall
gray image make their neighbours' rows once more, and the box's and Gaussian's band kernels (their vectors are loaded and
stored through types aligned to one element, not vloadn).
Anything on stderr fails too, compiler warnings included. Inputs are crops
of tests/data made with the CLI's resize on the normal device, so the whole
run takes about a minute.

Usage: test_oclgrind.py  (env: CLV_CLI = the clv program, OCLGRIND = the
oclgrind program, default 'oclgrind' on PATH; CLV_KERNEL_PATH, CLV_TEST_DATA
as for the other tests). A missing oclgrind is a failure, not a skip: CI
installs it (Debian package 'oclgrind')."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

CLI = os.environ.get("CLV_CLI", "clv")
DATA = os.environ.get("CLV_TEST_DATA",
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
OCLGRIND = os.environ.get("OCLGRIND", "oclgrind")

# Oclgrind's diagnostics: a headline, then tab-indented "Kernel:", "Entity:",
# "Function:" ... lines. Any line of its own is a report; the CLI writes
# nothing to stderr on success, so anything else there fails too.
REPORT = re.compile(r"data race|invalid (read|write)|uninitiali[sz]ed|out-of-bounds|"
                    r"runtime error|work-group divergence|barrier|^\s*(Kernel|Entity|Function"
                    r"|Error|Work-item|Work-group):", re.I | re.M)


def run(args, env=None, cwd=None):
    return subprocess.run(args, env=env, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=300)


def main():
    if shutil.which(OCLGRIND) is None:
        print("oclgrind not found (%s): install Debian's 'oclgrind' package" % OCLGRIND)
        return 1
    tmp = tempfile.mkdtemp(prefix="clv-oclgrind-")
    failures = 0
    try:
        base = dict(os.environ)
        base["CLV_CACHE_DIR"] = os.path.join(tmp, "cache")  # never reuse another device's
        # inputs, on the normal device
        crops = [("chelsea.png", "24x17", "c.png"), ("camera.png", "24x17", "g.png"),
                 ("flow_camera0.png", "40x32", "f0.png"), ("flow_camera1.png", "40x32", "f1.png"),
                 ("chelsea16.png", "24x17", "h.png"), ("camera.png", "20x2000", "t.png"),
                 ("camera.png", "300x40", "w.png"), ("chelsea.png", "120x9", "cw.png"),
                 ("camera.png", "53x9", "gw.png"), ("camera.png", "17x9", "n.png"),
                 ("studio_256.exr", "23x9", "e.exr"), ("studio_256.exr", "115x6", "ew.exr"),
                 ("rocket_rgba.png", "24x17", "a4.png"), ("chelsea.png", "70x45", "cx.png")]
        for src, size, dst in crops:
            r = run([CLI, "resize", "--size", size, os.path.join(DATA, src), dst], env=base,
                    cwd=tmp)
            if r.returncode != 0:
                print("making %s: %s" % (dst, r.stderr.strip()))
                return 1
        r = run([CLI, "flow", "f0.png", "f1.png", "f.flo"], env=base, cwd=tmp)
        if r.returncode != 0:
            print("making f.flo: %s" % r.stderr.strip())
            return 1

        ops = [
            ["transpose", "c.png", "o.png"],
            ["resize", "--size", "13x9", "c.png", "o.png"],
            ["resize", "--size", "50x31", "g.png", "o.png"],
            ["box", "--ksize", "5x3", "c.png", "o.png"],
            ["gaussian", "--sigma", "1.5", "c.png", "o.png"],
            ["gaussian", "--sigma", "1", "--sigma-y", "3", "g.png", "o.png"],
            ["bilateral", "--sigma-space", "2", "--sigma-range", "30", "c.png", "o.png"],
            ["grid", "--sigma-space", "4", "--sigma-range", "25", "c.png", "o.png"],
            ["tonemap", "h.png", "o.png"],
            ["pyramid", "--levels", "3", "c.png", "pyr.png"],
            ["pyramid", "--levels", "2", "--scale", "0.7", "g.png", "pyr.png"],
            ["corners", "--max", "20", "--quality", "0.01", "--min-distance", "3", "g.png",
             "o.csv"],
            ["track", "--win", "7", "--levels", "2", "--corners", "10", "f0.png", "f1.png",
             "o.csv"],
            ["flow", "--levels", "0", "--winsize", "7", "--iterations", "2", "f0.png", "f1.png",
             "o.flo"],
            ["flow", "--levels", "0", "--winsize", "5", "--poly-n", "7", "--poly-sigma", "1.5",
             "--gaussian", "f0.png", "f1.png", "o.flo"],
            ["warp", "f0.png", "f.flo", "o.png"],
            ["flow-eval", "f.flo", "f.flo"],
        ]
        env = dict(base)
        env["CLV_TUNE"] = "generic"
        env["CLV_CACHE_DIR"] = os.path.join(tmp, "cache-oclgrind")
        # and the Gaussians again as GPUs run them (radii compiled into gauss_reg),
        # the flow with its averaging in one launch (fb_blur_solve, CLV_TUNE=gpu),
        # the u8 box's register kernel (box_reg) and the pyramid's (pyr_reg) on
        # rows a little wider than the values a work-item loads (17 pixels: the
        # narrowest the ops take them for, their row ends through one
        # reflection), then the u8 box's and Gaussian's wide passes (box_wh/
        # box_wv, gauss_wh/gauss_wv: whole 16-byte vectors up to the rows'
        # padding), on crops wide enough for them (cw.png, gw.png)
        wider = [[{"c.png": "cw.png", "g.png": "gw.png"}.get(a, a) for a in op]
                 for op in ops if op[0] == "gaussian"]
        wide = [["box", "--ksize", "31x7", "cw.png", "o.png"],
                ["box", "--ksize", "5x3", "gw.png", "o.png"]] + wider
        reg = [["box", "--ksize", "5x3", "c.png", "o.png"],
               ["box", "--ksize", "5x5", "n.png", "o.png"],
               # the upscaling resize (resize_up_reg): its taps from aligned
               # words, which reach up to 11 bytes past a pixel's first tap
               # (gray: x 2.1; RGB: x 1.5, and x down with y up)
               ["resize", "--size", "50x31", "g.png", "o.png"],
               ["resize", "--size", "37x26", "c.png", "o.png"],
               ["resize", "--size", "11x40", "c.png", "o.png"]]
        runs = [(op, "generic") for op in ops] + \
            [(op, "gpu") for op in wider + reg + [op for op in ops if op[0] == "flow"]] + \
            [(op, "wide") for op in wide] + \
            [(["pyramid", "--levels", "3", "n.png", "pyr.png"], "pyr")] + \
            [(["box", "--ksize", k, "e.exr", "o.exr"], "boxf") for k in ("5x3", "2x9")] + \
            [(["box", "--ksize", "31x4", "ew.exr", "o.exr"], "boxfw")] + \
            [(["pyramid", "--levels", n, "w.png", "pyr.png"], "pyr2") for n in ("3", "5")] + \
            [(["pyramid", "--levels", "5", "t.png", "pyr.png"], "cpu")] + \
            [(op, "cpu") for op in ops if op[0] in ("gaussian", "box")] + \
            [(["bilateral", "--sigma-space", "2", "--sigma-range", "30", i, "o.png"], "gpu")
             for i in ("g.png", "c.png", "a4.png")] + \
            [(["bilateral", "--sigma-space", "2", "--sigma-range", "30", "a4.png", "o.png"],
              "generic")] + \
            [(["transpose", "cx.png", "o.png"], "gpu")]
        for op, tune in runs:
            # pyr2: the GPUs' pyramid, two or three steps per launch (the
            # levels between in local memory): 3 levels by pyr_reg2, 5 by
            # pyr_reg3 and pyr_reg
            # boxf: the f32 box's register kernel (box_regf) on an RGB crop 2
            # pixels wider than its loaded values; boxfw: its wide passes
            # (box_whf, box_wvf), 3 pixels wider
            reg = {"wide": "boxw,gaussw", "pyr": "pyr", "pyr2": "pyr,pyr3",
                   "boxf": "boxf", "boxfw": "boxfw"}.get(tune, "")
            env["CLV_TUNE"] = "gpu" if reg else tune
            env["CLV_U8_REG"] = reg
            if reg:
                tune = "gpu, CLV_U8_REG=" + reg
            cmd = [OCLGRIND, "--data-races", "--check-api", CLI, "--device", "Oclgrind"] + op
            r = run(cmd, env=env, cwd=tmp)
            bad = r.returncode != 0 or r.stderr.strip() != "" or REPORT.search(r.stdout)
            label = " ".join(op) + ("" if tune == "generic" else " (CLV_TUNE=%s)" % tune)
            if bad:
                failures += 1
                print("FAIL %s (exit %d)" % (label, r.returncode))
                for line in (r.stderr + r.stdout).strip().splitlines()[:60]:
                    print("    " + line)
            else:
                print("ok   %s" % label)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("oclgrind: %d operations, %d failed" % (len(runs), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
