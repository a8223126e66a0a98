#!/bin/sh
# Memcheck (valgrind) over a representative subset of the tests, against a
# plain (unsanitized) debug build:
#   tests/valgrind.sh [TEST...]        (default: the subset below)
# BUILD=DIR chooses the build directory (default build-vg; configured with
# -Dbuildtype=debug and built when missing). Needs valgrind.
#
# Each test runs once natively first, so the clvision program cache (in
# BUILD/vg-cache) and PoCL's own kernel cache are warm and memcheck does not
# spend an hour watching LLVM compile kernels; then under
#   valgrind --leak-check=full --errors-for-leak-kinds=definite
# with tests/valgrind.supp (PoCL/LLVM internals, see there). Exits 1 when any
# test fails, or memcheck reports an error or a definite leak. Not in CI: it
# takes longer than the whole sanitizer suite. Logs: BUILD/vg-logs/TEST.log.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build-vg}
tests=${*:-runtime image io hdrio transpose resize flowutil}

command -v valgrind >/dev/null 2>&1 || {
    echo "$0: valgrind not found (apt-get install valgrind)" >&2
    exit 1
}
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" -Dbuildtype=debug
fi
targets=""
for t in $tests; do
    targets="$targets tests/test_$t"
done
# shellcheck disable=SC2086
ninja -C "$build" $targets

export CLV_KERNEL_PATH="$root/cl"
export CLV_TEST_DATA="$root/tests/data"
export CLV_CACHE_DIR="$build/vg-cache"
logs="$build/vg-logs"
mkdir -p "$logs"

failed=""
for t in $tests; do
    exe="$build/tests/test_$t"
    "$exe" >"$logs/$t.native.log" 2>&1 || {
        echo "test_$t fails without valgrind: see $logs/$t.native.log" >&2
        failed="$failed $t"
        continue
    }
    start=$(date +%s)
    rc=0
    valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite \
        --show-leak-kinds=definite,indirect --error-exitcode=99 --num-callers=40 \
        --suppressions="$root/tests/valgrind.supp" --log-file="$logs/$t.log" \
        "$exe" >"$logs/$t.out" 2>&1 || rc=$?
    secs=$(($(date +%s) - start))
    summary=$(sed -n 's/^==[0-9]*== *//p' "$logs/$t.log" |
        grep -E '^(definitely lost|indirectly lost|ERROR SUMMARY):|^All heap blocks were freed' |
        sed 's/ in [0-9,]* blocks//; s/ (suppressed: .*//; s/ -- no leaks are possible/;/' |
        tr '\n' ' ')
    echo "test_$t: ${secs}s, exit $rc; ${summary:-no leak summary (see $logs/$t.log)}"
    if [ "$rc" -ne 0 ]; then
        failed="$failed $t"
        grep -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|[0-9,]+ .*definitely lost)' \
            "$logs/$t.log" | head -n 20 >&2 || true
    fi
done

if [ -n "$failed" ]; then
    echo "valgrind: failures in:$failed (logs in $logs)" >&2
    exit 1
fi
echo "valgrind: clean"
