"""Shared by the timing-variant makers (mk_up.py, mk_boxwv.py, mk_upf.py, ...): a copy of
cl/ at OUTDIR with text replacements in one kernel file."""
import os
import shutil

CL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cl")


def copy_with(out, name, pairs):
    """cl/ copied to out (replacing it), then each (old, new) of pairs
    replaced in out/name; every old must be there."""
    if os.path.exists(out):
        shutil.rmtree(out)
    shutil.copytree(CL, out)
    path = os.path.join(out, name)
    s = open(path).read()
    for old, new in pairs:
        assert old in s, "%s: text to replace not found" % name
        s = s.replace(old, new)
    open(path, "w").write(s)
    print(out)
