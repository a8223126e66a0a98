#!/usr/bin/env python3
"""Side-by-side timing of clvision against OpenCV (CPU and OpenCL).

For every case (size, op, type, channels) one round runs, back to back:
  (a) clv-bench for that single case (a subprocess; its printed line is parsed),
  (b) OpenCV on the CPU (cv2.ocl.setUseOpenCL(False), numpy arrays),
  (c) OpenCV's OpenCL path (cv2.UMat in and out, cv2.ocl.setUseOpenCL(True)) on
      the device named by --ocl-device (exported as OPENCV_OPENCL_DEVICE before
      cv2 is imported),
  (d) clvision from Python (the clvision package, on clv-bench's device): numpy
      in and numpy out as the README's Python section says (inputs made under
      clvision.aligned_arrays(), as cv2.imread's would be, out= reused from
      clvision.empty(shape, dtype, padded=True): used in place on a CPU
      device), the same with numpy's default allocator (16-byte aligned:
      copied in and out), and device images in and out (clvision.Image, out=
      reused, then finish()).
      The package is imported from the environment, else from the build tree
      next to clv-bench (<build>/python and <repo>/python); --no-python skips it.
Each side warms up, then times --reps repetitions and keeps the median; the
round is repeated --rounds times and the medians of the rounds are reported.

The OpenCL column is never filled with CPU numbers: the script stops if OpenCV
cannot use the requested OpenCL device, runs with OPENCV_OPENCL_RAISE_ERROR=1
so OpenCL failures raise instead of falling back, and on PoCL checks (with
POCL_DEBUG in a child process) that every case really launches OpenCL kernels;
a case where OpenCV quietly took its CPU path is shown as "cpu-fallback".

Needs a Python with cv2 and numpy (on Debian: /usr/bin/python3).
"""

import argparse
import datetime
import glob
import os
import re
import statistics
import subprocess
import sys
import time

ALL_OPS = ["transpose", "resize", "resize_up", "box5", "box31", "gaussian",
           "bilateral", "bilateral16", "grid16", "tonemap", "farneback", "pyramid", "corners",
           "lk"]
# Run only when named in --ops: a 97x97 brute-force bilateral takes seconds per call.
DEFAULT_OPS = [o for o in ALL_OPS if o != "bilateral16"]
# Ops with a single input format.
FIXED_COMBO = {"tonemap": ("f32", 3), "farneback": ("u8", 1), "pyramid": ("u8", 1),
               "corners": ("u8", 1), "lk": ("u8", 1)}
# OpenCV has no bilateral grid or local tone mapper in its main modules: the
# grid row is shown beside OpenCV's brute-force bilateralFilter with the same
# sigmas, and tone mapping has no OpenCV column.
NO_OPENCV = {"tonemap"}
# Repetitions are capped for the slow calls (seconds each on a CPU).
REPS_CAP = {"bilateral16": 3, "grid16_opencv": 3}
DEFAULT_SIZES = ["1280x720", "1920x1080", "3840x2160"]
DEFAULT_COMBOS = [("u8", 1), ("u8", 3), ("f32", 1)]
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PROBE_BEGIN = "@@clv-compare-probe-begin@@"
PROBE_END = "@@clv-compare-probe-end@@"

cv2 = None  # imported in main(), after OPENCV_OPENCL_DEVICE is set
np = None


def fail(msg):
    sys.stderr.write("compare.py: error: %s\n" % msg)
    sys.exit(1)


def warn(msg):
    sys.stderr.write("compare.py: WARNING: %s\n" % msg)
    sys.stderr.flush()


def parse_size(text):
    m = re.fullmatch(r"(\d+)x(\d+)", text)
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise argparse.ArgumentTypeError("expected WxH, got %r" % text)
    return int(m.group(1)), int(m.group(2))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clv-bench", metavar="PATH",
                   help="clv-bench executable (default: newest <repo>/*/bench/clv-bench)")
    p.add_argument("--no-clv", action="store_true",
                   help="time OpenCV only (no clv-bench needed)")
    p.add_argument("--no-python", action="store_true",
                   help="leave out the clvision-from-Python columns")
    p.add_argument("--no-ocl", action="store_true",
                   help="leave out OpenCV's OpenCL column (and its kernel-launch check)")
    p.add_argument("--clv-device", metavar="SPEC",
                   help="clv-bench --device (default: cpu or gpu, from --ocl-device's type)")
    p.add_argument("--ocl-device", default=":CPU:", metavar="SPEC",
                   help="OPENCV_OPENCL_DEVICE for OpenCV's OpenCL path (default :CPU:; "
                        "use :GPU: on a GPU)")
    p.add_argument("--ops", default=",".join(DEFAULT_OPS),
                   help="comma-separated subset of " + ",".join(ALL_OPS))
    p.add_argument("--sizes", default=None, help="comma-separated WxH list (default %s)"
                   % ",".join(DEFAULT_SIZES))
    p.add_argument("--types", default=None, help="u8,f32 (with --channels: their product; "
                   "default u8/1, u8/3, f32/1)")
    p.add_argument("--channels", default=None, help="1,3,4")
    p.add_argument("--reps", type=int, default=None, help="timed repetitions (default 20)")
    p.add_argument("--warmup", type=int, default=3, help="untimed repetitions first (default 3)")
    p.add_argument("--rounds", type=int, default=1,
                   help="repeat the interleaved round R times, report medians (default 1)")
    p.add_argument("--quick", action="store_true", help="reps 5, only 1920x1080")
    p.add_argument("--markdown", metavar="FILE", help="also write the table as markdown")
    p.add_argument("--no-pocl-affinity", action="store_true",
                   help="leave POCL_AFFINITY alone (by default it is set to 1, for clvision "
                   "and OpenCV's OpenCL alike: PoCL's CPU worker threads pinned one per core)")
    p.add_argument("--probe", nargs=4, metavar=("OP", "WxH", "TYPE", "CN"),
                   help=argparse.SUPPRESS)  # internal: kernel-launch check child
    a = p.parse_args(argv)

    a.ops = [o for o in a.ops.split(",") if o]
    for o in a.ops:
        if o not in ALL_OPS:
            p.error("unknown op %r (known: %s)" % (o, ", ".join(ALL_OPS)))
    if a.sizes is None:
        a.sizes = "1920x1080" if a.quick else ",".join(DEFAULT_SIZES)
    try:
        a.sizes = [parse_size(s) for s in a.sizes.split(",") if s]
    except argparse.ArgumentTypeError as e:
        p.error("--sizes: %s" % e)
    if a.reps is None:
        a.reps = 5 if a.quick else 20
    if a.reps < 1 or a.warmup < 0 or a.rounds < 1:
        p.error("--reps and --rounds must be >= 1, --warmup >= 0")
    if a.types is None and a.channels is None:
        a.combos = list(DEFAULT_COMBOS)
    else:
        types = (a.types or "u8,f32").split(",")
        chans = [int(c) for c in (a.channels or "1,3").split(",")]
        for t in types:
            if t not in ("u8", "f32"):
                p.error("--types: u8 or f32, got %r" % t)
        for c in chans:
            if c not in (1, 3, 4):
                p.error("--channels: 1, 3 or 4, got %r" % c)
        a.combos = [(t, c) for t in types for c in chans]
    if a.clv_device is None:
        kind = (a.ocl_device.split(":") + ["", ""])[1].upper()
        a.clv_device = "cpu" if kind == "CPU" else ("gpu" if "GPU" in kind else None)
    return a


# ---------------------------------------------------------------- OpenCV side

def dst_shape(op, w, h):
    """Destination (width, height), as clv-bench computes it."""
    if op == "transpose":
        return h, w
    if op == "resize":
        return max(w // 2, 1), max(h // 2, 1)
    if op == "resize_up":
        return int(w * 1.5), int(h * 1.5)
    return w, h


def cv_type(t, cn):
    depth = cv2.CV_8U if t == "u8" else cv2.CV_32F
    return depth + ((cn - 1) << 3)  # CV_MAKETYPE


FLOW_OPS = ("farneback", "pyramid", "corners", "lk")


def make_source(w, h, t, cn, op=None):
    rng = np.random.default_rng(12345)
    shape = (h, w) if cn == 1 else (h, w, cn)
    if t == "u8":
        img = rng.integers(0, 256, size=shape, dtype=np.uint8)
        if op in FLOW_OPS:
            # smoothed noise, like clv-bench's input for these ops (not the
            # same pixels): plain noise has a corner at every pixel
            img = cv2.GaussianBlur(img, (5, 5), 1.0)
        return img
    return rng.random(size=shape, dtype=np.float32)


def cv_op(op, src, dst, w, h, t):
    """One OpenCV call equivalent to the clvision op (works for Mat and UMat)."""
    b = cv2.BORDER_REFLECT_101
    if op == "transpose":
        return cv2.transpose(src, dst)
    if op in ("resize", "resize_up"):
        return cv2.resize(src, dst_shape(op, w, h), dst, 0, 0, cv2.INTER_LINEAR)
    if op == "box5":
        return cv2.blur(src, (5, 5), dst, (-1, -1), b)
    if op == "box31":
        return cv2.blur(src, (31, 31), dst, (-1, -1), b)
    if op == "gaussian":
        return cv2.GaussianBlur(src, (13, 13), 2.0, dst, 2.0, b)
    sr = 0.1 if t == "f32" else 25.0
    if op == "bilateral":
        return cv2.bilateralFilter(src, 19, sr, 3.0, dst, b)
    if op in ("bilateral16", "grid16"):
        return cv2.bilateralFilter(src, 97, sr, 16.0, dst, b)
    if op == "farneback":
        return cv2.calcOpticalFlowFarneback(src, second_frame(src), None, 0.5, 3, 15, 3, 5, 1.2, 0)
    if op == "pyramid":  # 4 levels, as clv_pyramid_build with 4 levels
        a = cv2.pyrDown(src)
        b = cv2.pyrDown(a)
        return cv2.pyrDown(b)
    if op == "corners":
        return cv2.goodFeaturesToTrack(src, 2000, 0.01, 10)
    if op == "lk":
        return cv2.calcOpticalFlowPyrLK(src, second_frame(src), lk_points(src), None,
                                        winSize=(21, 21), maxLevel=2)
    raise ValueError(op)


_points = {}


def lk_points(src):
    """2000 Shi-Tomasi corners of the first frame (as clv-bench tracks), cached."""
    key = id(src)
    if key not in _points:
        a = src.get() if isinstance(src, cv2.UMat) else src
        _points[key] = cv2.goodFeaturesToTrack(a, 2000, 0.01, 10)
    return _points[key]


_second = {}


def second_frame(src):
    """The first frame shifted by (2, 1) pixels (as clv-bench does), cached."""
    key = id(src)  # the caches are cleared at the start of every case
    if key not in _second:
        is_umat = isinstance(src, cv2.UMat)
        a = src.get() if is_umat else src
        m = np.float32([[1, 0, 2], [0, 1, 1]])
        b = cv2.warpAffine(a, m, (a.shape[1], a.shape[0]), borderMode=cv2.BORDER_REPLICATE)
        _second[key] = cv2.UMat(b) if is_umat else b
    return _second[key]


def time_reps(fn, sync, reps, warmup):
    for _ in range(warmup):
        fn()
        sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def clear_caches():
    """Object ids are reused once an image is freed: forget cached frames."""
    _second.clear()
    _points.clear()


def time_cv_cpu(op, w, h, t, cn, reps, warmup):
    clear_caches()
    cv2.ocl.setUseOpenCL(False)
    src = make_source(w, h, t, cn, op)
    dw, dh = dst_shape(op, w, h)
    dst = np.empty((dh, dw) if cn == 1 else (dh, dw, cn), dtype=src.dtype)
    return time_reps(lambda: cv_op(op, src, dst, w, h, t), lambda: None, reps, warmup)


def require_ocl(requested):
    """Switch OpenCV to OpenCL and prove it is on the requested device."""
    cv2.ocl.setUseOpenCL(True)
    if not cv2.ocl.haveOpenCL() or not cv2.ocl.useOpenCL():
        fail("OpenCV cannot use OpenCL device %r (OPENCV_OPENCL_DEVICE=%r): "
             "haveOpenCL=%s useOpenCL=%s. Refusing to report CPU numbers as OpenCL."
             % (requested, os.environ.get("OPENCV_OPENCL_DEVICE"),
                cv2.ocl.haveOpenCL(), cv2.ocl.useOpenCL()))
    dev = cv2.ocl.Device.getDefault()
    if not dev.name() or not dev.available():
        fail("OpenCV has no available default OpenCL device for %r" % requested)
    kind = (requested.split(":") + ["", ""])[1].upper()
    if kind == "CPU" and not dev.type() & cv2.ocl.Device_TYPE_CPU:
        fail("requested a CPU OpenCL device, OpenCV picked %r (type %d)"
             % (dev.name(), dev.type()))
    if "GPU" in kind and not dev.type() & cv2.ocl.Device_TYPE_GPU:
        fail("requested a GPU OpenCL device, OpenCV picked %r (type %d)"
             % (dev.name(), dev.type()))
    return dev


def time_cv_ocl(op, w, h, t, cn, reps, warmup, requested):
    clear_caches()
    require_ocl(requested)
    src = cv2.UMat(make_source(w, h, t, cn, op))
    dw, dh = dst_shape(op, w, h)
    dst = cv2.UMat(dh, dw, cv_type(t, cn))
    cv2.ocl.finish()
    try:
        return time_reps(lambda: cv_op(op, src, dst, w, h, t), cv2.ocl.finish, reps, warmup)
    finally:
        cv2.ocl.setUseOpenCL(False)


def is_pocl(dev):
    return "pocl" in (dev.version() + " " + dev.driverVersion()).lower()


def probe_child(a):
    """Child mode (POCL_DEBUG=general): run one case, mark the last call on stderr."""
    op, size, t, cn = a.probe
    w, h = parse_size(size)
    cn = int(cn)
    require_ocl(a.ocl_device)
    src = cv2.UMat(make_source(w, h, t, cn, op))
    dw, dh = dst_shape(op, w, h)
    dst = cv2.UMat(dh, dw, cv_type(t, cn))
    for _ in range(2):
        cv_op(op, src, dst, w, h, t)
        cv2.ocl.finish()
    sys.stderr.write("\n" + PROBE_BEGIN + "\n")
    sys.stderr.flush()
    cv_op(op, src, dst, w, h, t)
    cv2.ocl.finish()
    sys.stderr.write("\n" + PROBE_END + "\n")
    sys.stderr.flush()
    return 0


def probe_kernels(a, op, w, h, t, cn):
    """Names of the OpenCL kernels PoCL saw OpenCV launch for one call of the case."""
    env = dict(os.environ, POCL_DEBUG="general")
    cmd = [sys.executable, os.path.abspath(__file__), "--ocl-device", a.ocl_device,
           "--probe", op, "%dx%d" % (w, h), t, str(cn)]
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, errors="replace")
    if r.returncode != 0:
        fail("OpenCL probe for %s %dx%d %s/%d failed (rc %d):\n%s"
             % (op, w, h, t, cn, r.returncode, r.stderr[-4000:]))
    err = r.stderr
    if PROBE_BEGIN not in err or PROBE_END not in err:
        fail("OpenCL probe output incomplete for %s %dx%d %s/%d" % (op, w, h, t, cn))
    section = err.split(PROBE_BEGIN, 1)[1].split(PROBE_END, 1)[0]
    return re.findall(r"Preparing kernel (\S+) with", section)


# --------------------------------------------------------------- Python side

clvision = None  # imported in main() when the Python columns are wanted


def import_clvision(exe):
    """The clvision package: installed, or the build tree's next to clv-bench."""
    global clvision
    try:
        import clvision as _c
    except ImportError:
        build = os.path.dirname(os.path.dirname(os.path.abspath(exe))) if exe else None
        if not build or not os.path.isdir(os.path.join(build, "python")):
            warn("no clvision Python package installed or built next to %s (build with "
                 "meson -Dpython=true, or pass --no-python): the Python columns stay empty"
                 % (exe or "clv-bench"))
            return None
        sys.path[:0] = [os.path.join(build, "python"), os.path.join(REPO, "python")]
        try:
            import clvision as _c
        except ImportError as e:
            warn("no clvision Python package (%s): build with meson -Dpython=true; "
                 "the Python columns stay empty" % e)
            return None
    clvision = _c
    return _c


def py_op(op, src, second, pts, out, w, h, t):
    """One clvision call from Python equivalent to clv-bench's op; src and
    out are numpy arrays or clvision Images (out None where the op has no
    image result)."""
    c = clvision
    sr = 0.1 if t == "f32" else 25.0
    if op == "transpose":
        return c.transpose(src, out=out)
    if op in ("resize", "resize_up"):
        return c.resize(src, out=out)
    if op == "box5":
        return c.box_filter(src, 5, 5, out=out)
    if op == "box31":
        return c.box_filter(src, 31, 31, out=out)
    if op == "gaussian":
        return c.gaussian_blur(src, 2.0, out=out)
    if op in ("bilateral", "bilateral16"):
        return c.bilateral(src, 3.0 if op == "bilateral" else 16.0, sr, out=out)
    if op == "grid16":
        return c.bilateral_grid(src, s_s=16.0, s_r=sr, out=out)
    if op == "tonemap":
        return c.tonemap_local(src, out=out)
    if op == "farneback":
        return c.farneback(src, second, out=out)
    if op == "pyramid":
        if isinstance(src, c.Image):
            return c.pyramid_build(out, src)  # out: the Pyramid
        return c.pyramid(src, levels=4)
    if op == "corners":
        return c.corners_shi_tomasi(src, 2000, 0.01, 10.0)
    if op == "lk":
        return c.lk_track(src, second, pts)  # both pyramids built, as clv-bench
    raise ValueError(op)


def py_arrays(op, w, h, t, cn):
    """The numpy inputs of a Python case (source, second frame, points) and
    the (shape, dtype) of its image result (None: no out=)."""
    src = make_source(w, h, t, cn, op)
    if op == "tonemap":
        src = make_source(w, h, "f32", 3)
    second = None
    if op in ("farneback", "lk"):
        m = np.float32([[1, 0, 2], [0, 1, 1]])
        second = cv2.warpAffine(src, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    pts = cv2.goodFeaturesToTrack(src, 2000, 0.01, 10).reshape(-1, 2) if op == "lk" else None
    dw, dh = dst_shape(op, w, h)
    if op == "farneback":
        out = ((dh, dw, 2), np.float32)
    elif op == "tonemap":
        out = ((dh, dw, 3), np.uint8)
    elif op in ("pyramid", "corners", "lk"):
        out = None
    else:
        out = ((dh, dw) if cn == 1 else (dh, dw, cn), src.dtype)
    return src, second, pts, out


def off64(a):
    """a itself when its data is not on 64 bytes, else a copy 16 bytes past 64
    (numpy's default allocator gives 16-byte alignment; this makes it certain)."""
    if a is None or a.ctypes.data % 64:
        return a
    buf = np.empty(a.nbytes + 80, np.uint8)
    off = (-buf.ctypes.data % 64) + 16
    b = buf[off:off + a.nbytes].view(a.dtype).reshape(a.shape)
    b[...] = a
    return b


def time_py(op, w, h, t, cn, reps, warmup, device):
    """(py np, py np16, py dev) ms of clvision from Python: numpy in and out
    as the README says (inputs made under clvision.aligned_arrays(), out= from
    clvision.empty(..., padded=True)), numpy in and out with numpy's default
    allocator (16-byte aligned), device images in and out."""
    c = clvision
    ctx = c.Context(device)
    c._local.ctx = ctx  # numpy calls use this context too
    # arrays (numpy's, cv2.imread's) made under aligned_arrays() start on 64
    # bytes; with rows of 64-byte multiples they are used in place
    with c.aligned_arrays():
        src, second, pts, out = py_arrays(op, w, h, t, cn)
    host_out = c.empty(out[0], out[1], padded=True) if out else None
    t_np = time_reps(lambda: py_op(op, src, second, pts, host_out, w, h, t), lambda: None,
                     reps, warmup)
    # the same with numpy's default allocator: copied in and out
    psrc, psecond = off64(src.copy()), off64(None if second is None else second.copy())
    pout = off64(np.empty(out[0], out[1])) if out else None
    t_np16 = time_reps(lambda: py_op(op, psrc, psecond, pts, pout, w, h, t), lambda: None,
                       reps, warmup)
    del psrc, psecond, pout
    dsrc = c.upload(src, ctx)
    dsecond = c.upload(second, ctx) if second is not None else None
    if op == "pyramid":
        dout = c.Pyramid(ctx, w, h, 1, src.dtype, 4, 0.5)
    elif out:
        shp, dt = out
        dout = c.Image(ctx, shp[1], shp[0], shp[2] if len(shp) == 3 else 1, dt)
    else:
        dout = None
    t_dev = time_reps(lambda: py_op(op, dsrc, dsecond, pts, dout, w, h, t), ctx.finish,
                      reps, warmup)
    return t_np, t_np16, t_dev


# ------------------------------------------------------------------ clv side

def sanitized(build):
    """True when the Meson build directory was configured with a sanitizer."""
    try:
        with open(os.path.join(build, "meson-info", "intro-buildoptions.json")) as f:
            opts = f.read()
    except OSError:
        return False
    m = re.search(r'"name": "b_sanitize", "value": "([^"]*)"', opts)
    return bool(m) and m.group(1) != "none"


def find_clv_bench():
    """<repo>/build's clv-bench, else the newest one under <repo>/*/bench/ that
    is not a sanitizer build (ASan/UBSan timings say nothing about speed)."""
    cands = [p for p in glob.glob(os.path.join(REPO, "*", "bench", "clv-bench"))
             if os.access(p, os.X_OK)]
    fast = [p for p in cands if not sanitized(os.path.dirname(os.path.dirname(p)))]
    if not fast:
        fail("no clv-bench from a build without sanitizers under %s/*/bench/; build it "
             "(meson setup build && meson compile -C build), pass --clv-bench PATH, or use "
             "--no-clv" % REPO)
    default = os.path.join(REPO, "build", "bench", "clv-bench")
    return default if default in fast else max(fast, key=os.path.getmtime)


def run_clv(a, exe, op, w, h, t, cn):
    reps = min(a.reps, REPS_CAP.get(op, a.reps))
    warm = min(a.warmup, 1) if reps < a.reps else a.warmup
    cmd = [exe, "--ops", op, "--sizes", "%dx%d" % (w, h), "--types", t,
           "--channels", str(cn), "--reps", str(reps), "--warmup", str(warm)]
    if a.clv_device:
        cmd += ["--device", a.clv_device]
    env = dict(os.environ)
    if "CLV_KERNEL_PATH" not in env and os.path.isdir(os.path.join(REPO, "cl")):
        env["CLV_KERNEL_PATH"] = os.path.join(REPO, "cl")
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if r.returncode != 0:
        fail("clv-bench failed (rc %d): %s\n%s%s"
             % (r.returncode, " ".join(cmd), r.stdout, r.stderr))
    device, version, result = None, None, None
    for line in r.stdout.splitlines():
        m = re.match(r'# clv-bench clvision (\S+) device="([^"]*)"', line)
        if m:
            version, device = m.group(1), m.group(2)
        elif line.startswith("op="):
            result = dict(kv.split("=", 1) for kv in line.split())
    if result is None or device is None:
        fail("could not parse clv-bench output of %s:\n%s" % (" ".join(cmd), r.stdout))
    want = {"op": op, "size": "%dx%d" % (w, h), "type": t, "cn": str(cn)}
    for k, v in want.items():
        if result.get(k) != v:
            fail("clv-bench answered for %s=%s, asked %s" % (k, result.get(k), v))
    return (float(result["wall_ms_median"]), float(result["dev_ms_median"]), device, version)


# -------------------------------------------------------------------- report

COLUMNS = ["op", "size", "type/cn", "clv wall ms", "clv dev ms", "py np ms", "py np16 ms",
           "py dev ms", "OpenCV CPU ms", "OpenCV OCL ms", "clv/cpu", "clv/ocl", "py np/cpu",
           "py np16/cpu", "py dev/clv"]


def fmt_ms(v):
    return "-" if v is None else ("%.3f" % v if v < 10 else "%.2f" % v)


def fmt_ratio(a, b):
    return "-" if a is None or b is None or b <= 0 else "%.2f" % (a / b)


def table_rows(results):
    rows = []
    for r in results:
        ocl = "cpu-fallback" if r["ocl_fallback"] else fmt_ms(r["ocl"])
        rows.append([r["op"], r["size"], "%s/%d" % (r["type"], r["cn"]),
                     fmt_ms(r["clv_wall"]), fmt_ms(r["clv_dev"]), fmt_ms(r["py_np"]),
                     fmt_ms(r["py_np16"]), fmt_ms(r["py_dev"]), fmt_ms(r["cpu"]), ocl,
                     fmt_ratio(r["clv_wall"], r["cpu"]),
                     "-" if r["ocl_fallback"] else fmt_ratio(r["clv_wall"], r["ocl"]),
                     fmt_ratio(r["py_np"], r["cpu"]), fmt_ratio(r["py_np16"], r["cpu"]),
                     fmt_ratio(r["py_dev"], r["clv_wall"])])
    return rows


def print_table(rows):
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(COLUMNS)]
    left = 3  # op, size, type/cn left-aligned; numbers right-aligned

    def line(cells):
        return "  ".join(c.ljust(widths[i]) if i < left else c.rjust(widths[i])
                         for i, c in enumerate(cells))
    print(line(COLUMNS))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or "unknown"


def write_markdown(path, a, rows, meta):
    out = []
    out.append("# clvision vs OpenCV")
    out.append("")
    out.append("- Date: %s" % meta["date"])
    out.append("- Machine: %s, nproc %d" % (cpu_model(), os.cpu_count() or 0))
    out.append("- clvision %s OpenCL device: %s" % (meta["clv_version"] or "-",
                                                    meta["clv_device"] or "- (not run)"))
    out.append("- OpenCV %s OpenCL device: %s (OPENCV_OPENCL_DEVICE=%s)"
               % (cv2.__version__, meta["ocl_device"], a.ocl_device))
    out.append("- POCL_AFFINITY=%s for both OpenCL users (PoCL's CPU worker threads %s)"
               % (os.environ.get("POCL_AFFINITY", "unset"),
                  "pinned one per core" if os.environ.get("POCL_AFFINITY") == "1"
                  else "left to the OS scheduler"))
    out.append("- OpenCV CPU threads: %d; numpy %s; Python %s"
               % (cv2.getNumThreads(), np.__version__, sys.version.split()[0]))
    out.append("- Warmup %d, reps %d (median), rounds %d (median of round medians)"
               % (a.warmup, a.reps, a.rounds))
    out.append("- Load average (1 min) at start / end: %.2f / %.2f"
               % (meta["load_start"], meta["load_end"]))
    out.append("- OpenCL kernel launches checked: %s" % meta["verified"])
    out.append("")
    out.append("Times in milliseconds. clv wall = op + clv_finish on a context without "
               "profiling (as OpenCV's queue); clv dev = kernel time from profiling events "
               "(a second, profiling context); OpenCV CPU = call on numpy arrays with OpenCL off; "
               "OpenCV OCL = call on cv2.UMat + cv2.ocl.finish(); py np = clvision from Python, "
               "numpy in and out as the README says: inputs made under "
               "clvision.aligned_arrays() (64-byte aligned, as cv2.imread's would be there), "
               "out= reused from clvision.empty(shape, dtype, padded=True), both used in "
               "place on a CPU device; py np16 = the same calls on arrays from numpy's "
               "default allocator (16 bytes past 64: copied in, and out through a device "
               "image); py dev = clvision from Python on device Images (out= reused) + "
               "finish(). Ratios < 1 mean clvision is faster (py dev/clv: the Python "
               "binding's cost over clv-bench).")
    out.append("")
    out.append("| " + " | ".join(COLUMNS) + " |")
    out.append("|" + "|".join("---" if i < 3 else "---:" for i in range(len(COLUMNS))) + "|")
    for r in rows:
        out.append("| " + " | ".join(r) + " |")
    if meta["kernels"]:
        out.append("")
        out.append("OpenCV OpenCL kernels seen per case (PoCL debug log):")
        out.append("")
        for key, names in meta["kernels"]:
            out.append("- %s: %s" % (key, ", ".join(names) if names else "none (CPU fallback)"))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    a = parse_args(sys.argv[1:])
    # Must happen before cv2 is imported: OpenCV reads it once.
    os.environ["OPENCV_OPENCL_DEVICE"] = a.ocl_device
    os.environ.setdefault("OPENCV_OPENCL_RAISE_ERROR", "1")
    # PoCL's CPU driver leaves its worker threads unpinned unless POCL_AFFINITY=1.
    # On the 2-vCPU development VM a process then often ran its kernels at about
    # one core's speed for the whole of its short life (halving resize, u8 x 3,
    # 1920x1080, 12 fresh clv-bench processes each: 9 of 12 at 0.84-1.04 ms and 3
    # at 0.44-0.56 without it; 12 of 12 at 0.39-0.55 with it). Both OpenCL users
    # in the comparison, clv-bench and OpenCV's OpenCL path, run under the same
    # setting; OpenCV's CPU path does not use PoCL. clvision itself sets
    # POCL_AFFINITY=1 when it is unset (src/runtime/pocl_env.c), so with
    # --no-pocl-affinity only OpenCV's OpenCL path runs unpinned.
    if not a.no_pocl_affinity:
        os.environ["POCL_AFFINITY"] = "1"  # clv-bench inherits it
    global cv2, np
    try:
        import cv2 as _cv2
        import numpy as _np
    except ImportError as e:
        fail("cannot import cv2/numpy with %s (%s); run with a Python that has the "
             "OpenCV bindings, e.g. /usr/bin/python3" % (sys.executable, e))
    cv2, np = _cv2, _np

    if a.probe:
        return probe_child(a)

    dev = require_ocl(a.ocl_device)
    ocl_name = dev.name()
    verify = is_pocl(dev)
    cv2.ocl.setUseOpenCL(False)
    print("# POCL_AFFINITY=%s" % os.environ.get("POCL_AFFINITY", "unset"))
    print("# OpenCV %s, OpenCL device for OpenCV: %s [%s, %s]"
          % (cv2.__version__, ocl_name, dev.vendorName(), dev.version()))
    if not verify:
        warn("OpenCV's device is not PoCL: per-case kernel launches cannot be checked; "
             "relying on OPENCV_OPENCL_RAISE_ERROR=1 only")
    exe = None
    if not a.no_clv:
        exe = a.clv_bench or find_clv_bench()
        if not os.access(exe, os.X_OK):
            fail("--clv-bench %r is not an executable file" % exe)
        print("# clv-bench: %s (device spec %s)" % (exe, a.clv_device or "default"))
    if not a.no_python and import_clvision(exe):
        print("# clvision Python package: %s" % clvision.__file__)
    sys.stdout.flush()

    cases = []
    for (w, h) in a.sizes:
        for op in a.ops:
            combos = [FIXED_COMBO[op]] if op in FIXED_COMBO else a.combos
            cases += [(op, w, h, t, cn) for (t, cn) in combos]
    meta = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "clv_device": None, "clv_version": None, "ocl_device": ocl_name,
            "verified": ("no (--no-ocl)" if a.no_ocl else "yes (PoCL debug log)" if verify
                         else "no (not PoCL)"),
            "kernels": [], "load_start": os.getloadavg()[0], "load_end": 0.0}
    if meta["load_start"] > 0.5:
        warn("1-minute load average is %.2f: other work is running, timings will be noisy"
             % meta["load_start"])
    fallback = {}
    if verify and not a.no_ocl:
        for (op, w, h, t, cn) in cases:
            if op in NO_OPENCV:
                continue
            names = probe_kernels(a, op, w, h, t, cn)
            key = "%s %dx%d %s/%d" % (op, w, h, t, cn)
            meta["kernels"].append((key, names))
            fallback[(op, w, h, t, cn)] = not names
            if not names:
                warn("OpenCV launched no OpenCL kernel for %s: its OpenCL path fell back to "
                     "the CPU; the OCL column shows cpu-fallback" % key)

    samples = {c: {"clv_wall": [], "clv_dev": [], "cpu": [], "ocl": [], "py_np": [],
                   "py_np16": [], "py_dev": []} for c in cases}
    for rnd in range(a.rounds):
        for c in cases:
            op, w, h, t, cn = c
            s = samples[c]
            if exe:
                wall, devt, dname, ver = run_clv(a, exe, op, w, h, t, cn)
                s["clv_wall"].append(wall)
                s["clv_dev"].append(devt)
                if meta["clv_device"] is None:
                    meta["clv_device"], meta["clv_version"] = dname, ver
                    print("# clvision %s device: %s" % (ver, dname))
                    if dname != ocl_name:
                        warn("clvision runs on %r but OpenCV's OpenCL on %r"
                             % (dname, ocl_name))
            if clvision is not None:
                reps = min(a.reps, REPS_CAP.get(op, a.reps))
                warm = min(a.warmup, 1) if reps < a.reps else a.warmup
                pnp, pnp16, pdev = time_py(op, w, h, t, cn, reps, max(warm, 1), a.clv_device)
                s["py_np"].append(pnp)
                s["py_np16"].append(pnp16)
                s["py_dev"].append(pdev)
            if op not in NO_OPENCV:
                cv_reps = min(a.reps, REPS_CAP.get(op + "_opencv", REPS_CAP.get(op, a.reps)))
                cv_warm = min(a.warmup, 1) if cv_reps < a.reps else a.warmup
                s["cpu"].append(time_cv_cpu(op, w, h, t, cn, cv_reps, cv_warm))
                if not fallback.get(c) and not a.no_ocl:
                    s["ocl"].append(time_cv_ocl(op, w, h, t, cn, cv_reps, cv_warm, a.ocl_device))
            last = lambda k: ("%.4f" % s[k][-1]) if s[k] else "-"
            # one line per case as soon as it is measured, so a run cut short
            # still leaves its numbers behind
            sys.stderr.write("round %d/%d %-9s %dx%d %s/%d: clv wall %s dev %s, py np %s np16 %s "
                             "dev %s, cv cpu %s, ocl %s\n"
                             % (rnd + 1, a.rounds, op, w, h, t, cn, last("clv_wall"),
                                last("clv_dev"), last("py_np"), last("py_np16"), last("py_dev"),
                                last("cpu"), last("ocl")))
            sys.stderr.flush()

    def med(v):
        return statistics.median(v) if v else None

    results = []
    for c in cases:
        op, w, h, t, cn = c
        s = samples[c]
        results.append({"op": op, "size": "%dx%d" % (w, h), "type": t, "cn": cn,
                        "clv_wall": med(s["clv_wall"]), "clv_dev": med(s["clv_dev"]),
                        "cpu": med(s["cpu"]), "ocl": med(s["ocl"]),
                        "py_np": med(s["py_np"]), "py_np16": med(s["py_np16"]),
                        "py_dev": med(s["py_dev"]),
                        "ocl_fallback": bool(fallback.get(c))})
    meta["load_end"] = os.getloadavg()[0]
    rows = table_rows(results)
    print_table(rows)
    print("# load average (1 min) start/end: %.2f / %.2f" % (meta["load_start"], meta["load_end"]))
    if a.markdown:
        write_markdown(a.markdown, a, rows, meta)
        print("# wrote %s" % a.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
