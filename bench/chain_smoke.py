#!/usr/bin/env python3
"""Quick form of clv-bench --mode chain, so the mode cannot rot: 4-op chains
on 64x48 u8 images, with CLV_PROFILE=2 in the environment (the host-cost
context must still come out unprofiled: clv-bench exits 1 if it does not).
Checks the three floor lines (raw_empty, raw_enqueue, raw_copy) and one result
line per default op with every key and sane values. Then normal mode's one
case with each --wall-context (wall on the unprofiled context, the default,
or on the profiling one): a result line with sane wall and device times; and
a --wall-context it does not know must fail.

usage: chain_smoke.py CLV_BENCH
"""
import os
import subprocess
import sys

OPS = ["resize", "transpose", "box5", "gaussian"]
KEYS = ["host_us_per_op_median", "host_us_per_op_min", "wall_us_per_op_median",
        "wall_us_per_op_min", "dev_us_per_op_median", "dev_last_us_median",
        "prof_host_us_per_op_median", "prof_wall_us_per_op_median"]


def main():
    env = dict(os.environ, CLV_PROFILE="2")
    cmd = [sys.argv[1], "--mode", "chain", "--chain-length", "4", "--sizes", "64x48",
           "--reps", "2", "--warmup", "1"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        sys.exit(f"chain_smoke: {' '.join(cmd)} exited {r.returncode}\n{r.stderr}")
    lines = [l for l in r.stdout.splitlines() if not l.startswith("#")]
    # first the launch floor: an empty kernel run alone, one work-group per
    # compute unit; its wall (enqueue to clFinish) holds its device time
    em = dict(f.split("=", 1) for f in lines.pop(0).split()) if lines else {}
    if em.get("op") != "raw_empty" or int(em.get("groups", "0")) < 1 or em.get("reps") != "2" or \
            not all(0.0 < float(em.get(k, "-1")) < 1e7
                    for k in ("wall_us_median", "wall_us_min", "dev_us_median")) or \
            float(em["wall_us_min"]) > float(em["wall_us_median"]) or \
            float(em["wall_us_median"]) < float(em["dev_us_median"]):
        sys.exit(f"chain_smoke: no sane op=raw_empty line first:\n{r.stdout}")
    # then the driver's floor: a plain kernel enqueued straight on the queue
    raw = dict(f.split("=", 1) for f in lines.pop(0).split()) if lines else {}
    if raw.get("op") != "raw_enqueue" or raw.get("n") != "4" or \
            not 0.0 <= float(raw.get("host_us_per_op_median", "-1")) < 1e7:
        sys.exit(f"chain_smoke: no sane op=raw_enqueue line second:\n{r.stdout}")
    # then the memory floor: a plain copy of the image's 64 * 48 bytes
    cp = dict(f.split("=", 1) for f in lines.pop(0).split()) if lines else {}
    if cp.get("op") != "raw_copy" or cp.get("bytes") != str(64 * 48) or \
            not all(0.0 < float(cp.get(k, "-1")) < 1e7
                    for k in ("wall_us_per_op_median", "dev_us_median", "dev_gb_per_s")):
        sys.exit(f"chain_smoke: no sane op=raw_copy line third:\n{r.stdout}")
    if len(lines) != len(OPS):
        sys.exit(f"chain_smoke: expected {len(OPS)} result lines, got:\n{r.stdout}")
    for op, line in zip(OPS, lines):
        kv = dict(f.split("=", 1) for f in line.split())
        want = {"mode": "chain", "op": op, "size": "64x48", "type": "u8", "cn": "1", "n": "4",
                "reps": "2"}
        for k, v in want.items():
            if kv.get(k) != v:
                sys.exit(f"chain_smoke: {k}={kv.get(k)} (expected {v}) in: {line}")
        for k in KEYS:
            v = float(kv[k])  # a missing key raises KeyError: a failure too
            if not (v >= 0.0 and v < 1e7):
                sys.exit(f"chain_smoke: {k}={v} out of range in: {line}")
        # the finish is inside wall, not inside host
        if float(kv["wall_us_per_op_median"]) < float(kv["host_us_per_op_median"]):
            sys.exit(f"chain_smoke: wall per op below host per op in: {line}")
        print("ok", line)
    normal_mode(sys.argv[1], env)


def normal_mode(exe, env):
    base = [exe, "--ops", "transpose", "--sizes", "64x48", "--types", "u8", "--channels", "1",
            "--reps", "2", "--warmup", "1"]
    for wall_ctx in ([], ["--wall-context", "unprofiled"], ["--wall-context", "profiled"]):
        cmd = base + wall_ctx
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        lines = [l for l in r.stdout.splitlines() if l.startswith("op=")]
        if r.returncode != 0 or len(lines) != 1:
            sys.exit(f"chain_smoke: {' '.join(cmd)} exited {r.returncode}, lines {lines}\n"
                     f"{r.stderr}")
        kv = dict(f.split("=", 1) for f in lines[0].split())
        if kv.get("op") != "transpose" or kv.get("reps") != "2" or \
                not all(0.0 < float(kv.get(k, "-1")) < 1e7
                        for k in ("wall_ms_median", "wall_ms_min", "dev_ms_median",
                                  "dev_ms_min")):
            sys.exit(f"chain_smoke: no sane result line from {' '.join(cmd)}: {lines[0]}")
        print("ok", " ".join(wall_ctx) or "(default)", lines[0])
    cmd = base + ["--wall-context", "sometimes"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    if r.returncode == 0 or "--wall-context" not in r.stderr:
        sys.exit(f"chain_smoke: {' '.join(cmd)} was accepted (rc {r.returncode})")


if __name__ == "__main__":
    main()
