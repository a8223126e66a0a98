#!/usr/bin/env python3
"""'clv devices --verbose' reports what the OpenCL driver says.

clv_device_info_get() (shown by 'clv devices --verbose') is checked against
an independent reader of the same queries, 'clinfo --raw': for every device,
the type, name, vendor, driver and OpenCL C version, compute units,
work-group and work-item limits, local and global memory, largest
allocation, image support, fp16/fp64 and each extension clvision lists
(present or "(missing)") must be what clinfo prints. Run with
POCL_DEVICES="pthread pthread" (two devices) and once more with
POCL_MAX_WORK_GROUP_SIZE lowered, so a number that is not read from the
device cannot pass.

Environment: CLV_CLI, CLV_KERNEL_PATH, CLV_CACHE_DIR. Needs clinfo (.ci/setup
installs it); without it the test fails.
"""

import os
import re
import shutil
import subprocess
import sys

from pycheck import check, summary

CLI = os.environ["CLV_CLI"]
EXTS = ["cl_khr_byte_addressable_store", "cl_khr_global_int32_base_atomics",
        "cl_khr_global_int32_extended_atomics", "cl_khr_local_int32_base_atomics",
        "cl_khr_local_int32_extended_atomics"]


def run(cmd, env):
    full = {k: v for k, v in os.environ.items() if k not in ("CLV_DEVICE",)}
    full.update(env)
    p = subprocess.run(cmd, capture_output=True, text=True, env=full, timeout=120)
    return p, "$ %s\nexit %d\nstdout: %s\nstderr: %s" % (" ".join(cmd), p.returncode,
                                                        p.stdout, p.stderr)


def clinfo_devices(text):
    """{(P, D): {KEY: value}} from 'clinfo --raw' (platforms in order of their
    [SUFFIX/*] prefix's first appearance)."""
    plats, devs = [], {}
    for line in text.splitlines():
        m = re.match(r"\[([^/\]]+)/(\d+)\]\s+(CL_\w+)\s+(.*)$", line)
        if not m:
            continue
        suffix, d, key, val = m.group(1), int(m.group(2)), m.group(3), m.group(4).strip()
        if suffix not in plats:
            plats.append(suffix)
        devs.setdefault((plats.index(suffix), d), {}).setdefault(key, val)
    return devs


def clv_devices(text):
    """{(P, D): {field: value}} from 'clv devices --verbose'."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"(\d+):(\d+) ", line)
        if m:
            cur = out.setdefault((int(m.group(1)), int(m.group(2))), {})
            continue
        m = re.match(r"    ([a-zA-Z0-9 -]+):\s*(.*)$", line)
        if m and cur is not None:
            cur[m.group(1)] = m.group(2).strip()
    return out


def compare(env, label):
    p, desc = run([CLI, "devices", "--verbose"], env)
    if not check(p.returncode == 0 and p.stderr == "", label + ": clv devices --verbose exits 0 quietly", desc):
        return None
    q, qdesc = run(["clinfo", "--raw"], env)
    if not check(q.returncode == 0, label + ": clinfo --raw runs", qdesc):
        return None
    ref, got = clinfo_devices(q.stdout), clv_devices(p.stdout)
    check(len(ref) > 0 and sorted(ref) == sorted(got),
          label + ": the same devices as clinfo", "clinfo %s, clv %s" % (sorted(ref), sorted(got)))
    for key in sorted(ref):
        r, g = ref[key], got.get(key, {})
        where = "%s: device %d:%d" % (label, key[0], key[1])
        ctype = r.get("CL_DEVICE_TYPE", "")
        want_type = ("gpu" if "GPU" in ctype else "cpu" if "CPU" in ctype else
                     "accelerator" if "ACCELERATOR" in ctype else "other")
        exts = r.get("CL_DEVICE_EXTENSIONS", "").split()
        pairs = [
            ("type", want_type),
            ("vendor", r.get("CL_DEVICE_VENDOR")),
            ("driver", r.get("CL_DRIVER_VERSION")),
            ("OpenCL C", r.get("CL_DEVICE_OPENCL_C_VERSION")),
            ("compute units", r.get("CL_DEVICE_MAX_COMPUTE_UNITS")),
            ("max work-group size", r.get("CL_DEVICE_MAX_WORK_GROUP_SIZE")),
            ("max work-item sizes", " ".join(r.get("CL_DEVICE_MAX_WORK_ITEM_SIZES", "").split())),
            ("local memory", "%s bytes" % r.get("CL_DEVICE_LOCAL_MEM_SIZE")),
            ("global memory", "%s bytes" % r.get("CL_DEVICE_GLOBAL_MEM_SIZE")),
            ("max allocation", "%s bytes" % r.get("CL_DEVICE_MAX_MEM_ALLOC_SIZE")),
            ("image support", "yes" if r.get("CL_DEVICE_IMAGE_SUPPORT") == "CL_TRUE" else "no"),
            ("fp16", "yes" if "cl_khr_fp16" in exts else "no"),
            ("fp64", "yes" if "cl_khr_fp64" in exts else "no"),
            ("extensions", " ".join(e if e in exts else e + " (missing)" for e in EXTS)),
        ]
        for field, want in pairs:
            check(g.get(field) == want, "%s: %s is clinfo's" % (where, field),
                  "clv %r, clinfo %r" % (g.get(field), want))
        name = r.get("CL_DEVICE_NAME", "")
        line = [l for l in p.stdout.splitlines() if l.startswith("%d:%d " % key)]
        check(line and name in line[0], where + ": the device line names " + name, desc)
    return got


def main():
    if not shutil.which("clinfo"):
        check(False, "clinfo is installed (.ci/setup installs it)")
        return
    two = {"POCL_DEVICES": "pthread pthread"}
    got = compare(two, "two PoCL devices")
    low = dict(two, POCL_MAX_WORK_GROUP_SIZE="96")
    got_low = compare(low, "POCL_MAX_WORK_GROUP_SIZE=96")
    if got and got_low:
        pocl = [k for k in got_low if "PoCL" in got_low[k].get("OpenCL C", "")]
        check(pocl and all(got_low[k].get("max work-group size") == "96" for k in pocl),
              "the work-group limit follows the device (96 under POCL_MAX_WORK_GROUP_SIZE=96)",
              repr(got_low))
    # Without --verbose the list is the short one.
    p, desc = run([CLI, "devices"], two)
    check(p.returncode == 0 and "compute units" not in p.stdout,
          "plain 'clv devices' prints no details", desc)


if __name__ == "__main__":
    main()
    sys.exit(summary("devices"))
