#!/usr/bin/env python3
"""Summarise interleaved timing rounds (the lines run_gpu.sh's variant modes
print: ROUND VARIANT op=OP size=WxH cn=N dev_ms_median=MS) as one line per
op, size and channel count: each variant's device µs, round by round.
Usage: rounds.py < lines"""
import collections
import re
import sys


def main():
    rows = collections.OrderedDict()
    variants = []
    for line in sys.stdin:
        f = line.split()
        if len(f) < 6 or not f[2].startswith("op="):
            continue
        m = re.match(r"dev_ms_median=([\d.]+)", f[5])
        if not m:
            continue
        key = " ".join(x.split("=", 1)[1] for x in f[2:5])
        if f[1] not in variants:
            variants.append(f[1])
        rows.setdefault(key, collections.defaultdict(list))[f[1]].append(float(m.group(1)) * 1000)
    for key, by in rows.items():
        cells = ["%s %s" % (v, " / ".join("%.1f" % x for x in by[v])) for v in variants if by[v]]
        print("%-28s %s" % (key, " | ".join(cells)))


if __name__ == "__main__":
    main()
