#!/usr/bin/env python3
"""clvision sets POCL_AFFINITY=1 when unset, and only when that is sound.

PoCL's CPU driver leaves its worker threads unpinned unless POCL_AFFINITY=1;
unpinned, a process often runs its kernels with both workers on one CPU.
The library sets the variable before it first enumerates platforms
(src/runtime/pocl_env.c). A probe program (pocl_env_probe.c) creates a
context and prints the variable as the process sees it, the library's
note, and the CPUs each PoCL worker thread may run on, which shows whether
PoCL really pinned them:

- no PoCL variable: POCL_AFFINITY=1 in the process, note "set by
  clvision", one worker per CPU, each on its own CPU;
- POCL_AFFINITY=0 or "" from the user: left as it is, workers unpinned;
- run under a CPU mask of one CPU (taskset) or POCL_MAX_PTHREAD_COUNT above
  the CPU count: not set, no worker escapes the mask;
- the CLI ('clv devices --verbose') reports the library's decision.

Needs PoCL's CPU device (the default device, else CLV_DEVICE=cpu) and 2 or
more CPUs all usable by this process; otherwise it is skipped (exit 77).
Environment: CLV_POCL_PROBE, CLV_CLI, CLV_KERNEL_PATH, CLV_CACHE_DIR.
"""

import os
import subprocess
import sys

from pycheck import check, summary

PROBE = os.environ["CLV_POCL_PROBE"]
CLI = os.environ["CLV_CLI"]
SKIP = 77


# What every run adds to the cleaned environment: CLV_DEVICE=cpu where
# another device (a GPU) comes first, set by main.
BASE = {}


def clean_env(extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("POCL_") and k != "CLV_DEVICE"}
    env.update(BASE)
    env.update(extra)
    return env


def run(cmd, extra, cpus=None):
    pre = (lambda: os.sched_setaffinity(0, cpus)) if cpus is not None else None
    p = subprocess.run(cmd, capture_output=True, text=True, env=clean_env(extra),
                       preexec_fn=pre, timeout=120)
    desc = "$ %s %s%s\nexit %d\nstdout: %s\nstderr: %s" % (
        " ".join("%s=%s" % kv for kv in extra.items()), " ".join(cmd),
        " (CPUs %s)" % sorted(cpus) if cpus is not None else "", p.returncode, p.stdout,
        p.stderr)
    return p, desc


def probe(extra, cpus=None):
    """(fields, workers' CPU lists, description) of one probe run."""
    p, desc = run([PROBE], extra, cpus)
    fields, workers = {}, []
    for line in p.stdout.splitlines():
        k, _, v = line.partition("=")
        if k == "worker":
            workers.append(v)
        else:
            fields[k] = v
    if not check(p.returncode == 0, "probe runs", desc):
        return None, None, desc
    return fields, workers, desc


def cpu_list(text):
    """{0, 1, ...} from a Cpus_allowed_list value such as "0-1,3"."""
    out = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def main():
    ncpu = os.cpu_count() or 1
    allowed = os.sched_getaffinity(0)
    if ncpu < 2 or allowed != set(range(ncpu)):
        print("skip: needs 2+ CPUs, all usable (have %d, mask %s)" % (ncpu, sorted(allowed)))
        return SKIP
    def pocl_cpu(fields):
        return "Portable Computing Language" in fields.get("platform", "") and \
            ("pthread" in fields.get("device", "") or "cpu" in fields.get("device", ""))

    fields, workers, desc = probe({})
    if fields is None:
        return summary("pocl-env")
    if not pocl_cpu(fields):
        # A GPU first (the GPU host): PoCL's CPU device by name, as an
        # application that wants it would.
        BASE["CLV_DEVICE"] = "cpu"
        print("the default device is %s / %s: CLV_DEVICE=cpu from here on"
              % (fields.get("platform"), fields.get("device")))
        fields, workers, desc = probe({})
        if fields is None:
            return summary("pocl-env")
    if not pocl_cpu(fields):
        print("skip: no PoCL CPU device (%s / %s)" % (fields.get("platform"), fields.get("device")))
        return SKIP
    every = set(range(ncpu))

    # Unset: the library sets it before PoCL starts its workers; they are
    # pinned, one per CPU.
    check(fields.get("before", "").startswith("not decided"),
          "unset: nothing decided before the first enumeration", desc)
    check(fields.get("env") == "1", "unset: the process sees POCL_AFFINITY=1", desc)
    check(fields.get("note", "").startswith("POCL_AFFINITY=1 set by clvision"),
          "unset: the note says clvision set it", desc)
    pinned = [cpu_list(w) for w in workers]
    check(len(pinned) == ncpu and all(len(c) == 1 for c in pinned)
          and set().union(*pinned) == every,
          "unset: PoCL's %d workers each pinned to a CPU of their own" % ncpu, desc)

    # The user's value stays, whatever it is; "0" leaves the workers free.
    for value in ("0", ""):
        fields, workers, desc = probe({"POCL_AFFINITY": value})
        if fields is None:
            continue
        check(fields.get("env") == value, "POCL_AFFINITY=%r: left alone" % value, desc)
        check(fields.get("note") == "POCL_AFFINITY=%s left as the user set it" % value,
              "POCL_AFFINITY=%r: the note says so" % value, desc)
        if value == "0":
            check(len(workers) == ncpu and all(cpu_list(w) == every for w in workers),
                  "POCL_AFFINITY=0: workers unpinned", desc)

    # A process restricted to one CPU: PoCL would pin worker 0 to CPU 0,
    # outside the mask; nothing is set and no worker leaves the mask.
    one = {ncpu - 1}
    fields, workers, desc = probe({}, cpus=one)
    if fields is not None:
        check(fields.get("env") == "(unset)", "mask of one CPU: not set", desc)
        check("not exactly CPUs" in fields.get("note", ""), "mask of one CPU: the note says why",
              desc)
        check(len(workers) > 0 and all(cpu_list(w) == one for w in workers),
              "mask of one CPU: every worker stays inside it", desc)

    # More workers asked for than CPUs: pinning worker N to CPU N would fail.
    fields, workers, desc = probe({"POCL_MAX_PTHREAD_COUNT": str(ncpu + 1)})
    if fields is not None:
        check(fields.get("env") == "(unset)", "POCL_MAX_PTHREAD_COUNT > CPUs: not set", desc)
        check("POCL_MAX_PTHREAD_COUNT" in fields.get("note", ""),
              "POCL_MAX_PTHREAD_COUNT > CPUs: the note names it", desc)
        check(len(workers) == ncpu + 1 and all(cpu_list(w) == every for w in workers),
              "POCL_MAX_PTHREAD_COUNT > CPUs: %d unpinned workers" % (ncpu + 1), desc)

    # The CLI gets the rule through the library and says what it decided.
    for extra, want in (({}, "pocl affinity: POCL_AFFINITY=1 set by clvision"),
                        ({"POCL_AFFINITY": "0"},
                         "pocl affinity: POCL_AFFINITY=0 left as the user set it")):
        p, desc = run([CLI, "devices", "--verbose"], extra)
        check(p.returncode == 0 and any(l.startswith(want) for l in p.stdout.splitlines()),
              "clv devices --verbose %s: '%s'" % (extra or "(no PoCL variable)", want), desc)
    return summary("pocl-env")


if __name__ == "__main__":
    sys.exit(main())
