#!/usr/bin/env python3
"""Portability test (issue 13): build every kernel variant the host code
produces with the real GPU toolchains Debian ships, and fail on any error.

1. The variant list comes from the host code: `enumerate` (enumerate.c) runs
   every operation across its types, channels, border modes and the parameter
   classes that select kernels, in both tune modes (CLV_TUNE=generic: what
   GPUs get; CLV_TUNE=cpu: the CPU family, which CLV_TUNE=cpu selects on any
   device), with CLV_RECORD_BUILDS set, so src/runtime/program.c writes one
   line "<family>.cl<TAB><op options>" per distinct program.
2. Each (family, options) is rebuilt from the exact text program_text() in
   program.c builds (common.cl, then the family file, with #line markers)
   and the options final_options() adds for a GPU
   ("-cl-std=CL1.2 -w <op options> -DCLV_GPU=1"), for:
     amd-gfx1030, amd-gfx906  clang-15 -target amdgcn-amd-amdhsa with the ROCm
                              device libraries, FULL link to an HSA code
                              object by ld.lld with --no-undefined (the ROCm
                              runtime links the same way: an undefined hidden
                              symbol is a build failure there);
     intel-skl, intel-tgllp,  ocloc compile (IGC, intel-opencl-icd), and the
     intel-dg2                SPIR-V it emits must import nothing but
                              __spirv_* built-ins (an unresolved function
                              fails at the runtime's link);
     nvptx                    clang-15 -target nvptx64-unknown-nvidiacl with
                              libclc's nvptx64--nvidiacl.bc linked, to PTX
                              with no .extern .func left (the driver's JIT
                              link would fail on it).
   Passes ("default"; "debug" = -DCLV_DEBUG=1, what CLV_DEBUG=1 adds; "O0" =
   -cl-opt-disable, which makes the compiler inline nothing):
     generic variants: amd-gfx1030 default, debug and O0; nvptx default and
       debug; amd-gfx906, intel-skl, intel-dg2 default (intel-tgllp only
       with --targets intel-tgllp given explicitly: not in CI, for time);
     cpu variants: amd-gfx1030 default, debug and O0; nvptx default;
     gpu variants (CLV_TUNE=gpu: the generic ones plus those only GPU
       devices get: radii compiled into gauss_fused and bil_fixed, box
       windows into box_reg; only the new ones are
       built): amd-gfx1030 default and O0, intel-skl, nvptx default.
   AMD gets all three passes because that is where non-inlined helpers
   failed to link; NVPTX (cheap) is the second debug pass. The budget (about
   10 minutes of CI on 2 cores) decides the rest: a build costs 0.15 (NVPTX),
   0.25 (AMD) and 0.4 (ocloc) CPU seconds, times 547 variants (277 generic,
   270 cpu). Measured with tgllp included: 3573 builds, 1093 CPU seconds,
   784 s wall on the loaded 2-core machine; without tgllp about 980 CPU s. The cpu
   variants (a GPU gets them only under CLV_TUNE=cpu) get the link checks and
   NVPTX only. NVPTX gets no O0 pass at all: clang-15's NVPTX back end aborts
   ("Cannot cast between two non-generic address spaces") on any non-inlined
   function with a __local pointer parameter at -O0 -- a two-line kernel
   reproduces it; it says nothing about our kernels, and NVIDIA's driver
   compiler is not upstream LLVM. NVPTX links nvptx_native.cl before libclc
   (libclc 15's native_exp2 does not lower on NVPTX; see that file).
3. A self-check first proves each target's check can fail: a helper that is
   `inline` without `static` must fail the AMD O0 link, and a call to a
   declared but undefined function must fail AMD, Intel and NVPTX.

Every build runs from source each time (nothing is cached), in parallel
(--jobs, default os.cpu_count()). Output: variants per family, builds per
target and pass, wall time, and one line per failure: family, options,
target, pass, first error line, and the command that reproduces it (its
source file is kept under --keep, default build/tests/xbuild-failed/).
A tool that exits non-zero without printing anything crashed: that build
runs again (see CRASH_TRIES) and the summary counts the crashes. A missing toolchain or OpenCL device is a skip (77), a failure under
CLV_REQUIRE_DEVICE=1 (CI). Measured on the 2-core development machine:
see the summary line it prints ("... in N s")."""
import argparse
import collections
import concurrent.futures
import glob
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP = 77

# (target, passes) for the variants of each tune mode; see the docstring.
MATRIX = {
    "generic": [("amd-gfx1030", ("default", "debug", "O0")), ("amd-gfx906", ("default",)),
                ("intel-skl", ("default",)), ("intel-dg2", ("default",)),
                ("nvptx", ("default", "debug"))],
    "cpu": [("amd-gfx1030", ("default", "debug", "O0")), ("nvptx", ("default",))],
    # what GPU devices get beyond generic (gauss_fused and bil_fixed with their
    # radii compiled in, box_reg with its window)
    "gpu": [("amd-gfx1030", ("default", "O0")), ("intel-skl", ("default",)),
            ("nvptx", ("default",))],
}
GPU_GROUPS = ("filters", "pyramids")  # enumerate's groups where CLV_TUNE=gpu differs from generic
TARGETS = ["amd-gfx1030", "amd-gfx906", "intel-skl", "intel-tgllp", "intel-dg2", "nvptx"]
EXTRA = {"intel-tgllp": ("default",)}  # built only when --targets names it
PASS_OPTIONS = {"default": [], "debug": ["-DCLV_DEBUG=1"], "O0": ["-cl-opt-disable"]}


def required():
    return os.environ.get("CLV_REQUIRE_DEVICE") == "1"


def first(paths):
    for p in paths:
        if p and os.path.exists(p):
            return p
    return None


class Tools:
    """Locate the toolchains; self.missing lists what is not there."""

    def __init__(self):
        self.missing = []
        self.clang = shutil.which("clang-15")
        if not self.clang:
            self.missing.append("clang-15 (package clang-15)")
        # clang runs ld.lld for amdgcn: its own directory first, then PATH
        self.lld = first([shutil.which("ld.lld-15"), "/usr/lib/llvm-15/bin/ld.lld",
                          shutil.which("ld.lld")])
        if not self.lld:
            self.missing.append("ld.lld (package lld-15 or lld)")
        self.rocm = None
        for d in sorted(glob.glob("/usr/lib/*/amdgcn/bitcode")) + \
                ["/usr/share/amdgcn/bitcode", "/opt/rocm/amdgcn/bitcode"]:
            if all(os.path.exists(os.path.join(d, f)) for f in
                   ("opencl.bc", "ocml.bc", "ockl.bc", "oclc_isa_version_1030.bc",
                    "oclc_isa_version_906.bc")):
                self.rocm = d
                break
        if not self.rocm:
            self.missing.append("ROCm device libraries for gfx1030 and gfx906 "
                                "(package rocm-device-libs)")
        # ocloc: on PATH (intel-opencl-icd installed), else the copy .ci/setup
        # unpacks into build-tools/intel without installing the package, so
        # that Intel's OpenCL ICD is not registered: its loader uses
        # RTLD_DEEPBIND, which the sanitizer build's ASan runtime refuses.
        self.ocloc = shutil.which("ocloc")
        unpacked = os.path.join(ROOT, "build-tools", "intel")
        if not self.ocloc and os.path.exists(os.path.join(unpacked, "usr/bin/ocloc")):
            self.ocloc = os.path.join(unpacked, "usr/bin/ocloc")
            libdir = os.path.join(unpacked, "usr/lib/x86_64-linux-gnu")
            os.environ["LD_LIBRARY_PATH"] = libdir + (
                ":" + os.environ["LD_LIBRARY_PATH"] if os.environ.get("LD_LIBRARY_PATH") else "")
        if not self.ocloc:
            self.missing.append("ocloc (intel-opencl-icd: bash .ci/setup unpacks it into "
                                "build-tools/intel)")
        self.libclc = first(["/usr/lib/clc/nvptx64--nvidiacl.bc",
                             "/usr/share/clc/nvptx64--nvidiacl.bc",
                             "/usr/lib/llvm-15/lib/clc/nvptx64--nvidiacl.bc"])
        if not self.libclc:
            self.missing.append("libclc nvptx64--nvidiacl.bc (package libclc-15)")
        self.shim = None  # nvptx_native.cl as bitcode, made by make_shim()

    def make_shim(self, work):
        """Compile nvptx_native.cl (see there); returns an error or None."""
        self.shim = os.path.join(work, "nvptx_native.bc")
        r = subprocess.run([self.clang, "-x", "cl", "-cl-std=CL1.2", "-target",
                            "nvptx64-unknown-nvidiacl", "-march=sm_50", "-O2", "-emit-llvm",
                            "-c", os.path.join(HERE, "nvptx_native.cl"), "-o", self.shim],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, errors="replace")
        return None if r.returncode == 0 else "nvptx_native.cl: " + first_error(r.stdout)


def program_text(srcdir, family):
    """What program_text() in src/runtime/program.c builds."""
    def read(name):
        with open(os.path.join(srcdir, name), encoding="utf-8") as f:
            return f.read()
    return '#line 1 "common.cl"\n%s\n#line 1 "%s"\n%s\n' % (read("common.cl"), family,
                                                             read(family))


def command(tools, target, src, out, options):
    """Command line building src for target; returns (argv, kind)."""
    if target.startswith("amd-"):
        return ([tools.clang, "-x", "cl", "-target", "amdgcn-amd-amdhsa",
                 "-mcpu=" + target[4:], "--rocm-device-lib-path=" + tools.rocm,
                 "--ld-path=" + tools.lld, "-Wl,--no-undefined", "-fno-crash-diagnostics"]
                + options + [src, "-o", out + ".co"], "amd")
    if target.startswith("intel-"):
        return ([tools.ocloc, "compile", "-file", src, "-device", target[6:],
                 "-options", " ".join(options), "-out_dir", out + ".d", "-output", "p"],
                "intel")
    return ([tools.clang, "-x", "cl", "-target", "nvptx64-unknown-nvidiacl", "-march=sm_50",
             "-S", "-Xclang", "-mlink-builtin-bitcode", "-Xclang", tools.shim,
             "-Xclang", "-mlink-builtin-bitcode", "-Xclang", tools.libclc,
             "-fno-crash-diagnostics"] + options + [src, "-o", out + ".ptx"], "nvptx")


def spirv_imports(path):
    """Functions and variables a SPIR-V module imports (LinkageAttributes
    Import), less the __spirv_ built-ins every module imports."""
    with open(path, "rb") as f:
        data = f.read()
    n = len(data) // 4
    words = struct.unpack("<%dI" % n, data[:4 * n])
    if n < 5 or words[0] != 0x07230203:
        return ["(not a SPIR-V module: %s)" % path]
    out = []
    i = 5
    while i < n:
        wc, op = words[i] >> 16, words[i] & 0xFFFF
        if wc == 0:
            break
        if op == 71 and wc >= 5 and words[i + 2] == 41:  # OpDecorate LinkageAttributes
            raw = b"".join(struct.pack("<I", w) for w in words[i + 3:i + wc])
            name = raw.split(b"\0")[0].decode("utf-8", "replace")
            kind = words[i + 3 + (len(name.encode()) + 4) // 4]
            if kind == 1 and not name.startswith("__spirv_"):
                out.append(name)
        i += wc
    return out


def first_error(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for pat in (r"\berror\b", r"(?i)error", r"(?i)fatal|undefined|unresolved"):
        for l in lines:
            if re.search(pat, l):
                return l
    return lines[0] if lines else "(no output)"


# A tool that exits non-zero without printing a word has crashed, not
# rejected a kernel: a compiler that refuses a program says why. CI saw ocloc
# do that on 135 of 4400 builds (2026-12-04) and on every f32 filter variant
# for Intel (2026-12-05): `meson test` sets MALLOC_PERTURB_ to a random byte
# for each test, and for some bytes (3 is one) ocloc aborts on those programs
# (glibc's perturbed heap exposes a read of memory it never initialised).
# The variable is for clvision's own code (enumerate keeps it), so the
# compilers run without it (TOOL_ENV). A crash is still retried a second
# later, up to CRASH_TRIES times in all; each is counted and printed in the
# summary, and a build that crashes every time fails with its exit status.
CRASH_TRIES = 3


def tool_env():
    """The environment for the third-party compilers: ours without
    MALLOC_PERTURB_ (see above)."""
    return {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}

crashes = collections.Counter()
crash_lock = threading.Lock()


def exit_status(rc):
    if rc < 0:
        try:
            return "killed by %s" % signal.Signals(-rc).name
        except ValueError:
            return "killed by signal %d" % -rc
    return "exit status %d" % rc


def build(tools, target, src, options, work):
    """One build; returns None or (first error line, argv)."""
    fd, out = tempfile.mkstemp(dir=work)
    os.close(fd)
    argv, kind = command(tools, target, src, out, options)
    try:
        for attempt in range(CRASH_TRIES):
            r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True, errors="replace", timeout=300,
                               env=tool_env())
            if r.returncode == 0 or r.stdout.strip():
                break
            with crash_lock:
                crashes[(target, exit_status(r.returncode))] += 1
            shutil.rmtree(out + ".d", ignore_errors=True)
            if attempt + 1 < CRASH_TRIES:
                time.sleep(1)
        text = r.stdout
        if r.returncode != 0:
            if not text.strip():
                return "%s without output, %d times" % (exit_status(r.returncode),
                                                        CRASH_TRIES), argv
            return first_error(text), argv
        if kind == "amd" and not os.path.getsize(out + ".co"):
            return "empty code object", argv
        if kind == "intel":
            spv = glob.glob(os.path.join(out + ".d", "*.spv"))
            bins = glob.glob(os.path.join(out + ".d", "*.bin"))
            if len(spv) != 1 or len(bins) != 1:
                return "ocloc wrote %d .spv and %d .bin files" % (len(spv), len(bins)), argv
            imp = spirv_imports(spv[0])
            if imp:
                return "unresolved import%s in the SPIR-V: %s" % (
                    "s" if len(imp) > 1 else "", ", ".join(imp)), argv
        if kind == "nvptx":
            with open(out + ".ptx", encoding="utf-8", errors="replace") as f:
                ext = re.findall(r"^\s*\.extern\s+\.func\b[^\n]*?(\w+)\s*$", f.read(), re.M)
            if ext:
                return "undefined function%s in the PTX: %s" % (
                    "s" if len(ext) > 1 else "", ", ".join(ext)), argv
        return None
    except subprocess.TimeoutExpired:
        return "timed out after 300 s", argv
    finally:
        for p in (out, out + ".co", out + ".ptx"):
            if os.path.exists(p):
                os.unlink(p)
        shutil.rmtree(out + ".d", ignore_errors=True)


def self_check(tools, work, jobs):
    """Each check must be able to fail; returns a list of problems."""
    probes = {
        "inline": "inline float clv_probe_helper(float x) { return x * 2.0f; }\n"
                  "__kernel void probe(__global float *a) { a[0] = clv_probe_helper(a[1]); }\n",
        "undefined": "float clv_probe_helper(float x);\n"
                     "__kernel void probe(__global float *a) { a[0] = clv_probe_helper(a[1]); }\n",
    }
    paths = {}
    for name, text in probes.items():
        paths[name] = os.path.join(work, "probe-%s.cl" % name)
        with open(paths[name], "w", encoding="utf-8") as f:
            f.write(text)
    must_fail = [("inline", "amd-gfx1030", "O0"), ("inline", "amd-gfx906", "O0"),
                 ("undefined", "amd-gfx1030", "default"), ("undefined", "intel-skl", "default"),
                 ("undefined", "intel-dg2", "default"), ("undefined", "nvptx", "default")]
    problems = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        futs = {ex.submit(build, tools, t, paths[p],
                          ["-cl-std=CL1.2", "-w"] + PASS_OPTIONS[m], work): (p, t, m)
                for p, t, m in must_fail}
        for fu, (p, t, m) in futs.items():
            if fu.result() is None:
                problems.append("self-check: the %s probe built for %s (%s) but must fail"
                                % (p, t, m))
    return problems


def list_path(prefix, tune):
    return "%s-%s.txt" % (prefix, tune)


def run_enumerate(exe, prefix, jobs):
    """One enumerate process per tune mode and group, in parallel; those of
    one tune mode append to one list. Returns 0, 77 (no device) or 1."""
    r = subprocess.run([exe, "--groups"], stdout=subprocess.PIPE, universal_newlines=True)
    groups = r.stdout.split()
    if r.returncode != 0 or not groups:
        print("cl-xbuild: %s --groups failed" % exe)
        return 1
    for tune in MATRIX:
        open(list_path(prefix, tune), "w").close()
    # gpu adds nothing to generic outside the filters (GPU_GROUPS): the other
    # groups are not run again
    runs = [(tune, g) for tune in MATRIX for g in groups
            if tune != "gpu" or g.startswith(GPU_GROUPS)]

    def one(tg):
        return subprocess.run([exe, list_path(prefix, tg[0]), tg[0], tg[1]],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True, errors="replace")
    rcs = []
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for res in ex.map(one, runs):
            sys.stdout.write(res.stdout)
            rcs.append(res.returncode)
    if all(rc == SKIP for rc in rcs):
        return SKIP
    return 0 if all(rc == 0 for rc in rcs) else 1


def read_lists(prefix):
    """{tune: [(family, options)]}, each variant once: a variant both tune
    modes produce counts as generic."""
    seen, out = set(), {}
    for tune in MATRIX:
        out[tune] = []
        with open(list_path(prefix, tune), encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line:
                    continue
                family, _, options = line.partition("\t")
                if (family, options) not in seen:
                    seen.add((family, options))
                    out[tune].append((family, options))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--enumerate", help="the enumerate program (omit to reuse --list)")
    ap.add_argument("--list", required=True,
                    help="list prefix: enumerate writes PREFIX-generic.txt and PREFIX-cpu.txt")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--targets", help="comma-separated subset of targets")
    ap.add_argument("--kernels", help="kernel directory (default CLV_KERNEL_PATH or cl/)")
    ap.add_argument("--keep", help="directory for the sources of failed builds")
    a = ap.parse_args()
    t0 = time.time()

    tools = Tools()
    if tools.missing:
        print("cl-xbuild: missing toolchain: %s" % "; ".join(tools.missing))
        if required():
            print("cl-xbuild: CLV_REQUIRE_DEVICE=1: the toolchains are required "
                  "(.ci/setup installs them)")
            return 1
        print("SKIP: toolchain missing")
        return SKIP

    srcdir = a.kernels or os.environ.get("CLV_KERNEL_PATH") or os.path.join(ROOT, "cl")
    if a.enumerate:
        rc = run_enumerate(a.enumerate, a.list, a.jobs)
        if rc == SKIP and not required():
            print("SKIP: no OpenCL device to enumerate the variants on")
            return SKIP
        if rc != 0:
            print("cl-xbuild: enumerate failed (exit %d)" % rc)
            return 1
    lists = read_lists(a.list)
    variants = [v for tune in MATRIX for v in lists[tune]]
    empty = [t for t in MATRIX if not lists[t]]
    if empty:
        # gpu too: an empty list would mean the GPU-only variants vanished
        print("cl-xbuild: no (new) variants in %s" % list_path(a.list, empty[0]))
        return 1
    t_enum = time.time() - t0

    want = a.targets.split(",") if a.targets else TARGETS
    if any(t not in TARGETS for t in want):
        print("cl-xbuild: unknown target in %s (known: %s)" % (a.targets, ", ".join(TARGETS)))
        return 1
    keep = a.keep or os.path.join(os.path.dirname(os.path.abspath(a.list)), "xbuild-failed")

    work = tempfile.mkdtemp(prefix="clv-xbuild-")
    try:
        err = tools.make_shim(work)
        if err:
            print("cl-xbuild: " + err)
            return 1
        problems = self_check(tools, work, a.jobs)
        sources = {}
        for family, _ in variants:
            if family not in sources:
                sources[family] = os.path.join(work, family)
                with open(sources[family], "w", encoding="utf-8") as f:
                    f.write(program_text(srcdir, family))
        jobs = []
        for tune in MATRIX:
            for family, options in lists[tune]:
                extra = [(t, p) for t, p in EXTRA.items() if a.targets and t in want
                         and tune == "generic"]
                for target, passes in MATRIX[tune] + extra:
                    if target not in want:
                        continue
                    for p in passes:
                        opts = ["-cl-std=CL1.2", "-w"] + options.split() + ["-DCLV_GPU=1"] + \
                            PASS_OPTIONS[p]
                        jobs.append((tune, family, options, target, p, opts))
        counts, fails = {}, []
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            futs = [(ex.submit(build, tools, j[3], sources[j[1]], j[5], work), j) for j in jobs]
            for fu, (tune, family, options, target, p, _) in futs:
                res = fu.result()
                c = counts.setdefault((tune, target, p), [0, 0])
                c[0] += 1
                if res is not None:
                    c[1] += 1
                    fails.append((family, options, target, p, res[0], res[1]))
        if fails:
            os.makedirs(keep, exist_ok=True)
            for family in {f[0] for f in fails}:
                shutil.copy(sources[family], os.path.join(keep, family))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    for tune in MATRIX:
        fam = {}
        for family, _ in lists[tune]:
            fam[family] = fam.get(family, 0) + 1
        print("cl-xbuild: %d %s variants: %s" % (len(lists[tune]), tune, ", ".join(
            "%s %d" % (k, v) for k, v in sorted(fam.items()))))
    for (tune, target, p), (n, nf) in sorted(counts.items()):
        print("  %-8s %-12s %-8s %4d built, %d failed" % (tune, target, p, n - nf, nf))
    for family, options, target, p, err, argv in fails:
        argv = [os.path.join(keep, family) if x == sources[family] else x for x in argv]
        print("FAIL %s [%s] %s %s: %s\n     %s" % (family, options, target, p, err,
                                               " ".join(argv)))
    for pr in problems:
        print("FAIL " + pr)
    for (target, status), n in sorted(crashes.items()):
        print("  %s: %d run%s crashed (%s, no output); a build runs up to %d times"
              % (target, n, "s" if n > 1 else "", status, CRASH_TRIES))
    total = sum(n for n, _ in counts.values())
    print("cl-xbuild: %d builds, %d failed, self-check %s; enumerate %.0f s, total %.0f s "
          "(%d jobs)" % (total, len(fails), "failed" if problems else "ok", t_enum,
                         time.time() - t0, a.jobs))
    return 1 if fails or problems else 0


if __name__ == "__main__":
    sys.exit(main())
