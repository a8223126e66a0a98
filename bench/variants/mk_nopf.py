#!/usr/bin/env python3
"""Timing variant (bench/run_gpu.sh s16b): resize_strip_vec without its
prefetches (STRIP_PF forced to 0 whatever resize.c passes), the CPU kernel
before 9bcc776. Usage: mk_nopf.py OUTDIR (a copy of cl/ with resize.cl
changed)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clcopy import copy_with  # noqa: E402

OLD = """#define STRIP_PF_VALUES (STRIP_PF / (int)sizeof(T))
"""
NEW = """#undef STRIP_PF
#define STRIP_PF 0
#define STRIP_PF_VALUES (STRIP_PF / (int)sizeof(T))
"""

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    copy_with(sys.argv[1], "resize.cl", [(OLD, NEW)])
