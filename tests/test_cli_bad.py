#!/usr/bin/env python3
"""Bad-input matrix of the clv command-line tool (issue 5).

Every sub-command of `clv --help` gets a base command line that works (run
first: the matrix rows must each differ from a success by one change), then
the rows derived from it in a table:

  - positionals missing, one too many, empty ("") -> exit 2
  - unknown options ("--bogus", "-x"), an option without its value, an
    option given twice with a bad second value, flags given a value -> 2
  - every numeric option with "abc", "", "nan", "inf", "-inf", "1e999",
    "0x10", "1,5", " 1", a huge integer and its own out-of-range values -> 2
  - every --border with unknown names -> 2
  - every input file replaced by a missing file, an empty file, a truncated
    file, a file of the wrong format, a file whose header lies (70000 pixels
    wide), a directory -> 1
  - every output replaced by a path in a missing directory, below a regular
    file, onto an existing directory, with an extension no writer takes -> 1
  - global options and commands: none, unknown, --device without a value or
    matching nothing -> 2 / 1

For each row the tool must exit with the expected code (always within
1..127), print exactly one line on stderr ("clv: <command>: ..."), and leave
the output directory exactly as it was: no output file, no temporary file, no
directory created, and an output file that existed before untouched.

Environment: CLV_CLI (the clv binary). Standard library only. Prints
"cli-bad: N passed, M failed" and exits 1 when anything failed.
"""

import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

from pycheck import check, summary

CLI = os.environ.get("CLV_CLI")
DATA = os.environ.get("CLV_TEST_DATA", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "data"))
TIMEOUT = 240
USAGE, RUNTIME = 2, 1




# ---- small writers (PNG, PFM, .flo, CSV) ---------------------------------

def png_bytes(width, height, channels, pixels, ihdr_size=None):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    ctype = {1: 0, 3: 2, 4: 6}[channels]
    raw = bytearray()
    row = width * channels
    for y in range(height):
        raw.append(0)
        raw += bytes(pixels[y * row:(y + 1) * row])
    w, h = ihdr_size or (width, height)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, ctype, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(raw)))
            + chunk(b"IEND", b""))


def texture(width, height, channels=1, dx=0.0):
    vals = []
    for y in range(height):
        for x in range(width):
            for c in range(channels):
                v = 128 + 60 * math.sin((x - dx) * 0.45 + c) * math.cos(y * 0.35) \
                    + 40 * math.sin((x - dx) * 0.13 + y * 0.21)
                vals.append(max(0, min(255, int(round(v)))))
    return vals


def pfm_bytes(width, height, channels, values):
    head = ("PF" if channels == 3 else "Pf") + "\n%d %d\n-1.0\n" % (width, height)
    return head.encode() + struct.pack("<%df" % len(values), *values)


def flo_bytes(width, height, uv, header=None):
    w, h = header or (width, height)
    return b"PIEH" + struct.pack("<ii", w, h) + struct.pack("<%df" % len(uv), *uv)


def spit(path, data):
    with open(path, "wb") as f:
        f.write(data)


# ---- running the tool -------------------------------------------------------

def run(args, env=None, cwd=None, timeout=TIMEOUT):
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    try:
        p = subprocess.run([CLI] + list(args), capture_output=True, env=full_env, cwd=cwd,
                           timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return -999, "", "timed out after %d s\n" % timeout


def snapshot(root):
    """Every path under root with its kind and, for files, its content."""
    state = {}
    for base, dirs, files in os.walk(root):
        for d in dirs:
            state[os.path.relpath(os.path.join(base, d), root)] = "dir"
        for f in files:
            p = os.path.join(base, f)
            with open(p, "rb") as fh:
                state[os.path.relpath(p, root)] = fh.read()
    return state


def describe(args, code, out, err):
    return "clv %s -> exit %d, stdout %r, stderr %r" % (" ".join(args), code, out[-300:],
                                                        err[-600:])


class Matrix:
    def __init__(self, tmp):
        self.tmp = tmp
        self.out = os.path.join(tmp, "out")  # every output goes here
        os.mkdir(self.out)
        self.rows = 0

    def expect(self, label, args, code, env=None, cmd=None, want=None, timeout=TIMEOUT):
        """One row: exit code, one stderr line, the output directory unchanged;
        with want, the line also contains each of those strings (the reason)."""
        self.rows += 1
        before = snapshot(self.out)
        rc, out, err = run(args, env=env, timeout=timeout)
        for w in want or ():
            check(w in err, "%s: the message says %r" % (label, w), describe(args, rc, out, err))
        lines = err.split("\n")
        name = cmd or (args[0] if args and not args[0].startswith("-") else None)
        one_line = (err.endswith("\n") and len(lines) == 2 and lines[0].startswith("clv: ")
                    and len(lines[0]) > len("clv: x: "))
        check(rc == code and 1 <= rc <= 127, "%s: exit %d (want %d)" % (label, rc, code),
              describe(args, rc, out, err))
        check(one_line, "%s: not exactly one 'clv: ...' line on stderr" % label,
              describe(args, rc, out, err))
        if name and one_line:
            check(lines[0].startswith("clv: %s: " % name) or lines[0].startswith("clv: usage: "),
                  "%s: the line does not name the command" % label, lines[0])
        after = snapshot(self.out)
        if after != before:
            added = sorted(set(after) - set(before))
            changed = sorted(k for k in before if k in after and before[k] != after[k])
            gone = sorted(set(before) - set(after))
            check(False, "%s: the output directory changed" % label,
                  "added %s, changed %s, removed %s" % (added, changed, gone))
            # keep the rows independent: drop what this one left behind
            for rel in sorted(added, key=lambda r: -r.count(os.sep)):
                p = os.path.join(self.out, rel)
                if os.path.isdir(p) and not os.path.islink(p):
                    shutil.rmtree(p, ignore_errors=True)
                elif os.path.lexists(p):
                    os.unlink(p)
        else:
            check(True, label)

    def good(self, label, args, env=None):
        rc, out, err = run(args, env=env)
        ok = check(rc == 0, "base command works: %s" % label, describe(args, rc, out, err))
        # leave the output directory as it was for the rows
        for entry in os.listdir(self.out):
            if entry not in ("adir", "afile"):
                p = os.path.join(self.out, entry)
                if os.path.isdir(p):
                    shutil.rmtree(p)
                else:
                    os.unlink(p)
        return ok


# ---- the table -------------------------------------------------------------

# Values no number option takes.
BAD_NUMBERS = ["abc", "", "nan", "NaN", "inf", "-inf", "1e999", "-1e999", "0x10", "1,5", " 1",
               "1 ", "--", "1e", "+-1"]
# Integer options also refuse these.
BAD_INTEGERS = ["99999999999999999999", "-99999999999999999999", "2147483648", "1.0", "1e1"]


class Cmd:
    """A sub-command: its working command line and what the rows vary.

    args: the base command line (works). ins: {index: kind} of input paths
    (kind 'img', 'flo', 'csv', 'hdr'). outs: {index: kind} of outputs ('img',
    'csv', 'flo', 'prefix', 'dir'). opts: {option: [bad values]} of options
    in args (the value follows the option). required: options whose removal
    is a usage error. flags: options without a value."""

    def __init__(self, args, ins=None, outs=None, opts=None, required=(), flags=(), ints=(),
                 words=()):
        self.args = args
        self.ins = ins or {}
        self.outs = outs or {}
        self.opts = opts or {}
        self.required = required
        self.flags = flags
        self.ints = ints
        self.words = words  # options whose values are not numbers (enums, files)

    @property
    def name(self):
        return self.args[0]


def positionals(args, flags):
    """Indices of the positional arguments of a sub-command line."""
    idx, i = [], 1
    while i < len(args):
        a = args[i]
        if a.startswith("-") and len(a) > 1:
            i += 1 if (a in flags or "=" in a) else 2
            continue
        idx.append(i)
        i += 1
    return idx


def rows_for(m, c, F):
    args, name = c.args, c.name
    pos = positionals(args, c.flags)
    # -- the command line itself
    if pos:
        m.expect("%s: last positional missing" % name, args[:pos[-1]] + args[pos[-1] + 1:], USAGE)
        m.expect("%s: no positionals" % name, [a for i, a in enumerate(args) if i not in pos],
                 USAGE)
        m.expect("%s: an empty positional" % name,
                 [("" if i == pos[0] else a) for i, a in enumerate(args)], USAGE)
    m.expect("%s: one positional too many" % name, args + [os.path.join(F.tmp, "extra.png")],
             USAGE)
    m.expect("%s: unknown option --bogus" % name, args[:1] + ["--bogus"] + args[1:], USAGE)
    m.expect("%s: unknown option -x" % name, args[:1] + ["-x", "1"] + args[1:], USAGE)
    m.expect("%s: an extra positional after --" % name, args + ["--", "--bogus"], USAGE)
    # -- options
    for opt, bad in c.opts.items():
        j = args.index(opt)
        without = args[:j] + args[j + 2:]
        m.expect("%s: %s without its value" % (name, opt), without + [opt], USAGE)
        m.expect("%s: %s= (empty inline value)" % (name, opt), without[:1] + [opt + "="] + without[1:],
                 USAGE)
        if opt in c.required:
            m.expect("%s: required %s missing" % (name, opt), without, USAGE)
        values = list(bad)
        if opt not in ("--border", "--edge", "--points", "--draw", "--color") \
                and opt not in c.words:
            values += BAD_NUMBERS
        if opt in c.ints:
            values += BAD_INTEGERS
        for v in values:
            m.expect("%s: %s %r" % (name, opt, v), args[:j + 1] + [v] + args[j + 2:], USAGE)
        m.expect("%s: %s=%r inline" % (name, opt, values[0]),
                 args[:j] + ["%s=%s" % (opt, values[0])] + args[j + 2:], USAGE)
        m.expect("%s: %s given twice, the second bad" % (name, opt),
                 args[:1] + [opt, args[j + 1], opt, values[0]] + without[1:], USAGE)
    for flag in c.flags:
        m.expect("%s: flag %s given a value" % (name, flag),
                 [(flag + "=1" if a == flag else a) for a in args], USAGE)
    # -- inputs
    for i, kind in c.ins.items():
        for label, path in F.bad_inputs(kind):
            m.expect("%s: input %d %s" % (name, i, label),
                     args[:i] + [path] + args[i + 1:], RUNTIME)
    # -- outputs
    for i, kind in c.outs.items():
        for label, path in F.bad_outputs(kind, args[i]):
            m.expect("%s: output %d %s" % (name, i, label),
                     args[:i] + [path] + args[i + 1:], RUNTIME)
    # -- an output that exists stays as it was when the run fails
    if c.ins and c.outs:
        i = min(c.ins)
        o = min(c.outs)
        if c.outs[o] in ("img", "csv", "flo"):
            target = os.path.join(F.m.out, "exists" + os.path.splitext(args[o])[1])
            spit(target, b"keep me")
            a = list(args)
            a[i] = F.missing
            a[o] = target
            m.expect("%s: existing output kept when an input is missing" % name, a, RUNTIME)
            with open(target, "rb") as f:
                check(f.read() == b"keep me", "%s: the existing output was changed" % name)
            os.unlink(target)


class Fixture:
    def __init__(self, tmp, m):
        self.tmp = tmp
        self.m = m
        j = lambda n: os.path.join(tmp, n)
        self.img = j("in.png")
        spit(self.img, png_bytes(40, 32, 1, texture(40, 32)))
        self.rgb = j("rgb.png")
        spit(self.rgb, png_bytes(40, 32, 3, texture(40, 32, 3)))
        self.next = j("next.png")
        spit(self.next, png_bytes(40, 32, 1, texture(40, 32, 1, dx=1.0)))
        self.small = j("small.png")
        spit(self.small, png_bytes(8, 6, 1, texture(8, 6)))
        self.hdr = j("in.pfm")
        spit(self.hdr, pfm_bytes(40, 32, 3, [0.01 + (i % 97) * 0.3 for i in range(40 * 32 * 3)]))
        self.flo = j("in.flo")
        spit(self.flo, flo_bytes(40, 32, [0.25 * ((i % 7) - 3) for i in range(40 * 32 * 2)]))
        self.flo_small = j("small.flo")
        spit(self.flo_small, flo_bytes(8, 6, [0.5] * (8 * 6 * 2)))
        self.csv = j("points.csv")
        spit(self.csv, b"x,y\n10,10\n20.5,12.25\n30,20\n")
        self.frames = j("frames")
        os.mkdir(self.frames)
        for k in range(3):
            spit(os.path.join(self.frames, "f%d.png" % k),
                 png_bytes(40, 32, 1, texture(40, 32, 1, dx=0.7 * k)))
        # bad inputs
        self.missing = j("missing.png")
        spit(j("empty"), b"")
        spit(j("text.png"), b"hello, this is not an image\n" * 4)
        with open(self.img, "rb") as f:
            whole = f.read()
        spit(j("trunc.png"), whole[:len(whole) // 2])
        spit(j("huge.png"), png_bytes(8, 6, 1, texture(8, 6), ihdr_size=(70000, 10)))
        os.mkdir(j("adir"))
        spit(j("empty.flo"), b"")
        with open(self.flo, "rb") as f:
            whole = f.read()
        spit(j("trunc.flo"), whole[:len(whole) // 2])
        spit(j("huge.flo"), flo_bytes(1, 1, [0.0, 0.0], header=(100000, 1)))
        spit(j("neg.flo"), flo_bytes(1, 1, [0.0, 0.0], header=(-5, 1)))
        spit(j("badcsv.csv"), b"a,b\n1,2\n")
        spit(j("nancsv.csv"), b"x,y\n1,nan\n")
        spit(j("infcsv.csv"), b"x,y\n1e999,2\n")
        spit(j("shortcsv.csv"), b"x,y\n1\n")
        spit(j("nulcsv.csv"), b"x,y\n1\x00,2\n")
        spit(j("hugepfm.pfm"), b"PF\n100000 10\n-1.0\n" + b"\0" * 64)
        with open(self.hdr, "rb") as f:
            whole = f.read()
        spit(j("trunc.pfm"), whole[:len(whole) // 2])
        # fixtures inside the output directory
        os.mkdir(os.path.join(m.out, "adir"))
        spit(os.path.join(m.out, "afile"), b"a regular file\n")

    def bad_inputs(self, kind):
        j = lambda n: os.path.join(self.tmp, n)
        common = [("missing", self.missing), ("empty", j("empty")), ("a directory", j("adir"))]
        if kind in ("img", "hdr"):
            return common + [("not an image", j("text.png")), ("truncated PNG", j("trunc.png")),
                             ("PNG header 70000 wide", j("huge.png")),
                             ("PFM header 100000 wide", j("hugepfm.pfm")),
                             ("truncated PFM", j("trunc.pfm"))]
        if kind == "flo":
            return common + [("a PNG", self.img), ("truncated", j("trunc.flo")),
                             ("header 100000 wide", j("huge.flo")),
                             ("header -5 wide", j("neg.flo")), ("empty .flo", j("empty.flo"))]
        if kind == "csv":
            return common + [("bad header", j("badcsv.csv")), ("nan coordinate", j("nancsv.csv")),
                             ("1e999 coordinate", j("infcsv.csv")), ("one field", j("shortcsv.csv")),
                             ("NUL byte", j("nulcsv.csv")), ("a PNG", self.img)]
        raise ValueError(kind)

    def bad_outputs(self, kind, good):
        o = self.m.out
        base = os.path.basename(good)
        bad = [("in a missing directory", os.path.join(o, "nodir", base)),
               ("below a regular file", os.path.join(o, "afile", base)),
               ("onto a directory", os.path.join(o, "adir"))]
        if kind == "img":
            bad += [("with extension .txt", os.path.join(o, "out.txt")),
                    ("without extension", os.path.join(o, "out")),
                    ("named only .png", os.path.join(o, ".png"))]
        if kind == "flo":
            bad += [("not .flo", os.path.join(o, "out.png"))]
        if kind == "prefix":
            bad = bad[:2]
        if kind == "dir":
            bad = [("below a regular file", os.path.join(o, "afile", "seq")),
                   ("a regular file", os.path.join(o, "afile"))]
        return bad


# ---- rows generated from the operations' descriptors --------------------

def read_params(name):
    """'clv help --params NAME': per operation of that command name (one
    line "# op" each), one dict per positional and option."""
    rc, out, err = run(["help", "--params", name])
    if rc != 0:
        raise SystemExit("clv help --params %s failed: %s" % (name, err))
    groups = []
    for line in out.splitlines():
        if line.startswith("# "):
            groups.append([])
            continue
        rows = groups[-1]
        f = line.split("\t")
        if len(f) != 10:
            raise SystemExit("clv help --params %s: bad line %r" % (name, line))
        rows.append({"spelling": f[0], "kind": f[1], "params": f[2].split(","), "type": f[3],
                     "min": float(f[4]), "max": float(f[5]),
                     "flags": set() if f[6] == "-" else set(f[6].split(",")),
                     "special": float(f[7]), "def": float(f[8]), "choices": f[9]})
    return groups


def valid(r, v):
    """Whether number v follows the rule of option row r (as op.h defines it)."""
    fl = r["flags"]
    if math.isnan(v) or math.isinf(v):
        return False
    if "special" in fl and (v == r["special"] or ("special_below" in fl and v <= r["special"])):
        return True
    if math.isfinite(r["min"]) and (v <= r["min"] if "min_open" in fl else v < r["min"]):
        return False
    if math.isfinite(r["max"]) and (v >= r["max"] if "max_open" in fl else v > r["max"]):
        return False
    if "odd" in fl and v % 2 == 0:
        return False
    if r["type"] == "int" and v != int(v):
        return False
    return True


def good_value(r):
    """A value the rule takes: the default when valid, else one near the range's low end."""
    cands = [r["def"], r["min"], r["min"] + 1, r["min"] + 0.5, r["max"], r["max"] - 1, 1.0, 0.0]
    for v in cands:
        if math.isfinite(v) and valid(r, v) and (r["type"] != "int" or v == int(v)):
            return v
    raise SystemExit("no valid value for %s" % r["spelling"])


def fmt(r, v):
    return "%d" % v if r["type"] == "int" else repr(float(v))


def bad_values(r):
    """Just outside each closed or open range end, and an even value of an
    odd-only rule, where the rule refuses them."""
    out = []
    step = 1.0 if r["type"] == "int" else None
    for end, sign, is_open in ((r["min"], -1, "min_open" in r["flags"]),
                               (r["max"], +1, "max_open" in r["flags"])):
        if not math.isfinite(end):
            continue
        if is_open:
            vals = [end]
        elif step:
            vals = [end + sign * step]
        else:
            vals = [end + sign * max(abs(end) * 1e-6, 1e-6)]
        out += [v for v in vals if not valid(r, v)]
    if "odd" in r["flags"]:
        lo = r["min"] if math.isfinite(r["min"]) else 0
        even = lo + 1 if lo % 2 else lo
        if not valid(r, even):
            out.append(even)
    return out


def described_command(F, name, rows, shared=False):
    """The Cmd of a described operation, from its descriptor alone. shared:
    the command name runs several operations (grid, grid --edge), so the
    option that picks one is not a required one."""
    o = F.m.out
    args, ins, outs, opts = [name], {}, {}, {}
    required, flags, ints, words = [], [], [], []
    seen = set()
    # a pair first: it sets both its parameters, which their own options
    # then leave alone
    for r in sorted(rows, key=lambda r: r["kind"] != "pair"):
        k = r["kind"]
        if k in ("in", "out"):
            continue
        if k == "size":
            args += [r["spelling"], "7x5"]
            opts[r["spelling"]] = ["0x5", "7x0", "-1x5", "7", "7x5x3", "65537x1", "7.5x5"]
            required.append(r["spelling"])
            ints.append(r["spelling"])
            continue
        if k == "type":  # an output's pixel type: u8 keeps the base's PNG writable
            args += [r["spelling"], "u8"]
            opts[r["spelling"]] = ["f64", "", "U8", "uint8", "u8,f32"]
            words.append(r["spelling"])
            continue
        if k == "pair":
            v = fmt(r, good_value(r))
            args += [r["spelling"], "%sx%s" % (v, v)]
            opts[r["spelling"]] = ["%sx%s" % (fmt(r, b), v) for b in bad_values(r)] + \
                                  ["%sx%s" % (v, fmt(r, b)) for b in bad_values(r)] + [v, "x" + v]
            ints.append(r["spelling"])
            if "required" in r["flags"]:
                required.append(r["spelling"])
            seen.update(r["params"])
            continue
        if r["params"][0] in seen:
            continue  # an alias of, or a side of, an option already on the line
        seen.update(r["params"])
        if k == "flag":
            args.append(r["spelling"])
            flags.append(r["spelling"])
        elif k == "file":
            if "required" in r["flags"]:  # an image given by an option (grid --edge)
                ins[len(args) + 1] = "img"
                args += [r["spelling"], F.img]
                opts[r["spelling"]] = [""]
                words.append(r["spelling"])
                if not shared:
                    required.append(r["spelling"])
            continue
        elif r["type"] == "enum":
            names = r["choices"].split(",")
            args += [r["spelling"], names[0]]
            opts[r["spelling"]] = ["nosuch", "", names[0] + "x", "-1", ",".join(names[:2])]
            words.append(r["spelling"])
        else:
            args += [r["spelling"], fmt(r, good_value(r))]
            opts[r["spelling"]] = [fmt(r, b) for b in bad_values(r)]
            if r["type"] == "int":
                ints.append(r["spelling"])
            if "required" in r["flags"]:
                required.append(r["spelling"])
    for r in rows:
        if r["kind"] == "in":
            types, chans = r["choices"].split(";")
            u8 = "u8" in types.split(",")
            path = F.flo if (types, chans) == ("f32", "2") else \
                F.rgb if u8 and "3" in chans.split(",") else F.img if u8 else F.hdr
            ins[len(args)] = "flo" if path == F.flo else "hdr" if path == F.hdr else "img"
            args.append(path)
    for r in rows:
        if r["kind"] == "out":
            flo = r["spelling"].endswith(".flo")
            # an f32-only result (sobel) goes to a file format that holds f32
            ext = "flo" if flo else "pfm" if r["choices"].split(";")[0] == "f32" else "png"
            outs[len(args)] = "flo" if flo else "img"
            args.append(os.path.join(o, "%s_%s.%s" % (name, r["params"][0], ext)))
    return Cmd(args, ins=ins, outs=outs, opts=opts, required=tuple(required), flags=tuple(flags),
               ints=tuple(ints), words=tuple(words))


def described_names():
    """The commands of 'clv --help' that are described operations (those
    'clv help --params' answers for)."""
    rc, out, err = run(["--help"])
    names, section = [], False
    for line in out.splitlines():
        if line.startswith("commands:"):
            section = True
        elif section and line.startswith("  ") and line.strip():
            n = line.split()[0]
            if run(["help", "--params", n])[0] == 0:
                names.append(n)
        elif section and not line.strip():
            section = False
    return names


def commands(F):
    """Hand-written rows for the workflow commands, then one generated Cmd
    per described operation."""
    described = described_names()
    return [c for c in workflow_commands(F) if c.name not in described] + \
        [described_command(F, n, rows, len(groups) > 1)
         for n, groups in ((n, read_params(n)) for n in described) for rows in groups]


def workflow_commands(F):
    o = F.m.out
    out = lambda n: os.path.join(o, n)
    B = ["mirror", "REFLECT_101", "reflect 101", "0", "", "wrap,reflect"]
    return [
        Cmd(["pyramid", "--levels", "2", "--scale", "0.5", F.img, out("pyr")], ins={5: "img"},
            outs={6: "prefix"},
            opts={"--levels": ["0", "17", "-1", "2.5"], "--scale": ["0", "1", "-0.5", "1.5"]},
            required=("--levels",), ints=("--levels",)),
        Cmd(["corners", "--max", "50", "--quality", "0.01", "--min-distance", "3", "--block-size",
             "3", F.img, out("c.csv"), "--draw", out("c.png")], ins={9: "img"},
            outs={10: "csv", 12: "img"},
            opts={"--max": ["0", "-1", "1048577", "2.5"], "--quality": ["0", "1.5", "-0.01"],
                  "--min-distance": ["-1", "-0.5"], "--block-size": ["0", "4", "33", "-3"],
                  "--draw": [""]},
            required=("--max", "--quality", "--min-distance"), ints=("--max", "--block-size")),
        Cmd(["track", "--win", "5", "--levels", "2", "--iterations", "10", "--points", F.csv,
             F.img, F.next, out("tr.csv")], ins={8: "csv", 9: "img", 10: "img"}, outs={11: "csv"},
            opts={"--win": ["4", "2", "1", "257", "-5"], "--levels": ["0", "17"],
                  "--iterations": ["0", "1001", "-1"], "--points": [""]},
            ints=("--win", "--levels", "--iterations")),
        Cmd(["flow", "--pyr-scale", "0.5", "--levels", "1", "--winsize", "5", "--iterations", "2",
             "--poly-n", "5", "--poly-sigma", "1.1", "--gaussian", F.img, F.next, out("f.flo"),
             "--color", out("f.png")], ins={14: "img", 15: "img"}, outs={16: "flo", 18: "img"},
            opts={"--pyr-scale": ["0", "1", "-0.5"], "--levels": ["-1", "17"],
                  "--winsize": ["4", "2", "257"], "--iterations": ["0", "101"],
                  "--poly-n": ["6", "4", "8", "-5"], "--poly-sigma": ["0", "100", "-1"],
                  "--color": [""]},
            flags=("--gaussian",), ints=("--levels", "--winsize", "--iterations", "--poly-n")),
        Cmd(["flow-eval", F.flo, F.flo], ins={1: "flo", 2: "flo"}),
        Cmd(["flow-seq", "--levels", "1", "--winsize", "5", "--color",
             os.path.join(F.frames, "*.png"), out("seq")], outs={7: "dir"},
            opts={"--levels": ["-1", "17"], "--winsize": ["4"]}, flags=("--color",),
            ints=("--levels", "--winsize")),
    ]


def extra_rows(m, F):
    o = m.out
    out = lambda n: os.path.join(o, n)
    j = lambda n: os.path.join(F.tmp, n)
    # global options and commands
    m.expect("no command", [], USAGE)
    m.expect("unknown command", ["frobnicate", F.img, out("x.png")], USAGE)
    m.expect("unknown global option", ["--frobnicate", "transpose", F.img, out("x.png")], USAGE)
    m.expect("--device without a value", ["--device"], USAGE)
    m.expect("--device ''", ["--device", "", "transpose", F.img, out("x.png")], USAGE)
    m.expect("--device= (empty)", ["--device=", "transpose", F.img, out("x.png")], USAGE)
    m.expect("--device matching nothing", ["--device", "no-such-device", "transpose", F.img,
                                           out("x.png")], RUNTIME, cmd="transpose")
    m.expect("--device 99:99", ["--device", "99:99", "transpose", F.img, out("x.png")], RUNTIME,
             cmd="transpose")
    m.expect("CLV_DEVICE matching nothing", ["transpose", F.img, out("x.png")], RUNTIME,
             env={"CLV_DEVICE": "no-such-device"})
    m.expect("CLV_KERNEL_PATH missing", ["transpose", F.img, out("x.png")], RUNTIME,
             env={"CLV_KERNEL_PATH": j("no-kernels")})
    m.expect("devices: an argument", ["devices", "extra"], USAGE)
    m.expect("devices: unknown option", ["devices", "--bogus"], USAGE)
    m.expect("cache: no sub-command", ["cache"], USAGE)
    m.expect("cache: unknown sub-command", ["cache", "bogus"], USAGE)
    m.expect("cache: warm an unknown operation", ["cache", "warm", "no_such_op"], USAGE)
    m.expect("cache: unknown option", ["cache", "warm", "--bogus"], USAGE)
    m.expect("cache: info with an argument", ["cache", "info", "extra"], USAGE)
    # data-dependent failures the command line cannot know about
    m.expect("grid: edge of another size", ["grid", "--sigma-space", "4", "--sigma-range", "25",
                                            "--edge", F.small, F.img, out("g.png")], RUNTIME)
    m.expect("grid: s_r too fine for the image's range", ["grid", "--sigma-space", "4",
                                                          "--sigma-range", "0.01", F.img,
                                                          out("g.png")], RUNTIME)
    m.expect("tonemap: an 8-bit input", ["tonemap", F.img, out("tm.png")], RUNTIME)
    m.expect("tonemap: f32 output to .png? no: .pfm output", ["tonemap", F.hdr, out("tm.pfm")],
             RUNTIME)
    m.expect("gaussian: sigma 100 needs 603 taps", ["gaussian", "--sigma", "100", F.img,
                                                    out("g.png")], USAGE)
    m.expect("bilateral: sigma-space 30 needs radius 90", ["bilateral", "--sigma-space", "30",
                                                           "--sigma-range", "20", F.img,
                                                           out("b.png")], USAGE)
    m.expect("pyramid: 16 levels of a 40x32 image", ["pyramid", "--levels", "16", F.img,
                                                     out("p")], RUNTIME)
    m.expect("pyramid: scale 0.001 (blur above 255 taps)", ["pyramid", "--levels", "2",
                                                            "--scale", "0.001", F.img, out("p")],
             RUNTIME)
    m.expect("corners: --draw into a missing directory (the CSV must not appear)",
             ["corners", "--max", "5", "--quality", "0.1", "--min-distance", "2", F.img,
              out("c.csv"), "--draw", out("nodir/c.png")], RUNTIME)
    m.expect("track: prev and next of two sizes", ["track", F.img, F.small, out("t.csv")], RUNTIME)
    m.expect("track: --points and --corners", ["track", "--points", F.csv, "--corners", "5", F.img,
                                               F.next, out("t.csv")], USAGE)
    m.expect("track: --corners 0", ["track", "--corners", "0", F.img, F.next, out("t.csv")], USAGE)
    m.expect("flow: prev and next of two sizes", ["flow", F.img, F.small, out("f.flo")], RUNTIME)
    m.expect("flow: --color into a missing directory (the .flo must not appear)",
             ["flow", F.img, F.next, out("f.flo"), "--color", out("nodir/f.png")], RUNTIME)
    m.expect("flow-eval: two sizes", ["flow-eval", F.flo, F.flo_small], RUNTIME)
    m.expect("flow-eval: an image as ground truth", ["flow-eval", F.flo, F.img], RUNTIME)
    m.expect("flow-seq: no frame matches", ["flow-seq", j("frames/none*.png"), out("seq")],
             RUNTIME)
    m.expect("flow-seq: one frame", ["flow-seq", j("frames/f0.png"), out("seq")], RUNTIME)
    mixed = j("mixed")
    os.mkdir(mixed)
    shutil.copy(j("frames/f0.png"), os.path.join(mixed, "a.png"))
    shutil.copy(j("frames/f1.png"), os.path.join(mixed, "b.png"))
    shutil.copy(F.small, os.path.join(mixed, "c.png"))
    m.expect("flow-seq: a frame of another size (nothing written, no directory)",
             ["flow-seq", "--color", os.path.join(mixed, "*.png"), out("seq/deeper")], RUNTIME)
    broken = j("broken")
    os.mkdir(broken)
    shutil.copy(j("frames/f0.png"), os.path.join(broken, "a.png"))
    shutil.copy(j("frames/f1.png"), os.path.join(broken, "b.png"))
    shutil.copy(j("trunc.png"), os.path.join(broken, "c.png"))
    m.expect("flow-seq: a truncated frame (nothing written, no directory)",
             ["flow-seq", os.path.join(broken, "*.png"), out("seq")], RUNTIME)
    # demo
    m.expect("demo: two directories", ["demo", out("d1"), out("d2")], USAGE)
    m.expect("demo: unknown option", ["demo", "--bogus"], USAGE)
    m.expect("demo: empty directory name", ["demo", ""], USAGE)
    empty_data = j("nodata")
    os.mkdir(empty_data)
    m.expect("demo: CLV_DATA_DIR without the images", ["demo", out("demo")], RUNTIME,
             env={"CLV_DATA_DIR": empty_data})
    m.expect("demo: DIR below a regular file", ["demo", out("afile/demo")], RUNTIME)
    # demo with the second photo truncated: fails after writing the first's
    # results, which must not stay behind
    bad_data = j("baddata")
    shutil.copytree(DATA, bad_data)
    with open(os.path.join(bad_data, "camera.png"), "rb") as f:
        whole = f.read()
    spit(os.path.join(bad_data, "camera.png"), whole[:len(whole) // 3])
    m.expect("demo: a truncated bundled image (nothing written, no directory)",
             ["demo", out("demo")], RUNTIME, env={"CLV_DATA_DIR": bad_data})


def issue13_rows(m, F):
    """Issue 13 items 11, 12, 14, 16: same-file outputs, bounded CSV reads,
    subnormal and out-of-range numbers."""
    o = m.out
    out = lambda n: os.path.join(o, n)
    j = lambda n: os.path.join(F.tmp, n)
    corners = ["corners", "--max", "5", "--quality", "0.1", "--min-distance", "2", F.img]
    same = "are the same file"
    # -- 11: two outputs naming one file (the first would be lost silently)
    m.expect("corners: OUT.csv and --draw the same name", corners + [out("s.png"), "--draw",
                                                                      out("s.png")], USAGE,
             want=[same])
    m.expect("corners: OUT.csv and --draw as a.png and ./a.png",
             corners + [out("s.png"), "--draw", os.path.join(o, ".", "s.png")], USAGE, want=[same])
    m.expect("corners: OUT.csv and --draw through dir/..",
             corners + [os.path.join(o, "adir", "..", "s.png"), "--draw", out("s.png")], USAGE,
             want=[same])
    m.expect("flow: OUT.flo and --color the same file",
             ["flow", "--levels", "1", F.img, F.next, out("s.flo"), "--color",
              os.path.join(o, ".", "s.flo")], USAGE, want=[same])
    spit(out("exists.png"), b"keep me")
    os.link(out("exists.png"), out("hard.png"))
    os.symlink("exists.png", out("soft.png"))
    m.expect("corners: OUT.csv a hard link to --draw",
             corners + [out("hard.png"), "--draw", out("exists.png")], USAGE, want=[same])
    m.expect("corners: OUT.csv a symbolic link to --draw",
             corners + [out("soft.png"), "--draw", out("exists.png")], USAGE, want=[same])
    for n in ("soft.png", "hard.png", "exists.png"):
        os.unlink(out(n))
    # -- 12: CSV inputs that are no regular file, too long a line, too big a file
    track = lambda pts: ["track", "--levels", "1", "--points", pts, F.img, F.next, out("t.csv")]
    regular = "must be a regular file"
    m.expect("track: --points /dev/zero (refused at once)", track("/dev/zero"), RUNTIME,
             want=[regular], timeout=20)
    fifo = j("points.fifo")
    os.mkfifo(fifo)
    m.expect("track: --points a FIFO without a writer (refused at once)", track(fifo), RUNTIME,
             want=[regular], timeout=20)
    m.expect("track: --points a directory", track(j("adir")), RUNTIME, want=[regular])
    long_line = j("long_line.csv")
    spit(long_line, b"x,y\n1,2\n" + b"1" * (50 << 20) + b",2\n")
    m.expect("track: a 50 MB CSV line", track(long_line), RUNTIME,
             want=["line 3", "longer than 1024 bytes"])
    spit(long_line, b"x,y\n" + b"1" * 1025 + b"\n")
    m.expect("track: a CSV line of 1025 bytes", track(long_line), RUNTIME,
             want=["line 2", "longer than 1024 bytes"])
    os.unlink(long_line)
    big = j("big.csv")
    with open(big, "wb") as f:  # sparse: 65 MiB of NULs after the header
        f.write(b"x,y\n")
        f.truncate(65 << 20)
    m.expect("track: a 65 MiB CSV file", track(big), RUNTIME, want=["above the limit of 67108864"])
    os.unlink(big)
    # -- 14 and 16: numbers
    bad_csv = j("bad_numbers.csv")
    for text, field, reason in (("1e308,2", "x", "beyond the float range"),
                                ("2,-3.5e38", "y", "beyond the float range"),
                                ("3.5e38,2", "x", "beyond the float range"),
                                ("1e-999,2", "x", "rounds to 0"),
                                ("2,1e999", "y", "too large")):
        spit(bad_csv, ("x,y\n1,1\n%s\n" % text).encode())
        m.expect("track: CSV point %s" % text, track(bad_csv), RUNTIME,
                 want=["line 3: bad %s" % field, reason])
    os.unlink(bad_csv)
    m.expect("gaussian: --sigma 1e-999 (rounds to 0)", ["gaussian", "--sigma", "1e-999", F.img,
                                                        out("g.png")], USAGE, want=["rounds to 0"])
    m.expect("gaussian: --sigma 1e999 (too large)", ["gaussian", "--sigma", "1e999", F.img,
                                                     out("g.png")], USAGE, want=["too large"])
    m.expect("pyramid: --scale 1e-999 (rounds to 0)", ["pyramid", "--levels", "2", "--scale",
                                                       "1e-999", F.img, out("p")], USAGE,
             want=["rounds to 0"])
    m.expect("gaussian: --sigma 100.0000001 printed in full",
             ["gaussian", "--sigma", "100.0000001", F.img, out("g.png")], USAGE,
             want=["--sigma 100.0000001 needs"])
    m.expect("bilateral: --sigma-space 30.0000001 printed in full",
             ["bilateral", "--sigma-space", "30.0000001", "--sigma-range", "20", F.img,
              out("b.png")], USAGE, want=["--sigma-space 30.0000001 needs"])
    m.expect("grid: --blur 20.0000001", ["grid", "--sigma-space", "4", "--sigma-range", "25",
                                         "--blur", "20.0000001", F.img, out("g.png")], USAGE,
             want=["'20.0000001'", "0..20 "])


def main():
    if not CLI or not os.path.exists(CLI):
        print("CLV_CLI must name the clv binary")
        return 1
    tmp = tempfile.mkdtemp(prefix="clv-cli-bad-")
    try:
        m = Matrix(tmp)
        F = Fixture(tmp, m)
        rc, out, err = run(["devices"])
        if rc != 0 and os.environ.get("CLV_REQUIRE_DEVICE") != "1" \
                and not os.environ.get("CLV_DEVICE"):
            print("SKIP: no OpenCL device: %s" % err.strip())
            return 77
        cmds = commands(F)
        names = set(c.name for c in cmds) | {"devices", "demo", "cache"}
        # every command of 'clv --help' is in the matrix
        rc, out, err = run(["--help"])
        listed = set()
        section = False
        for line in out.splitlines():
            if line.startswith("commands:"):
                section = True
            elif section and line.startswith("  ") and line.strip():
                listed.add(line.split()[0])
            elif section and not line.strip():
                section = False
        check(len(listed) >= 16, "clv --help lists the commands", out)
        check(listed == names, "the matrix covers exactly the commands of clv --help",
              "missing %s, unknown %s" % (sorted(listed - names), sorted(names - listed)))
        # the base lines work (this also builds the kernels: no compiler chatter later)
        for c in cmds:
            m.good(" ".join(c.args[:1]), c.args)
        m.good("demo", ["demo", os.path.join(m.out, "demo")], env={"CLV_DATA_DIR": DATA})
        for c in cmds:
            rows_for(m, c, F)
            # the timed path (--time runs the operation twice) fails the same way
            for i in sorted(c.ins)[:1]:
                m.expect("--time %s: input missing" % c.name,
                         ["--time"] + c.args[:i] + [F.missing] + c.args[i + 1:], RUNTIME,
                         cmd=c.name)
            for i in sorted(c.outs)[:1]:
                label, bad = F.bad_outputs(c.outs[i], c.args[i])[0]
                m.expect("--time %s: output %s" % (c.name, label),
                         ["--time"] + c.args[:i] + [bad] + c.args[i + 1:], RUNTIME, cmd=c.name)
        extra_rows(m, F)
        issue13_rows(m, F)
        print("cli-bad: %d rows over %d commands" % (m.rows, len(names)))
    finally:
        if os.environ.get("CLV_KEEP_TMP"):
            print("cli-bad: files kept in %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return summary("cli-bad")


if __name__ == "__main__":
    sys.exit(main())
