#!/usr/bin/env python3
"""The example programs (examples/) check every status they get.

examples/blur.c is the README's "Using the library" program: each line of the
README's C block must be in it, in order, so what the README shows is what is
built and run here. Run in a scratch directory (it reads photo.png and writes
blurred.png there):
  - no photo.png: a non-zero exit, one message naming the file and why, and
    no blurred.png;
  - a real photo.png: exit 0 and a blurred.png of the same size;
  - blurred.png unwritable (a directory of that name): a non-zero exit naming it.

Environment: CLV_EXAMPLE_BLUR (the built example), CLV_TEST_DATA, README (path
of README.md), and the usual CLV_KERNEL_PATH / CLV_CACHE_DIR. Exit 1 on any
failure; without an OpenCL device (CLV_REQUIRE_DEVICE not 1) the runs that
need one are left out.
"""

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

from pycheck import check, summary




def run(exe, cwd):
    p = subprocess.run([exe], capture_output=True, text=True, cwd=cwd, timeout=120)
    return p.returncode, p.stdout, p.stderr, "exit %d\nstdout: %s\nstderr: %s" % (
        p.returncode, p.stdout, p.stderr)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24]) if head[:8] == b"\x89PNG\r\n\x1a\n" else None


def readme_block(path):
    """The first ```c block of the README's "Using the library" section."""
    text = open(path).read()
    sec = text.split("## Using the library", 1)[1]
    m = re.search(r"```c\n(.*?)```", sec, re.S)
    return m.group(1) if m else ""


def main():
    exe = os.environ["CLV_EXAMPLE_BLUR"]
    data = os.environ["CLV_TEST_DATA"]
    readme = os.environ["README"]
    src = open(os.path.join(os.path.dirname(__file__), "..", "examples", "blur.c")).read()
    pos = 0
    for line in readme_block(readme).splitlines():
        if not line.strip():
            continue
        at = src.find(line, pos)
        if not check(at >= 0, "README's example line is in examples/blur.c (in order)", repr(line)):
            break
        pos = at + len(line)

    tmp = tempfile.mkdtemp(prefix="clv-examples-")
    try:
        rc, out, err, desc = run(exe, tmp)
        check(rc != 0, "blur without photo.png exits non-zero", desc)
        check("photo.png" in err and ("No such file" in err or "cannot open" in err),
              "blur without photo.png says the file is missing", desc)
        check(len(err.strip().splitlines()) == 1, "blur without photo.png prints one line", desc)
        check(not os.path.exists(os.path.join(tmp, "blurred.png")), "blur without photo.png writes nothing")

        shutil.copy(os.path.join(data, "camera.png"), os.path.join(tmp, "photo.png"))
        rc, out, err, desc = run(exe, tmp)
        if rc != 0 and os.environ.get("CLV_REQUIRE_DEVICE") != "1" and "device" in err.lower():
            print("examples: no OpenCL device (%s); the runs that need one are left out" % err.strip())
            return None
        check(rc == 0 and err == "", "blur photo.png exits 0 quietly", desc)
        out_png = os.path.join(tmp, "blurred.png")
        check(os.path.isfile(out_png) and png_size(out_png) == png_size(os.path.join(tmp, "photo.png")),
              "blur writes blurred.png of the photo's size", desc)

        os.remove(out_png)
        os.mkdir(out_png)
        rc, out, err, desc = run(exe, tmp)
        check(rc != 0 and "blurred.png" in err, "blur with blurred.png unwritable fails naming it", desc)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return None


if __name__ == "__main__":
    rc = main()
    status = summary("examples")
    sys.exit(rc if rc is not None else status)
