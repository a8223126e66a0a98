#!/usr/bin/env python3
"""clv flow-seq --devices: several devices give exactly the files of one.

Runs with POCL_DEVICES="pthread pthread" (two PoCL devices, set below unless
the caller set POCL_DEVICES). Frames are windows moving over real photos of
tests/data (a colour sequence, converted to gray on the device, and a gray
one, uploaded as it is); every run over two or more devices is compared byte
for byte with the run over one device: the same file names, the same .flo
and .png bytes, the same exit status and messages, also when a pair fails
(on a device, or when it is written), and errors in --devices are refused
before anything is written.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pycheck import check, summary  # noqa: E402
from test_cli import clv, png_read, png_write, Image  # noqa: E402  (PNG helpers, the clv runner)

DATA = os.environ.get("CLV_TEST_DATA", os.path.join(os.path.dirname(__file__), "data"))


def windows(photo, out_dir, count, w, h, step):
    """count frames of w x h, the window moving by step (dx, dy) per frame."""
    img = png_read(os.path.join(DATA, photo))
    os.mkdir(out_dir)
    ch = img.channels
    for i in range(count):
        x0, y0 = 5 + i * step[0], 3 + i * step[1]
        assert x0 + w <= img.width and y0 + h <= img.height
        px = []
        for y in range(y0, y0 + h):
            row = (y * img.width + x0) * ch
            px += img.pixels[row:row + w * ch]
        # frame names in natural order only: f_2 before f_10
        png_write(os.path.join(out_dir, "f_%d.png" % i), Image(w, h, ch, img.depth, px))
    return os.path.join(out_dir, "f_*.png")


def tree(path):
    """{name: bytes} of the files under path (None when path is missing)."""
    if not os.path.exists(path):
        return None
    out = {}
    for name in sorted(os.listdir(path)):
        full = os.path.join(path, name)
        if os.path.isfile(full):
            with open(full, "rb") as f:
                out[name] = f.read()
        else:
            out[name + "/"] = b""
    return out


def same_run(tmp, label, args, specs, env=None, prepare=None):
    """flow-seq args on one device and over --devices specs: same result."""
    results = []
    for k, devs in enumerate([None, specs]):
        out = os.path.join(tmp, "%s_%d" % (label, k), "out")
        if prepare:
            prepare(out)
        # The one-device run names its device (the first of specs), so that
        # CLV_DEVICE or a GPU listed first cannot move it elsewhere.
        if devs is None:
            cmd = ["--device", specs.split(",")[0], "flow-seq"]
        else:
            cmd = ["flow-seq", "--devices", devs]
        r = clv(*cmd, *args, out, env=env)
        err = r.err.replace(out, "OUT")
        results.append((r.code, err, tree(out), r))
    (c1, e1, t1, r1), (c2, e2, t2, r2) = results
    check(c1 == c2 and e1 == e2, "%s: same exit status and messages on --devices %s" % (label, specs),
          "one device: %s\n--devices: %s" % (r1.describe(), r2.describe()))
    check(t1 == t2, "%s: the same files, byte for byte, on --devices %s" % (label, specs),
          "one device: %r\n--devices: %r" % (sorted(t1 or {}), sorted(t2 or {})))
    if t1 and t2:
        diff = [n for n in t1 if n in t2 and t1[n] != t2[n]]
        check(not diff, "%s: no file differs" % label, repr(diff))
    return c1, e1, t1


def main():
    env_devices = os.environ.get("POCL_DEVICES")
    if env_devices is None:
        os.environ["POCL_DEVICES"] = "pthread pthread"
    r = clv("devices")
    specs = [line.split()[0] for line in r.out.splitlines() if line[:1].isdigit()]
    cpus = [line.split()[0] for line in r.out.splitlines() if line[:1].isdigit() and " cpu " in line]
    if r.code != 0 or len(cpus) < 2:
        print("need two OpenCL CPU devices (POCL_DEVICES=\"pthread pthread\"): %s" % r.describe())
        return 77 if r.code != 0 and not os.environ.get("CLV_REQUIRE_DEVICE") else 1
    a, b = cpus[0], cpus[1]
    tmp = tempfile.mkdtemp(prefix="clv-seqdev-")
    try:
        # 11 colour frames: 10 pairs, three blocks of up to 4, so both devices
        # take blocks and one takes two.
        rgb = windows("chelsea.png", os.path.join(tmp, "rgb"), 11, 61, 47, (2, 1))
        gray = windows("camera.png", os.path.join(tmp, "gray"), 7, 53, 41, (1, 2))
        code, err, files = same_run(tmp, "colour", ["--color", rgb], "%s,%s" % (a, b))
        check(code == 0 and err == "clv: flow-seq: 10/10 pairs\n" and files is not None
              and len(files) == 20, "colour sequence: 10 .flo and 10 .png, one progress line",
              "%r %r" % (err, sorted(files or {})))
        # The pairs really differ (so that a swap would show).
        if files:
            check(len(set(files.values())) == 20, "every pair's files differ from the others'")
        same_run(tmp, "twice", ["--color", rgb], "%s,%s" % (b, b))
        same_run(tmp, "gray", ["--levels", "2", "--winsize", "9", gray], "%s,%s,%s" % (a, b, a))
        same_run(tmp, "maxflow", ["--color", "--max-flow", "3.5", gray], "%s,%s" % (a, b))
        # Two frames, one block: the second device has nothing to do.
        two = os.path.join(tmp, "two")
        os.mkdir(two)
        for i in range(2):
            shutil.copy(os.path.join(tmp, "rgb", "f_%d.png" % i), os.path.join(two, "g%d.png" % i))
        same_run(tmp, "short", ["--color", os.path.join(two, "g*.png")], "%s,%s" % (a, b))
        # --devices with one spec is --device.
        same_run(tmp, "single", ["--color", gray], a)

        # A pair that fails on its device: the pairs before it are written,
        # in order, and the same messages say so.
        for fail in (0, 3, 6, 9):
            code, err, files = same_run(tmp, "fail%d" % fail, ["--color", rgb], "%s,%s" % (a, b),
                                        env={"CLV_TEST_SEQ_FAIL_PAIR": str(fail)})
            want = {"flow_%04d.%s" % (k, e) for k in range(fail) for e in ("flo", "png")}
            check(code == 1 and "test failure of pair %d" % fail in err,
                  "failure of pair %d: exit 1 and the reason" % fail, err)
            check((files is None and fail == 0) or (files is not None and set(files) == want),
                  "failure of pair %d: exactly the pairs before it are written" % fail,
                  repr(sorted(files or {})))
            if fail:
                check("wrote %d of 10 pairs" % fail in err, "failure of pair %d: 'wrote N of M'" % fail, err)

        # A pair that cannot be written (a directory in the way).
        def blocked(out):
            os.makedirs(os.path.join(out, "flow_0005.flo"))
        code, err, files = same_run(tmp, "blocked", ["--color", rgb], "%s,%s" % (a, b), prepare=blocked)
        check(code == 1 and "wrote 5 of 10 pairs" in err, "write failure of pair 5: reported", err)

        # --devices itself.
        out = os.path.join(tmp, "bad", "out")
        for bad, code_want, text in (
                ([",".join([a, "", b])], 2, "empty device"),
                ([a + ","], 2, "empty device"),
                ([",".join([a] * 17)], 2, "more than 16"),
                (["%s,no-such-device-xyz" % a], 1, "no-such-device-xyz"),
                (["%s,9:9" % a], 1, "9:9")):
            r = clv("flow-seq", "--devices", *bad, rgb, out)
            check(r.code == code_want and text in r.err and r.err.count("\n") == 1,
                  "--devices %s: exit %d, one line naming the problem" % (bad[0], code_want), r.describe())
            check(not os.path.exists(os.path.join(tmp, "bad")), "--devices %s: nothing written" % bad[0])
        r = clv("--device", a, "flow-seq", "--devices", "%s,%s" % (a, b), rgb, out)
        check(r.code == 2 and "--device and --devices" in r.err, "--device with --devices: usage error",
              r.describe())
        r = clv("flow-seq", "--devices", rgb, out)
        check(r.code == 2, "--devices without a value: usage error", r.describe())

        # Both devices are used: one context each (--verbose names them).
        out = os.path.join(tmp, "verbose", "out")
        r = clv("--verbose", "--stats", "--time", "flow-seq", "--devices", "%s,%s" % (a, b), rgb, out)
        lines = r.err.splitlines()
        check(r.code == 0 and sum(l.startswith("clv: device:") for l in lines) == 2
              and sum(l.startswith("stats:") for l in lines) == 2,
              "--devices A,B: two contexts (two device lines, two stats lines)", r.describe())
        check("ms" in r.out or "ms" in r.err, "--time over several devices prints the time", r.describe())
        r = clv("flow-seq", "--help")
        check(r.code == 0 and "--devices" in r.out, "flow-seq --help documents --devices", r.describe())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary("flow-seq-devices")


if __name__ == "__main__":
    sys.exit(main())
