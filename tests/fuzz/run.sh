#!/bin/sh
# Build the fuzz targets and run each for SECONDS, one after the other:
#   tests/fuzz/run.sh [SECONDS [TARGET...]]      (default 60 s, every target)
# Seeds come from tests/data (copied, never written to) or are made here.
# Corpora, logs and crash artifacts go to a temporary directory (kept and
# printed when something was found; FUZZ_WORK=DIR to choose it).
# Exits 1 when any target found a crash, leak, timeout or OOM (more than
# 4 GiB RSS, or one allocation over 256 MiB: inputs are a few KiB and the
# readers' pixel limit is lowered to 2^20, so no valid input needs that).
# FUZZ_BIN=DIR runs targets already built in DIR (the meson suite 'fuzz').
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-png jpeg exr hdr pfm flo csv args}
work=${FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/clvfuzz.XXXXXX")}
mkdir -p "$work"
# FUZZ_BIN=DIR: targets already built there (meson -Dfuzz=true), no build.
if [ -n "${FUZZ_BIN:-}" ]; then
    bin=$FUZZ_BIN
else
    bin="$work/bin"
    "$root/tests/fuzz/build.sh" "$bin" >"$work/build.log" 2>&1 || {
        cat "$work/build.log" >&2
        exit 1
    }
fi

# seeds TARGET DIR: fill DIR with the target's seed corpus.
seeds() {
    d=$2
    case $1 in
    png) cp "$root"/tests/data/*.png "$d"/ ;;
    jpeg) cp "$root"/tests/data/*.jpg "$d"/ ;;
    exr) cp "$root"/tests/data/*.exr "$d"/ ;;
    flo) cp "$root"/tests/data/*.flo "$d"/ ;;
    hdr)
        # flat 2x2 RGBE, then an 8x2 image in new-style run-length scanlines
        { printf '#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 2\n'
          printf '\200\100\040\201\000\000\000\000\377\377\377\210\001\002\003\177'; } >"$d/flat.hdr"
        { printf '#?RGBE\nEXPOSURE=1.0\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 8\n'
          for row in 1 2; do
              printf '\002\002\000\010\210\100\210\040\204\020\004\001\002\003\004\210\201'
          done; } >"$d/rle.hdr"
        # the same with CRLF header lines (Windows tools write them)
        { printf '#?RADIANCE\r\nFORMAT=32-bit_rle_rgbe\r\nEXPOSURE=1.0\r\n\r\n-Y 2 +X 8\r\n'
          for row in 1 2; do
              printf '\002\002\000\010\210\100\210\040\204\020\004\001\002\003\004\210\201'
          done; } >"$d/crlf.hdr"
        ;;
    pfm)
        { printf 'PF\n2 1\n-1.0\n'; printf '\000\000\200\077%.0s' 1 2 3 4 5 6; } >"$d/rgb.pfm"
        { printf 'Pf\n1 2\n1.0\n'; printf '\077\200\000\000\100\000\000\000'; } >"$d/gray_be.pfm"
        ;;
    csv)
        printf 'x,y\n1.5,2\n30,40.25\n' >"$d/xy.csv"
        printf 'x,y,response\r\n10,20,0.5\r\n1e1,-2,3\r\n' >"$d/xyr.csv"
        ;;
    args)
        printf 'gaussian\000--sigma\0002.5\000--border=wrap\000in.png\000out.png' >"$d/gaussian"
        printf '%s' '--device=gpu' >"$d/device"
        printf -- '--time\000resize\000--size\000640x480\000a.jpg\000b.jpg' >"$d/resize"
        printf 'flow\000--levels\0003\000--\000-a.png\000b.png\000c.flo' >"$d/flow"
        printf 'warp\000--help' >"$d/warp"
        ;;
    esac
    # inputs of past findings, kept so every run tries them again
    if [ -d "$root/tests/fuzz/regress/$1" ]; then
        cp "$root/tests/fuzz/regress/$1"/* "$d"/
    fi
}

failed=""
for t in $targets; do
    corpus="$work/corpus/$t"
    mkdir -p "$corpus" "$work/artifacts"
    seeds "$t" "$corpus"
    echo "== fuzz_$t: ${secs}s, $(ls "$corpus" | wc -l) seeds"
    rc=0
    (cd "$work" && nice -n 10 "$bin/fuzz_$t" -max_total_time="$secs" -close_fd_mask=3 \
        -rss_limit_mb=4096 -malloc_limit_mb=256 -timeout=25 -print_final_stats=1 \
        -artifact_prefix="$work/artifacts/$t-" "$corpus") >"$work/$t.log" 2>&1 || rc=$?
    grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|stat::number_of_executed_units|stat::peak_rss_mb' \
        "$work/$t.log" || true
    if [ "$rc" -ne 0 ]; then
        echo "fuzz_$t FAILED (exit $rc): see $work/$t.log" >&2
        # the report and the reproducer's path (a CI log is all one gets)
        grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "$work/$t.log" | tail -n 80 >&2 || true
        failed="$failed $t"
    fi
done

if [ -n "$failed" ]; then
    echo "findings in:$failed (artifacts in $work/artifacts)" >&2
    exit 1
fi
[ -n "${FUZZ_WORK:-}" ] || rm -rf "$work"
echo "all targets clean"
