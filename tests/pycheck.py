"""The checks every Python test counts: check() records one, summary() prints
"NAME: N passed, M failed" (the line meson's logs show) and gives the exit
status. Standard library only; the tests import it from their own
directory."""

_counts = {"passed": 0, "failed": 0}


def check(cond, what, detail=""):
    """Count cond; on failure print "FAIL: what: detail" (a multi-line detail
    on lines of its own) and go on. Returns cond."""
    if cond:
        _counts["passed"] += 1
    else:
        _counts["failed"] += 1
        sep = ":\n" if "\n" in detail else ": "
        print("FAIL: %s%s" % (what, (sep + detail) if detail else ""), flush=True)
    return cond


def failures():
    return _counts["failed"]


def summary(name):
    """Print the counts; 1 when anything failed, else 0."""
    print("%s: %d passed, %d failed" % (name, _counts["passed"], _counts["failed"]))
    return 1 if _counts["failed"] else 0
