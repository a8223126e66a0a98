#!/usr/bin/env python3
"""clv says which device a device spec chose, and why.

CLV_DEVICE / --device take gpu, cpu, P:D or a case-insensitive substring of
the platform, vendor or device name; a substring can match a device the user
did not mean (CLV_DEVICE=amd picks an AMD EPYC CPU through PoCL) or several.
Checked on PoCL with POCL_DEVICES giving two devices, found by a substring of
their platform's name (both) or of one device's name (PoCL 3.1 names them
pthread-ARCH and basic-ARCH; later versions name them otherwise):
  - 'clv devices' marks the line of the device CLV_DEVICE (or --device, or
    the default) selects, and for a substring or several matches says so on
    that line (every line still starts with P:D);
  - 'clv --verbose COMMAND' prints one line on stderr,
    "clv: device: 'portable computing' matched 2 devices ...; using P:D 'NAME' (cpu)",
    and without --verbose stderr stays empty;
  - an exact P:D is reported as such, the default as the default.

Environment: CLV_CLI, CLV_TEST_DATA, CLV_KERNEL_PATH, CLV_CACHE_DIR. Skips
(77) without PoCL, unless CLV_REQUIRE_DEVICE=1.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from pycheck import check, summary

CLI = os.environ["CLV_CLI"]
DATA = os.environ["CLV_TEST_DATA"]
POCL = "[platform: Portable Computing Language]"



def clv(*args, env=None):
    full = {k: v for k, v in os.environ.items() if k != "CLV_DEVICE"}
    full.update(env or {})
    p = subprocess.run([CLI] + list(args), capture_output=True, text=True, env=full, timeout=120)
    p.describe = "$ %s %s\nexit %d\nstdout: %s\nstderr: %s" % (
        " ".join("%s=%s" % kv for kv in (env or {}).items()), " ".join(args), p.returncode,
        p.stdout, p.stderr)
    return p


def device_lines(p):
    return [l for l in p.stdout.splitlines() if l.strip()]


def selected(lines):
    return [l for l in lines if "(selected by " in l]


def main():
    two = {"POCL_DEVICES": "pthread pthread"}
    r = clv("devices", env=two)
    lines = device_lines(r)
    pocl = [l for l in lines if POCL in l]
    if r.returncode != 0 or len(pocl) != 2:
        if os.environ.get("CLV_REQUIRE_DEVICE") == "1":
            check(False, "POCL_DEVICES='pthread pthread' gives two PoCL devices", r.describe)
            return None
        print("SKIP: needs PoCL (two devices with POCL_DEVICES): %s" % r.describe)
        return 77
    first, second = (l.split()[0] for l in pocl)  # "P:D"

    # A substring matching both (of their platform's name, in another
    # case): the first is used, and clv says so.
    both = "portable computing"
    env = dict(two, CLV_DEVICE=both)
    r = clv("devices", env=env)
    lines = device_lines(r)
    sel = selected(lines)
    check(r.returncode == 0 and r.stderr == "", "devices exits 0 quietly", r.describe)
    check(all(re.match(r"^\d+:\d+\s", l) for l in lines), "every devices line starts with P:D",
          r.describe)
    if check(len(sel) == 1 and sel[0].startswith(first + " "),
             "devices marks the first match, %s, and only it" % first, r.describe):
        check("(selected by CLV_DEVICE=%s" % both in sel[0] and "matched 2 devices" in sel[0],
              "the mark names CLV_DEVICE and the two matches", sel[0])
    r = clv("--device", both, "devices", env=two)
    sel = selected(device_lines(r))
    check(len(sel) == 1 and sel[0].startswith(first + " ") and "(selected by --device %s" % both in sel[0],
          "with --device the mark names --device", r.describe)

    src = os.path.join(DATA, "camera.png")
    tmp = tempfile.mkdtemp(prefix="clv-device-")
    try:
        out = os.path.join(tmp, "out.png")
        r = clv("--verbose", "gaussian", "--sigma", "1", src, out, env=env)
        pat = r"^clv: device: '%s' matched 2 devices\b.*; using %s '[^']+' \(cpu\)\n$" % (both, first)
        check(r.returncode == 0 and re.match(pat, r.stderr) is not None,
              "--verbose prints one line: matched 2 devices; using %s" % first, r.describe)
        check(os.path.isfile(out), "--verbose gaussian still writes its output")
        r = clv("gaussian", "--sigma", "1", src, out, env=env)
        check(r.returncode == 0 and r.stderr == "", "without --verbose stderr stays empty", r.describe)

        # One substring match among two devices: that one, named as a name
        # match. The substring: a '-' piece of one PoCL device's name that
        # the other's lacks ("pthread" on PoCL 3.1).
        mixed = {"POCL_DEVICES": "basic pthread"}
        pl = [l for l in device_lines(clv("devices", env=mixed)) if POCL in l]
        names = [l.split("  ")[2].strip() if len(l.split("  ")) > 2 else "" for l in pl]
        one = None
        if len(names) == 2:
            for a, b in (names, names[::-1]):
                pieces = [w for w in a.lower().split("-") if w and w not in b.lower()]
                if pieces:
                    one = pieces[0]
                    break
        if not check(one is not None, "the two PoCL devices' names differ by a piece",
                     "names: %r" % names):
            return None
        mixed["CLV_DEVICE"] = one
        r = clv("devices", env=mixed)
        pl = [l for l in device_lines(r) if POCL in l]
        want = [l.split()[0] for l in pl if one in l.lower().split("[platform")[0]]
        sel = selected(device_lines(r))
        check(len(want) == 1 and len(sel) == 1 and sel[0].startswith(want[0] + " ")
              and "matched 1 device" in sel[0],
              "devices marks the one substring match (%s)" % one, r.describe)
        r = clv("--verbose", "transpose", src, out, env=mixed)
        check(r.returncode == 0 and want and
              re.match(r"^clv: device: '%s' matched 1 device\b.*; using %s '[^']*%s[^']*' \(cpu\)\n$"
                       % (re.escape(one), want[0], re.escape(one)), r.stderr, re.I) is not None,
              "--verbose names the single substring match", r.describe)

        # An exact index and the default are said as such.
        r = clv("--verbose", "--device", second, "transpose", src, out, env=two)
        check(r.returncode == 0 and re.match(r"^clv: device: '%s' is device %s '[^']+' \(cpu\)\n$"
                                             % (second, second), r.stderr) is not None,
              "--verbose --device %s reports the index" % second, r.describe)
        r = clv("devices", env=dict(two, CLV_DEVICE=second))
        sel = selected(device_lines(r))
        check(len(sel) == 1 and sel[0].startswith(second + " ") and
              sel[0].endswith("(selected by CLV_DEVICE=%s)" % second),
              "devices marks an exact P:D without more words", r.describe)
        r = clv("devices", env={"POCL_DEVICES": "pthread"})
        sel = selected(device_lines(r))
        check(len(sel) == 1 and "(selected by default)" in sel[0], "devices marks the default", r.describe)
        r = clv("--verbose", "transpose", src, out, env={"POCL_DEVICES": "pthread"})
        check(r.returncode == 0 and r.stderr.startswith("clv: device: no device asked for")
              and r.stderr.count("\n") == 1, "--verbose reports the default", r.describe)

        # A spec matching nothing: devices still lists them (exit 0), marks
        # none and says so in one line; a command fails with one line.
        r = clv("devices", env=dict(two, CLV_DEVICE="nosuchdevice"))
        check(r.returncode == 0 and len(device_lines(r)) >= 2 and not selected(device_lines(r))
              and r.stderr.count("\n") == 1 and "'nosuchdevice' matches no device" in r.stderr,
              "devices with a spec matching nothing says so on stderr", r.describe)
        r = clv("--verbose", "transpose", src, out, env=dict(two, CLV_DEVICE="nosuchdevice"))
        check(r.returncode == 1 and r.stderr.count("\n") == 1 and "nosuchdevice" in r.stderr
              and first in r.stderr, "a spec matching nothing: one error line", r.describe)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return None


if __name__ == "__main__":
    rc = main()
    status = summary("device-choice")
    sys.exit(rc if rc is not None else status)
