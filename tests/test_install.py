#!/usr/bin/env python3
"""An installed clvision works from wherever its tree ends up.

Installs the build with 'meson install --destdir' into a temporary directory,
then moves the installed tree somewhere else, so that neither the configured
prefix nor the staging directory holds it, and with CLV_KERNEL_PATH,
CLV_DATA_DIR and LD_LIBRARY_PATH unset, from a directory outside the source
tree, checks:
  - bin/clv starts (it finds libclvision.so.0 through its RPATH) and loads the
    moved library, not some other copy;
  - bin/clv demo finds its images (<datadir>/clvision/demo) and writes results;
  - the kernels come from the moved <datadir>/clvision/cl: with one file of it
    missing, an operation fails naming that file (the library still knows the
    source tree it was built from, so success alone would prove nothing);
  - a program links against the moved libclvision.a with only
    'pkg-config --static --cflags --libs clvision' (PKG_CONFIG_PATH at the moved
    .pc, which finds its prefix from its own place) and runs.

Environment (set by tests/meson.build): CLV_MESON (the meson command),
CLV_BUILD_ROOT, CLV_PREFIX, CLV_BINDIR, CLV_LIBDIR, CLV_DATADIR (the configured
directories), CLV_TEST_CC (the C compiler command, with the build's sanitizer
flags), CLV_HAVE_OPENEXR (1 when the library uses OpenEXR), CLV_CACHE_DIR.
Prints "install: N passed, M failed"; exit 1 on any failure. Without an OpenCL
device (and CLV_REQUIRE_DEVICE not 1) the checks that need one are left out.
"""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile

from pycheck import check, summary

TIMEOUT = 120



def run(cmd, env, cwd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=TIMEOUT)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return -999, "", "timed out after %d s" % TIMEOUT


def describe(cmd, rc, out, err):
    return "$ %s\nexit %d\nstdout: %s\nstderr: %s" % (" ".join(map(shlex.quote, cmd)), rc,
                                                      out[-2000:], err[-2000:])


def clean_env(extra=None):
    env = dict(os.environ)
    for k in ("CLV_KERNEL_PATH", "CLV_DATA_DIR", "LD_LIBRARY_PATH", "PKG_CONFIG_PATH",
              "PKG_CONFIG_LIBDIR", "DESTDIR"):
        env.pop(k, None)
    if extra:
        env.update(extra)
    return env


PROGRAM = r"""
#include <stdio.h>
#include <clvision/clvision.h>

/* argv[1]: kernel directory, argv[2]: a PNG file. */
int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    clv_host_image img = {0};
    clv_status s = clv_image_read(argv[2], &img);
    if (s != CLV_OK) {
        fprintf(stderr, "read %s: %s: %s\n", argv[2], clv_status_string(s), clv_io_last_error());
        return 1;
    }
    clv_context_options o = clv_context_options_default();
    o.kernel_path = argv[1];
    clv_context *ctx = NULL;
    s = clv_context_create(&o, &ctx);
    if (s != CLV_OK) {
        fprintf(stderr, "context: %s: %s\n", clv_status_string(s), clv_context_create_error());
        clv_host_image_free(&img);
        return 1;
    }
    printf("clvision %s %dx%d on %s\n", clv_version(), img.width, img.height,
           clv_context_device_name(ctx));
    clv_context_release(ctx);
    clv_host_image_free(&img);
    return 0;
}
"""


def main():
    meson = shlex.split(os.environ["CLV_MESON"])
    build = os.environ["CLV_BUILD_ROOT"]
    prefix = os.environ["CLV_PREFIX"]
    bindir, libdir, datadir = (os.environ[k] for k in ("CLV_BINDIR", "CLV_LIBDIR", "CLV_DATADIR"))
    cc = shlex.split(os.environ["CLV_TEST_CC"])
    for d in (bindir, libdir, datadir):
        if os.path.isabs(d):
            print("SKIP: %s is outside the prefix; a moved tree cannot carry it" % d)
            return 77

    tmp = tempfile.mkdtemp(prefix="clv-install-")
    try:
        stage = os.path.join(tmp, "stage")
        cmd = meson + ["install", "-C", build, "--no-rebuild", "--quiet", "--destdir", stage]
        rc, out, err = run(cmd, clean_env(), tmp)
        if not check(rc == 0, "meson install --destdir", describe(cmd, rc, out, err)):
            return 1
        # Move the tree: the prefix it was configured for and the staging
        # directory both stop holding it.
        root = os.path.join(tmp, "moved", "clv")
        os.makedirs(os.path.dirname(root))
        shutil.move(stage + prefix, root)
        shutil.rmtree(stage)
        clv = os.path.join(root, bindir, "clv")
        kdir = os.path.join(root, datadir, "clvision", "cl")
        demo_data = os.path.join(root, datadir, "clvision", "demo")
        work = os.path.join(tmp, "work")  # cwd: no tests/data below it
        os.makedirs(work)
        env = clean_env()

        cmd = [clv, "--version"]
        rc, out, err = run(cmd, env, work)
        check(rc == 0 and out.startswith("clv "), "moved bin/clv --version runs",
              describe(cmd, rc, out, err))
        rc, out, err = run(["ldd", clv], env, work)
        lib_line = [l for l in out.splitlines() if "libclvision" in l]
        check(rc == 0 and len(lib_line) == 1 and
              os.path.realpath(os.path.join(root, libdir)) in
              os.path.realpath(lib_line[0].split("=>")[-1].split("(")[0].strip()),
              "moved bin/clv loads the moved libclvision.so.0", out + err)

        # Only clv's own "no device" report skips the device checks (a clv
        # that does not start at all fails them).
        rc, out, err = run([clv, "devices"], env, work)
        have_device = not (rc == 1 and err.startswith("clv: devices: "))
        if not have_device and os.environ.get("CLV_REQUIRE_DEVICE") != "1":
            print("install: no OpenCL device (%s); device checks skipped" % err.strip())
        if have_device or os.environ.get("CLV_REQUIRE_DEVICE") == "1":
            out_dir = os.path.join(work, "demo-out")
            cmd = [clv, "demo", out_dir]
            rc, out, err = run(cmd, env, work)
            if check(rc == 0, "moved bin/clv demo runs", describe(cmd, rc, out, err)):
                wrote = ["camera_gaussian2.png", "chelsea_grid.png", "chelsea_hdr_tonemap.png",
                         "lk_flow.flo", "flow_camera.flo"]
                # The EXR photo's tone mapping needs OpenEXR; without it the
                # demo says so and goes on.
                if os.environ.get("CLV_HAVE_OPENEXR") == "1":
                    wrote.append("studio_256_tonemap.png")
                else:
                    check("studio_256.exr: built without OpenEXR" in out + err,
                          "demo without OpenEXR says it skipped the EXR photo", out + err)
                    check(not os.path.exists(os.path.join(out_dir, "studio_256_tonemap.png")),
                          "demo without OpenEXR writes no tone-mapped EXR photo")
                for f in wrote:
                    p = os.path.join(out_dir, f)
                    check(os.path.isfile(p) and os.path.getsize(p) > 0, "demo wrote %s" % f)

            # The kernels the moved library reads are the moved tree's.
            src = os.path.join(demo_data, "camera.png")
            dst = os.path.join(work, "blur.png")
            hidden = os.path.join(kdir, "gaussian.cl")
            os.rename(hidden, hidden + ".away")
            cmd = [clv, "gaussian", "--sigma", "2", src, dst]
            rc, out, err = run(cmd, env, work)
            check(rc == 1 and hidden in err and not os.path.exists(dst),
                  "with the moved gaussian.cl gone, clv fails naming it", describe(cmd, rc, out, err))
            os.rename(hidden + ".away", hidden)
            rc, out, err = run(cmd, env, work)
            check(rc == 0 and os.path.isfile(dst), "with it back, clv gaussian works",
                  describe(cmd, rc, out, err))

        # Static linking with what pkg-config says, against the moved tree.
        pc_dir = os.path.join(root, libdir, "pkgconfig")
        pkg = ["pkg-config", "--static"]
        with open(os.path.join(pc_dir, "clvision.pc")) as f:
            relocatable_pc = "${pcfiledir}" in f.read()
        if not relocatable_pc:
            # A build directory configured before pkgconfig.relocatable
            # became a default: the .pc names the configured prefix.
            print("install: clvision.pc is not relocatable (meson configure "
                  "-Dpkgconfig.relocatable=true); using --define-variable=prefix")
            pkg.append("--define-variable=prefix=" + root)
        penv = clean_env({"PKG_CONFIG_PATH": pc_dir})
        rc, cflags, err = run(pkg + ["--cflags", "clvision"], penv, work)
        check(rc == 0, "pkg-config --cflags clvision", err)
        rc, libs, err = run(pkg + ["--libs", "clvision"], penv, work)
        check(rc == 0, "pkg-config --static --libs clvision", err)
        tokens = shlex.split(libs)
        need = ["-lclvision", "-lOpenCL", "-lpng16", "-ljpeg", "-lm"]
        if os.environ.get("CLV_HAVE_OPENEXR") == "1":
            need.append("-lOpenEXRCore-3_1")
        for t in need:
            check(t in tokens, "pkg-config --static --libs lists %s" % t, libs)
        check("-pthread" in tokens or "-lpthread" in tokens, "pkg-config --static --libs lists threads",
              libs)
        lflags = [os.path.realpath(t[2:]) for t in tokens if t.startswith("-L")]
        check(os.path.realpath(os.path.join(root, libdir)) in lflags,
              "pkg-config -L is the moved libdir", libs)
        prog_c = os.path.join(work, "prog.c")
        with open(prog_c, "w") as f:
            f.write(PROGRAM)
        prog = os.path.join(work, "prog")
        # The archive, not the shared library next to it: -l:libclvision.a.
        cmd = cc + ["-o", prog, prog_c] + shlex.split(cflags) + \
            ["-l:libclvision.a" if t == "-lclvision" else t for t in tokens]
        rc, out, err = run(cmd, env, work)
        if check(rc == 0, "a program links statically against the moved libclvision.a",
                 describe(cmd, rc, out, err)):
            rc, out, err = run(["readelf", "-d", prog], env, work)
            check(rc == 0 and "libclvision" not in out, "the static program needs no libclvision.so",
                  out)
            if have_device or os.environ.get("CLV_REQUIRE_DEVICE") == "1":
                cmd = [prog, kdir, os.path.join(demo_data, "camera.png")]
                rc, out, err = run(cmd, env, work)
                check(rc == 0 and out.startswith("clvision "), "the static program runs",
                      describe(cmd, rc, out, err))
    finally:
        if os.environ.get("CLV_KEEP_TMP"):
            print("install: files kept in %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return None


if __name__ == "__main__":
    rc = main()
    status = summary("install")
    sys.exit(rc if rc is not None else status)
