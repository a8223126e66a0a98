#!/usr/bin/env python3
"""clv cache warm / info / clear and clv_cache_warm behind it (issue 15 #5).

In a fresh CLV_CACHE_DIR: warming a list of operations builds and writes
programs, `info` reports exactly the entries and bytes the directory listing
shows, a second process running a warmed operation builds nothing (--stats),
warming the list again builds nothing, `clear` removes every entry and leaves
a foreign file and a symlink named like an entry (pointing out of the
directory) alone, and an unknown operation is a usage error naming it.
With CLV_TEST_CACHE_ALL=1 also warms every operation (about 90 s on PoCL,
2 cores) and checks a second warm builds nothing.

Environment: CLV_CLI (the clv binary). Standard library only."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from pycheck import check, summary

CLI = os.environ.get("CLV_CLI")


def run(args, env):
    p = subprocess.run([CLI] + args, env=env, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def stats(err):
    m = re.search(r"stats: programs_built=(\d+) cache_hits=(\d+) cache_writes=(\d+)", err)
    return tuple(int(x) for x in m.groups()) if m else None


def warmed(out):
    m = re.search(r"(\d+) built, (\d+) already cached, (\d+) written", out)
    return tuple(int(x) for x in m.groups()) if m else None


def entries(d):
    if not os.path.isdir(d):
        return 0, 0
    names = [n for n in os.listdir(d) if re.fullmatch(r"[0-9a-f]{32}\.clvbin", n)]
    return len(names), sum(os.lstat(os.path.join(d, n)).st_size for n in names)


def info(env):
    rc, out, err = run(["cache", "info"], env)
    check(rc == 0, "cache info runs", err)
    kv = dict(l.split(": ", 1) for l in out.splitlines() if ": " in l)
    return kv


def main():
    if not CLI or not os.path.exists(CLI):
        print("CLV_CLI must name the clv binary")
        return 1
    tmp = tempfile.mkdtemp(prefix="clv-cache-")
    try:
        return body(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def body(tmp):
    cache = os.path.join(tmp, "cache")
    env = dict(os.environ, CLV_CACHE_DIR=cache)
    env.pop("CLV_CACHE", None)
    rc, out, err = run(["devices"], env)
    if rc != 0 and os.environ.get("CLV_REQUIRE_DEVICE") != "1":
        print("SKIP: no OpenCL device: %s" % err.strip())
        return 77

    kv = info(env)
    check(kv.get("exists") == "no" and kv.get("entries") == "0", "info of a missing directory",
          str(kv))

    ops = ["transpose", "sobel"]
    rc, out, err = run(["--stats", "cache", "warm"] + ops, env)
    w = warmed(out)
    check(rc == 0 and w is not None, "warm transpose sobel", out + err)
    n, nbytes = entries(cache)
    if w:
        check(w[0] > 0 and w[2] == w[0] and w[1] == 0, "a fresh cache: every program built "
              "and written", out)
        check(n == w[2], "one entry per program written (%d entries)" % n, out)
    kv = info(env)
    check(kv.get("trusted") == "yes", "the directory made by clvision is trusted", str(kv))
    check(kv.get("entries") == str(n) and kv.get("bytes") == str(nbytes),
          "info counts the entries and bytes of the listing (%d, %d)" % (n, nbytes), str(kv))

    # a second process running a warmed op builds nothing
    src = os.path.join(os.environ.get("CLV_TEST_DATA", "tests/data"))
    img = None
    for name in sorted(os.listdir(src)) if os.path.isdir(src) else []:
        if name.endswith(".png"):
            img = os.path.join(src, name)
            break
    check(img is not None, "a test image in CLV_TEST_DATA", src)
    if img:
        rc, out, err = run(["--stats", "transpose", img, os.path.join(tmp, "t.png")], env)
        s = stats(err)
        check(rc == 0 and s is not None, "transpose after warming runs", err)
        if s:
            check(s[0] == 0 and s[1] > 0, "transpose after warming builds nothing (built %d, "
                  "hits %d)" % (s[0], s[1]), err)
        # an op not warmed does build (the list was honoured)
        rc, out, err = run(["--stats", "box", "--ksize", "3x3", img, os.path.join(tmp, "b.png")],
                           env)
        s = stats(err)
        check(rc == 0 and s is not None and s[0] > 0, "box, not warmed, builds its program", err)
        n2, _ = entries(cache)
        check(n2 > n, "and adds its entry", "%d -> %d" % (n, n2))

    rc, out, err = run(["cache", "warm"] + ops, env)
    w = warmed(out)
    check(rc == 0 and w is not None and w[0] == 0 and w[1] > 0, "warming again builds nothing",
          out + err)

    rc, out, err = run(["cache", "warm", "transpose", "no_such_op"], env)
    check(rc == 2 and "no_such_op" in err and len(err.strip().splitlines()) == 1,
          "an unknown operation: exit 2 naming it", "%d %r" % (rc, err))

    # clear: clvision's entries only
    os.makedirs(cache, 0o700, exist_ok=True)
    foreign = os.path.join(cache, "notes.txt")
    with open(foreign, "w") as f:
        f.write("keep me")
    outside = os.path.join(tmp, "outside.clvbin")
    with open(outside, "w") as f:
        f.write("outside")
    link = os.path.join(cache, "0" * 32 + ".clvbin")
    os.symlink(outside, link)
    rc, out, err = run(["cache", "clear"], env)
    check(rc == 0 and "removed" in out, "cache clear runs", out + err)
    check(entries(cache)[0] == 1 and os.path.islink(link), "every entry removed, the symlink "
          "named like one left", str(os.listdir(cache)))
    check(os.path.exists(foreign) and open(foreign).read() == "keep me", "a foreign file stays")
    check(os.path.exists(outside), "nothing outside the directory is touched")
    kv = info(env)
    check(kv.get("entries") == "0", "info after clear: no entries", str(kv))

    if os.environ.get("CLV_TEST_CACHE_ALL") == "1":
        rc, out, err = run(["cache", "warm"], env)
        w = warmed(out)
        check(rc == 0 and w is not None and w[0] > 0, "warm every operation", out + err)
        rc, out, err = run(["cache", "warm"], env)
        w = warmed(out)
        check(rc == 0 and w is not None and w[0] == 0, "warm every operation again: nothing "
              "built", out + err)
    return summary("cache")


if __name__ == "__main__":
    sys.exit(main())
