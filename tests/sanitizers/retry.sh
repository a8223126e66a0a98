#!/bin/sh
# Test wrapper of the sanitizer test setup (tests/sanitizers/meson.build):
# runs the test, and runs it once more only when it failed because
# LeakSanitizer's own stop-the-world tracer crashed at exit ("Tracer caught
# signal 11" / "LeakSanitizer has encountered a fatal error"): an intermittent
# fault of the sanitizer runtime seen about once per few hundred processes
# with PoCL's worker threads alive at exit, with no leak report. Any real
# finding (a leak list, an ASan or UBSan report) fails at once, as does a
# second tracer crash. stderr is passed on after the run.
log=$(mktemp "${TMPDIR:-/tmp}/clv-san.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
for try in 1 2; do
    rc=0
    "$@" 2>"$log" || rc=$?
    cat "$log" >&2
    [ "$rc" -eq 0 ] && exit 0
    grep -q 'Tracer caught signal' "$log" &&
        grep -q 'LeakSanitizer has encountered a fatal error' "$log" &&
        ! grep -q -E 'ERROR: (LeakSanitizer: detected|AddressSanitizer)|runtime error:' "$log" ||
        exit "$rc"
    [ "$try" -eq 1 ] && echo "retry.sh: LeakSanitizer's tracer crashed at exit; running again" >&2
done
exit "$rc"
