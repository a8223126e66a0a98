#!/usr/bin/env bash
# Build, test and benchmark on the lent NVIDIA machine (used for the GPU
# numbers in bench/RESULTS.md). Writes logs and tables under $OUT.
# Usage: bash bench/run_gpu.sh tests|s18|s18f|s18h|s17a|s16w|s16b|upf15|t15a|t15b|last14|pyc14|s14|rgb13|copy13|tsh13|tsw13|pl12|bpy12|lut12|strm|last11|u16x|bil4|sweep11|gfw11|look11|tests11|final11|wv11|py11|bil11|last10|gwh|bwh|final10|f32d|f32c|f32b|whf10|boxfw10|boxf10|final8|tr|ncu|ncu2|box9|wide9|final9|up2|cvt|t3|bench|embed|late|sizes|verify|final|flow|kern|host|table2|heavy|twin|reg|wide|final17|up|shapes|p4|p4floor|pyr2|upv|split|wpy|bwv|box5|s4|next17|suite
set -u
what=${1:-tests}
OUT=${OUT:-/tmp/clv-gpu-out}
mkdir -p "$OUT" /etc/OpenCL/vendors
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
clinfo -l > "$OUT/clinfo.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >> "$OUT/clinfo.txt" 2>&1

if [ ! -f build-gpu/build.ninja ]; then meson setup build-gpu > /dev/null || exit 1; fi
ninja -C build-gpu > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
export CLV_DEVICE=gpu CLV_REQUIRE_DEVICE=1 PYTHONUNBUFFERED=1

# env_rounds VAR N OPS VALUE...: clv-bench's OPS (u8, 1 and 3 channels,
# 1920x1080 and 3840x2160) under VAR=VALUE for each VALUE ("default":
# unset), N interleaved rounds; one line per op: round, value (up to its
# ",pyr"), op, size, channels, device ms
env_rounds() {
    local var=$1 n=$2 ops=$3 round w u
    shift 3
    for round in $(seq "$n"); do
        for w in "$@"; do
            if [ "$w" = default ]; then u=; else u=$w; fi
            env "$var=$u" timeout 100 build-gpu/bench/clv-bench --device gpu --ops "$ops" \
                --sizes 1920x1080,3840x2160 --types u8 --channels 1,3 --reps 15 2>&1 |
                grep -E "^op=|rror" | awk -v r=$round -v v="${w%%,pyr*}" '{print r, v, $1, $2, $4, $7}'
        done
    done
}

# bil_tests VAR VALUE...: test_bilateral fixed (bil_fixed's own set) under
# VAR=VALUE for each VALUE, its summary line tagged with it
bil_tests() {
    local var=$1 v
    shift
    for v in "$@"; do
        env "$var=$v" timeout 100 build-gpu/tests/test_bilateral fixed 2>&1 | tail -1 |
            sed "s/^/$var=$v /"
    done
}

# sass_counts CACHE KERNEL: registers of KERNEL's programs in the program
# cache CACHE (ptxinfo.txt), then each program's SASS instruction count
sass_counts() {
    python3 bench/ptxinfo.py "$1" --kernels "$2" --dump /tmp/sassdump > "$OUT/ptxinfo.txt" 2>&1
    for f in /tmp/sassdump/*; do
        ptxas -arch=sm_90 -o /tmp/b.cubin "$f" 2>/dev/null &&
            echo "$(cuobjdump -sass /tmp/b.cubin | grep -cE '^ +/\*[0-9a-f]{4}\*/') $f"
    done | tee "$OUT/sass.txt"
}

# kpath_rounds OPS SIZES CHANNELS KERNEL_PATH...: clv-bench's OPS (u8) under
# each kernel path (cl/ against timing copies), three interleaved rounds, a
# program cache per path; lines as env_rounds's (bench/variants/rounds.py
# sums them up)
kpath_rounds() {
    local ops=$1 sizes=$2 cns=$3 round v tag
    shift 3
    for round in 1 2 3; do
        for v in "$@"; do
            tag=$(echo "$v" | tr / _)
            CLV_KERNEL_PATH=$v CLV_CACHE_DIR=/tmp/kpc/$tag timeout 100 \
                build-gpu/bench/clv-bench --device gpu --ops "$ops" --sizes "$sizes" --types u8 \
                --channels "$cns" --reps 15 2>&1 |
                grep -E "^op=|rror" | awk -v r=$round -v v="$tag" '{print r, v, $1, $2, $4, $7}'
        done
    done
}

# f32_bench OPS SIZES CNS TAG: clv-bench's OPS in f32 (medians of 15), one
# line per op as env_rounds's, tagged with $round (when set) and TAG; the
# caller's environment (CLV_U8_REG, CLV_REG_PY, CLV_KERNEL_PATH) picks the
# kernels
f32_bench() {
    timeout 60 build-gpu/bench/clv-bench --device gpu --ops "$1" --sizes "$2" --types f32 \
        --channels "$3" --reps 15 2>&1 | grep -E "^op=|rror" |
        awk -v r="${round:-}" -v v="$4" '{print r, v, $1, $2, $4, $7}'
}

# part1_rows: part 1's u8 rows at 4K (one and three channels) as the
# defaults choose, lines tagged with $round and "now"
part1_rows() {
    timeout 100 build-gpu/bench/clv-bench --device gpu \
        --ops transpose,resize,resize_up,box5,box31,gaussian,bilateral --sizes 3840x2160 \
        --types u8 --channels 1,3 --reps 15 2>&1 | grep -E "^op=|rror" |
        awk -v r="${round:-}" '{print r, "now", $1, $2, $4, $7}'
}

# rgb_rounds: transpose_rgb (CLV_U8_REG's transpose for three channels)
# against the tile, three interleaved rounds, then test_transpose under
# CLV_TUNE=gpu
rgb_rounds() {
    env_rounds CLV_U8_REG 3 transpose default transpose | tee "$OUT/rgb.txt"
    CLV_TUNE=gpu CLV_TEST_DATA=tests/data timeout 120 build-gpu/tests/test_transpose \
        > "$OUT/rgb_test.txt" 2>&1
    echo "test_transpose (CLV_TUNE=gpu) rc=$? $(tail -1 "$OUT/rgb_test.txt")"
}

# part1_flow_rows: part 1's pyramid (4K) and Farneback (1080p) rows as the
# defaults choose, tagged as part1_rows's
part1_flow_rows() {
    timeout 60 build-gpu/bench/clv-bench --device gpu --ops pyramid --sizes 3840x2160 \
        --types u8 --channels 1 --reps 15 2>&1 | grep -E "^op=|rror" |
        awk -v r="${round:-}" '{print r, "now", $1, $2, $4, $7}'
    timeout 60 build-gpu/bench/clv-bench --device gpu --ops farneback --sizes 1920x1080 \
        --types u8 --channels 1 --reps 15 2>&1 | grep -E "^op=|rror" |
        awk -v r="${round:-}" '{print r, "now", $1, $2, $4, $7}'
}

# part1_twice: part 1's rows and its pyramid and Farneback rows, two rounds,
# into $OUT/part1.txt, printed
part1_twice() {
    local round
    for round in 1 2; do
        part1_rows
        part1_flow_rows
    done | tee "$OUT/part1.txt"
}

# chain_light: part 2's chain table (clv-bench --mode chain, 1920x1080 u8)
# into $OUT/chain.txt, printed
chain_light() {
    timeout 120 build-gpu/bench/clv-bench --device gpu --mode chain --sizes 1920x1080 \
        --ops resize,transpose,box5,gaussian --reps 11 > "$OUT/chain.txt" 2>&1
    echo "chain rc=$?"; grep -vE "^#" "$OUT/chain.txt" | cut -c1-220
}

# gpu_compare OPS NAME [ARG...]: compare.py's OPS at 1080p and 4K beside
# OpenCV's OpenCL path into $OUT/gpu_NAME.md, printed; ARGs go to compare.py
# last, so --sizes or --reps there replace these
gpu_compare() {
    local ops=$1 name=$2
    shift 2
    timeout 300 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench \
        --clv-device gpu --ocl-device :GPU: --ops "$ops" \
        --sizes 1920x1080,3840x2160 --reps 10 --markdown "$OUT/gpu_$name.md" "$@" \
        > "$OUT/compare_$name.txt" 2>&1
    echo "compare $name rc=$?"; grep -E "^\| [a-z]" "$OUT/gpu_$name.md" | cut -d'|' -f2-7,11,13
}

# boxfw_pair: box 31x31 f32 (1080p and 4K, one and three channels) with the
# f32 wide passes off and on (CLV_U8_REG's boxfw), tagged with $round
boxfw_pair() {
    local v
    for v in box,boxw,boxf1 box,boxw,boxf1,boxfw; do
        CLV_U8_REG=$v f32_bench box31 1920x1080,3840x2160 1,3 $v
    done
}

# f32_box31_launches: box 31x31 f32 at 4K launch by launch (CLV_PROFILE=2)
f32_box31_launches() {
    CLV_PROFILE=2 timeout 60 build-gpu/bench/clv-bench --device gpu --ops box31 \
        --sizes 3840x2160 --types f32 --channels 1,3 --reps 2 --warmup 1 2>&1 |
        grep -iE "kernel|^op=" | cut -c1-60 | head -40
}

# box_compare: the box rows beside OpenCV's OpenCL path (compare.py, 1080p
# and 4K) into $OUT/gpu_filters.md, printed
box_compare() {
    timeout 150 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --ops box5,box31 --sizes 1920x1080,3840x2160 --reps 10 \
        --markdown "$OUT/gpu_filters.md" > "$OUT/filters.txt" 2>&1
    echo "bench rc=$?"; cat "$OUT/gpu_filters.md"
}

# wall_rounds: clv-bench's wall on the profiling context (the method before
# 2026-12-07, --wall-context profiled: "old") against the unprofiled one
# ("new"), light ops at 1080p and 4K, three interleaved rounds; one line per
# op: round, method, op, size, type, wall and device medians
wall_rounds() {
    local round v w
    for round in 1 2 3; do
        for v in old new; do
            if [ $v = old ]; then w=profiled; else w=unprofiled; fi
            timeout 100 build-gpu/bench/clv-bench --wall-context $w --device gpu \
                --ops transpose,resize,resize_up,box5 --sizes 1920x1080,3840x2160 \
                --types u8,f32 --channels 1 --reps 20 2>&1 |
                grep -E "^op=|rror" | awk -v r=$round -v v=$v '{print r, v, $1, $2, $3, $5, $7}'
        done
    done
}

# suite_groups N T: every test (or those SUITE_ONLY, a regex, matches) but
# those in SUITE_SKIP (tools the GPU host lacks: oclgrind, clang-15 and
# ocloc), named on the first line, in N concurrent meson runs of at most
# T s (tests/meson.build runs 21 tests one at a time, so one run of the
# whole suite needed more than a call's 600 s there: 40 of 84 tests in
# 530 s on the H100, 2026-12-05); the failures and the count of passes.
# Logs: tests0.txt ... packed into $OUT/tests_logs.tgz (the device tool
# brings back at most 8 files; 4 of 8 logs came back on 2026-12-07).
suite_groups() {
    local n=$1 t=$2 skip=${SUITE_SKIP:-oclgrind cl-xbuild} i j
    local -a names part
    mapfile -t names < <(meson test -C build-gpu --list 2>/dev/null | sed 's/^.*://' |
        grep -vxE "$(echo "$skip" | tr ' ' '|')" | grep -E "${SUITE_ONLY:-.}")
    echo "suite: ${#names[@]} tests in $n groups; left out: $skip"
    for i in $(seq 0 $((n - 1))); do
        part=()
        for j in "${!names[@]}"; do
            if [ $((j % n)) -eq "$i" ]; then part+=("${names[$j]}"); fi
        done
        timeout "$t" meson test -C build-gpu --no-rebuild --logbase "g$i" --print-errorlogs \
            --timeout-multiplier 3 "${part[@]}" > "$OUT/tests$i.txt" 2>&1 &
    done
    wait
    grep -hE "^ *[0-9]+/[0-9]+ " "$OUT"/tests[0-9]*.txt | grep -vE " OK +[0-9]" | sort -u
    echo "passed: $(grep -hE "^ *[0-9]+/[0-9]+ .* OK +[0-9]" "$OUT"/tests[0-9]*.txt | sort -u | wc -l) of ${#names[@]}"
    (cd "$OUT" && tar czf tests_logs.tgz tests[0-9]*.txt && rm -f tests[0-9]*.txt)
}

# Nsight Compute does not see the OpenCL driver's kernels ("No kernels were
# profiled", H100, 2026-12-06), so the PTX the driver built runs through
# CUDA instead (bench/twin/ptxrun). ptx_setup CACHE_DIR: fill CACHE_DIR with
# the 4K u8 rows' programs (clvision's kernel path as exported), dump their
# PTX to /tmp/ptxdump, build ptxrun and the inputs its runs below need.
ptx_setup() {
    ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    echo "ncu: ${ncu:-not found}"
    CLV_CACHE_DIR=$1 timeout 60 build-gpu/bench/clv-bench --device gpu \
        --ops resize_up,box5,box31,gaussian,transpose,pyramid --sizes 3840x2160 --types u8 \
        --channels 1,3 --reps 3 2>&1 | grep -E "^op=|rror" | cut -c1-110
    rm -rf /tmp/ptxdump
    python3 bench/ptxinfo.py "$1" --dump /tmp/ptxdump > "$OUT/ptxinfo.txt" 2>&1
    cc -O2 -I/usr/local/cuda/include bench/twin/ptxrun.c -o /tmp/ptxrun \
        -L/usr/local/cuda/lib64/stubs -lcuda || return 1
    python3 bench/twin/resize_tab.py 3840 2160 5760 3240 /tmp/tab.bin
    python3 -c "import math,struct; w=[math.exp(-(i-6)**2/8.0) for i in range(13)]; \
open('/tmp/w13.bin','wb').write(struct.pack('13f',*[x/sum(w) for x in w])+bytes(64))"
}

# ptx_prof TAG KERNEL OPTS_REGEX GX GY ARGS...: the dumped PTX holding KERNEL
# whose options match, alone (bench/twin/ptx_entry.py), timed at five
# work-group shapes, then one launch (64x1) under Nsight Compute (--set
# full) into $OUT/ncu_TAG.txt, and its main figures. GY may be H/NAME: H
# rows over the program's -DNAME (its rows per work-item), rounded up.
ptx_prof() {
    local tag=$1 k=$2 re=$3 gx=$4 gy=$5 f shape py
    shift 5
    f=$(grep -lE "^// options: .*$re" $(grep -l "entry $k(" /tmp/ptxdump/*.ptx) | head -1)
    echo "$tag $k: ${f:-no PTX}"; [ -n "$f" ] || return
    if [[ $gy == */* ]]; then
        py=$(head -1 "$f" | grep -oE " ${gy#*/}=[0-9]+" | cut -d= -f2)
        [ -n "$py" ] || { echo "$tag: no ${gy#*/} in the options"; return; }
        gy=$(( (${gy%/*} + py - 1) / py ))
    fi
    python3 bench/twin/ptx_entry.py "$f" "$k" "/tmp/$tag.ptx" || return
    for shape in "64 1" "32 4" "128 1" "32 8" "16 16"; do
        set -- $shape "$@"
        /tmp/ptxrun "/tmp/$tag.ptx" "$k" $(( (gx + $1 - 1) / $1 * $1 )) $(( (gy + $2 - 1) / $2 * $2 )) \
            $1 $2 50 "${@:3}"
        shift 2
    done
    [ -n "$ncu" ] || return
    timeout 100 "$ncu" -k "$k" -c 1 --set full --import-source no /tmp/ptxrun "/tmp/$tag.ptx" "$k" \
        $(( (gx + 63) / 64 * 64 )) "$gy" 64 1 1 "$@" > "$OUT/ncu_$tag.txt" 2>&1
    echo "ncu $tag rc=$?"
    grep -E "^    (Duration|DRAM Throughput|L1/TEX Hit Rate|Compute \(SM\) Throughput|Issue Slots Busy|Registers Per Thread|Achieved Occupancy|Warp Cycles Per Issued Instruction|Executed Instructions|L1/TEX Cache Throughput|L2 Cache Throughput) " \
        "$OUT/ncu_$tag.txt" | sed 's/  */ /g' | tr '\n' ';'
    echo
    grep -A2 -E "^ +(OPT|INF) +(ALU|FMA|LSU|.*pipeline)" "$OUT/ncu_$tag.txt" | cut -c1-160 | head -4
}

# the 4K u8 kernels' arguments for ptx_prof (image sizes in bytes, pitches)
ptx_kernels() {
    local cn=$1
    ptx_prof "up$cn" resize_up_reg "CN=$cn$" 1440 405 b$((8294400 * cn)) i$((3840 * cn)) i3840 i2160 \
        b$((18662400 * cn)) i$((5760 * cn)) i5760 i3240 f/tmp/tab.bin i8
    ptx_prof "gwh$cn" gauss_wh "CN=$cn .*GW_RX=6" $((240 * cn)) 2160 b$((8294400 * cn)) i$((3840 * cn)) \
        i3840 i2160 b$((16588800 * cn)) i$((3840 * cn)) f/tmp/w13.bin
    ptx_prof "gwv$cn" gauss_wv "CN=$cn .*GW_RY=6" $((480 * cn)) 2160/GW_PY b$((16588800 * cn)) i$((3840 * cn)) \
        i$((3840 * cn)) i2160 b$((8294400 * cn)) i$((3840 * cn)) f/tmp/w13.bin
    [ "$cn" = 1 ] && ptx_prof box5 box_reg "CN=1 .*BR_KX=5" 960 2160/BR_PY b8294400 i3840 i3840 i2160 \
        b8294400 i3840 x0.04
}

case "$what" in
tests)
    build-gpu/clv demo "$OUT/demo" > "$OUT/demo.txt" 2>&1; echo "demo rc=$?" >> "$OUT/demo.txt"
    rm -rf "$OUT/demo"
    suite_groups 8 520
    tail -3 "$OUT/demo.txt"
    ;;
bench)
    timeout 540 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --reps 30 --markdown "$OUT/gpu.md" > "$OUT/bench.txt" 2>&1
    echo "bench rc=$?"; grep -vE "^round" "$OUT/bench.txt" | tail -80
    ;;
embed)
    # issue 15: the interop example, the embedding tests, the capability
    # query sweep, then the chain mode (host cost per op)
    build-gpu/examples/interop > "$OUT/example.txt" 2>&1; echo "example rc=$?" >> "$OUT/example.txt"
    cat "$OUT/example.txt"
    timeout 400 meson test -C build-gpu example-interop interop op-supported op devices cache \
        badinput runtime --print-errorlogs --timeout-multiplier 3 > "$OUT/tests.txt" 2>&1
    echo "tests rc=$?"; grep -E "^ *[0-9]+/|Ok:|Fail:" "$OUT/tests.txt"
    timeout 120 build-gpu/bench/clv-bench --device gpu --mode chain --sizes 1920x1080 \
        --ops resize,transpose,box5,gaussian --reps 11 > "$OUT/chain.txt" 2>&1
    echo "chain rc=$?"; grep -vE "^#" "$OUT/chain.txt" | tail -12
    ;;
late)
    timeout 60 meson test -C build-gpu image threads longrun farneback lk transpose \
        --print-errorlogs > "$OUT/tests.txt" 2>&1
    echo "tests rc=$?"; grep -E "^ *[0-9]+/|Ok:|Fail:" "$OUT/tests.txt"
    timeout 30 build-gpu/bench/clv-bench --device gpu --ops lk,corners,pyramid,farneback \
        --sizes 1920x1080 --reps 10 --warmup 2 2>&1 | grep -E "^op="
    ;;
sizes)
    timeout 60 build-gpu/bench/clv-bench --device gpu --ops bilateral16,grid16,tonemap \
        --sizes 1280x720,3840x2160 --reps 5 --warmup 2 > "$OUT/direct_sizes.txt" 2>&1
    grep -E "^op=" "$OUT/direct_sizes.txt"
    timeout 120 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --ops bilateral --sizes 1280x720,3840x2160 --reps 5 \
        --markdown "$OUT/gpu_bilateral_sizes.md" > "$OUT/bilateral_sizes.txt" 2>&1
    echo "bilateral rc=$?"; grep -E "^round" "$OUT/bilateral_sizes.txt"
    ;;
verify)
    CLV_PROFILE=2 timeout 60 build-gpu/bench/clv-bench --device gpu \
        --ops grid16,tonemap,farneback --sizes 1920x1080 --reps 20 --warmup 3 \
        > "$OUT/direct.txt" 2>&1
    grep -E "^op=" "$OUT/direct.txt"
    timeout 100 meson test -C build-gpu grid tonemap flowutil lk corners pyramid \
        --print-errorlogs > "$OUT/tests.txt" 2>&1
    echo "tests rc=$?"; grep -E "^ *[0-9]+/|Ok:|Fail:" "$OUT/tests.txt"
    ;;
final)
    # 1) ops without an OpenCV twin or too slow for OpenCV's CPU at every size
    CLV_PROFILE=2 timeout 90 build-gpu/bench/clv-bench --device gpu \
        --ops bilateral16,grid16,tonemap,farneback --sizes 1920x1080 --reps 10 --warmup 2 \
        > "$OUT/direct.txt" 2>&1
    grep -E "^op=" "$OUT/direct.txt"
    # 2) side by side at three sizes
    timeout 170 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --ops transpose,resize,resize_up,box5,box31,gaussian,tonemap,farneback \
        --reps 20 --markdown "$OUT/gpu.md" > "$OUT/bench.txt" 2>&1
    echo "bench rc=$?"
    # 3) the bilateral rows at 1080p (OpenCV's CPU bilateralFilter is slow)
    timeout 90 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --ops bilateral,grid16 --sizes 1920x1080 --reps 5 \
        --markdown "$OUT/gpu_bilateral.md" > "$OUT/bilateral.txt" 2>&1
    echo "bilateral rc=$?"
    grep -E "^(op|---|[a-z_0-9]+ +[0-9]+x)" "$OUT/bench.txt" "$OUT/bilateral.txt" | cut -d: -f2- | tail -60
    ;;
flow)
    # whole suite, then the flow rows side by side at three sizes, then a
    # per-kernel Farneback breakdown at 1080p
    meson test -C build-gpu --print-errorlogs --timeout-multiplier 3 > "$OUT/tests.txt" 2>&1
    echo "tests rc=$?"; grep -E "^ *[0-9]+/|Ok:|Fail:" "$OUT/tests.txt" | grep -v " OK "
    grep -E "^ *[0-9]+/" "$OUT/tests.txt" | awk '{s+=$NF+0} END {print NR " tests"}'
    timeout 240 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --ops pyramid,corners,lk,farneback --reps 20 \
        --markdown "$OUT/gpu_flow.md" > "$OUT/flow.txt" 2>&1
    echo "flow rc=$?"; cat "$OUT/gpu_flow.md"
    CLV_PROFILE=2 timeout 60 build-gpu/bench/clv-bench --device gpu --ops farneback \
        --sizes 1920x1080 --reps 20 --warmup 3 > "$OUT/fb_profile.txt" 2>&1
    grep -E "^op=" "$OUT/fb_profile.txt"
    grep kernel "$OUT/fb_profile.txt" | awk '{n[$3]++; t[$3]+=$4} END {for (k in n) printf "%-24s %4d calls %9.3f ms/frame\n", k, n[k]/23, t[k]/23}' | sort -k4 -rn
    ;;
kern)
    # issue 17: the tests of the ops in $OPS (meson test names, comma list),
    # then those ops side by side with OpenCV at three sizes
    OPS=${OPS:-gaussian}
    timeout 240 meson test -C build-gpu ${TESTS:-${OPS//,/ }} --print-errorlogs \
        --timeout-multiplier 3 > "$OUT/tests.txt" 2>&1
    echo "tests rc=$?"; grep -E "^ *[0-9]+/|Ok:|Fail:" "$OUT/tests.txt"
    timeout 300 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --ops "$OPS" --reps 20 --markdown "$OUT/gpu_kern.md" \
        > "$OUT/kern.txt" 2>&1
    echo "bench rc=$?"; cat "$OUT/gpu_kern.md"
    ;;
host)
    # issue 17 part 2 and the touched ops: tests, then chain mode (host cost
    # per op beside the driver's floor, op=raw_enqueue), then the filter rows
    # side by side with OpenCV at three sizes
    timeout 200 meson test -C build-gpu pyramid gaussian resize transpose box lk farneback op \
        runtime badinput interop bench-chain-smoke --print-errorlogs --timeout-multiplier 3 \
        > "$OUT/tests.txt" 2>&1
    echo "tests rc=$?"; grep -E "^ *[0-9]+/|Ok:|Fail:" "$OUT/tests.txt"
    for i in 1 2 3; do
        timeout 60 build-gpu/bench/clv-bench --device gpu --mode chain --sizes 1920x1080 \
            --reps 11 >> "$OUT/chain.txt" 2>&1
    done
    echo "chain rc=$?"; grep -vE "^#" "$OUT/chain.txt"
    timeout 280 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --ops transpose,resize,resize_up,box5,box31,gaussian,pyramid \
        --reps 15 --markdown "$OUT/gpu_filters.md" > "$OUT/filters.txt" 2>&1
    echo "bench rc=$?"; cat "$OUT/gpu_filters.md"
    ;;
table2)
    # the compute-heavy rows at 1920x1080 and 3840x2160
    timeout 500 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --ops bilateral,farneback,corners,lk,tonemap \
        --sizes 1920x1080,3840x2160 --reps 8 --markdown "$OUT/gpu_heavy2.md" \
        > "$OUT/heavy2.txt" 2>&1
    echo "bench rc=$?"; cat "$OUT/gpu_heavy2.md"
    ;;
heavy)
    timeout 540 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --ops bilateral16,grid16 --sizes 1920x1080 --reps 5 \
        --markdown "$OUT/gpu_heavy.md" > "$OUT/heavy.txt" 2>&1
    echo "heavy rc=$?"; grep -vE "^round" "$OUT/heavy.txt" | tail -20
    CLV_PROFILE=2 build-gpu/bench/clv-bench --device gpu --ops tonemap,farneback --sizes 1920x1080 \
        --reps 20 > "$OUT/profile.txt" 2>&1
    grep -E "^op=" "$OUT/profile.txt"; grep -E "kernel" "$OUT/profile.txt" | tail -40
    ;;
twin)
    # the same kernel text through CUDA and through OpenCL (bench/twin), then
    # clvision's box5 and the copy floor on the same bytes
    PATH=/usr/local/cuda/bin:$PATH bash bench/twin/run.sh "${TWIN_DIR:-$OUT/twin}" > "$OUT/twin.txt" 2>&1
    echo "twin rc=$?"; grep -E "^api=|rror" "$OUT/twin.txt"
    timeout 60 build-gpu/bench/clv-bench --device gpu --mode chain --ops box5 \
        --sizes 3840x2160 --types u8 --channels 1 --reps 7 2>&1 | grep -E "^mode="
    # (the register kernels against the local-memory ones: `reg` below)
    ;;
reg)
    # issue 17: the u8 register kernels: their tests; device times with each
    # of them (CLV_U8_REG=all, the default there) and without (none: the
    # local-memory kernels), at the default rows per work-item and at
    # others (CLV_REG_PY); a per-kernel profile of the pyramid; registers
    # and spills of every kernel built (bench/ptxinfo.py)
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    timeout 150 meson test -C build-gpu box-fixed gaussian-reg gaussian-fixed pyramid-gpu \
        resize-gpu transpose-gpu --print-errorlogs --timeout-multiplier 3 > "$OUT/tests.txt" 2>&1
    echo "tests rc=$?"; grep -E "^ *[0-9]+/|Ok:|Fail:" "$OUT/tests.txt"
    bench() {
        timeout 60 build-gpu/bench/clv-bench --device gpu --ops ${OPS:-box5,gaussian,transpose,resize} \
            --sizes ${SIZES:-3840x2160} --types u8 --channels 1,3 --reps 15 "$@" 2>&1
        timeout 30 build-gpu/bench/clv-bench --device gpu --ops pyramid \
            --sizes ${SIZES:-3840x2160} --types u8 --channels 1 --reps 15 "$@" 2>&1
    }
    for reg in all none; do
        echo "CLV_U8_REG=$reg"
        CLV_U8_REG=$reg bench | tee -a "$OUT/reg_$reg.txt" | grep -E "^op=|rror" | cut -c1-120
    done
    for py in ${PYS:-4 16 32}; do
        echo "CLV_U8_REG=all CLV_REG_PY=$py"
        CLV_REG_PY=$py OPS=box5,gaussian,resize bench | tee -a "$OUT/reg_py.txt" | grep -E "^op=|rror" | cut -c1-120
    done
    for reg in all none; do
        echo "CLV_U8_REG=$reg pyramid profile"
        CLV_U8_REG=$reg CLV_PROFILE=2 timeout 30 build-gpu/bench/clv-bench --device gpu --ops pyramid \
            --sizes 3840x2160 --types u8 --channels 1 --reps 3 --warmup 1 2>&1 | grep -iE "kernel|^op=" | tail -8
    done
    python3 bench/ptxinfo.py "$CLV_CACHE_DIR" > "$OUT/ptxinfo.txt" 2>&1
    echo "ptxinfo rc=$?"; grep -E "_reg|box_small|gauss_fused|pyr_down |transpose|resize_half|kernel " "$OUT/ptxinfo.txt" | sort | uniq | head -60
    ;;
wide)
    # issue 17: the u8 box and Gaussian as two wide passes through a u16
    # image (box_wh + box_wv, gauss_wh + gauss_wv; CLV_U8_REG=boxw,gaussw)
    # against the default choice and the local-memory/float kernels (none),
    # then at other rows per work-item of their second pass (PYS)
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    timeout 150 meson test -C build-gpu box-wide gaussian-wide box-fixed tune-env \
        --print-errorlogs --timeout-multiplier 3 > "$OUT/tests.txt" 2>&1
    echo "tests rc=$?"; grep -E "^ *[0-9]+/|Ok:|Fail:" "$OUT/tests.txt"
    wbench() {
        timeout 60 build-gpu/bench/clv-bench --device gpu --ops ${OPS:-box5,box31,gaussian} \
            --sizes ${SIZES:-1920x1080,3840x2160} --types u8 --channels 1,3 --reps 15 "$@" 2>&1
    }
    for reg in default boxw,gaussw none; do
        echo "CLV_U8_REG=$reg"
        if [ $reg = default ]; then wbench; else CLV_U8_REG=$reg wbench; fi \
            | tee -a "$OUT/wide_$reg.txt" | grep -E "^op=|rror" | cut -c1-120
    done
    for py in ${PYS:-2 8 16 32}; do
        echo "CLV_U8_REG=boxw,gaussw CLV_REG_PY=$py"
        CLV_U8_REG=boxw,gaussw CLV_REG_PY=$py SIZES=3840x2160 wbench | tee -a "$OUT/wide_py.txt" \
            | grep -E "^op=|rror" | cut -c1-120
    done
    CLV_U8_REG=boxw,gaussw CLV_PROFILE=2 timeout 30 build-gpu/bench/clv-bench --device gpu \
        --ops box5,box31,gaussian --sizes 3840x2160 --types u8 --channels 1,3 --reps 5 2>&1 \
        | grep -iE "kernel|^op=" | tail -36
    python3 bench/ptxinfo.py "$CLV_CACHE_DIR" > "$OUT/ptxinfo.txt" 2>&1
    echo "ptxinfo rc=$?"; grep -E "box_w|gauss_w|box_reg|box_small|box_rows|box_cols|gauss_fused" \
        "$OUT/ptxinfo.txt" | sort | uniq | head -40
    ;;
t3)
    # the u8 x 3 tile transpose moving 16-byte vectors (bench/variants/mk_t3.py)
    # against the tile as it is, three interleaved rounds, then its tests
    python3 bench/variants/mk_t3.py /tmp/t3 > /dev/null || exit 1
    kpath_rounds transpose 1280x720,1920x1080,3840x2160 3 cl /tmp/t3
    CLV_TUNE=generic CLV_KERNEL_PATH=/tmp/t3 CLV_CACHE_DIR=/tmp/t3c/t CLV_TEST_DATA=tests/data \
        timeout 120 build-gpu/tests/test_transpose > "$OUT/t3_test.txt" 2>&1
    echo "test_transpose (generic) on the variant rc=$? $(tail -1 "$OUT/t3_test.txt")"
    ;;
cvt)
    # the u8 kernels' int/float conversions by float arithmetic
    # (bench/variants/mk_cvt.py) against the conversion instructions, three
    # interleaved rounds, then the variant's tests on the GPU
    python3 bench/variants/mk_cvt.py /tmp/cvt > /dev/null || exit 1
    kpath_rounds ${CVT_OPS:-resize_up,box5,box31,gaussian} 1920x1080,3840x2160 1,3 cl /tmp/cvt
    export CLV_TUNE=gpu CLV_KERNEL_PATH=/tmp/cvt CLV_TEST_DATA=tests/data
    CLV_CACHE_DIR=/tmp/cvc/t1 timeout 120 build-gpu/tests/test_resize > "$OUT/cvt_resize.txt" 2>&1
    echo "resize rc=$? $(tail -1 "$OUT/cvt_resize.txt")"
    CLV_CACHE_DIR=/tmp/cvc/t2 CLV_U8_REG=gaussw timeout 120 build-gpu/tests/test_gaussian fixed > "$OUT/cvt_gauss.txt" 2>&1
    echo "gaussian wide rc=$? $(tail -1 "$OUT/cvt_gauss.txt")"
    CLV_CACHE_DIR=/tmp/cvc/t3 CLV_U8_REG=boxw timeout 120 build-gpu/tests/test_box wide > "$OUT/cvt_boxw.txt" 2>&1
    echo "box wide rc=$? $(tail -1 "$OUT/cvt_boxw.txt")"
    CLV_CACHE_DIR=/tmp/cvc/t4 timeout 120 build-gpu/tests/test_box fixed > "$OUT/cvt_boxf.txt" 2>&1
    echo "box fixed rc=$? $(tail -1 "$OUT/cvt_boxf.txt")"
    unset CLV_TUNE CLV_KERNEL_PATH
    ;;
ncu)
    # Nsight Compute on the 4K u8 kernels through ptxrun (NCU_CN: channels)
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    ptx_setup "$CLV_CACHE_DIR" || exit 1
    (cd /tmp && tar czf "$OUT/ptx.tgz" ptxdump)
    for cn in ${NCU_CN:-1}; do ptx_kernels "$cn"; done
    ;;
ncu2)
    # the box 5x5 register kernel at its own rows per work-item, and the
    # three-channel Gaussian's vertical pass, under Nsight Compute
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    ptx_setup "$CLV_CACHE_DIR" > /dev/null || exit 1
    (cd /tmp && tar czf "$OUT/ptx.tgz" ptxdump)
    ptx_prof box5 box_reg "CN=1 .*BR_KX=5" 960 2160/BR_PY b8294400 i3840 i3840 i2160 b8294400 i3840 x0.04
    ptx_prof gwv3 gauss_wv "CN=3 .*GW_RY=6" 1440 2160/GW_PY b49766400 i11520 i11520 i2160 \
        b24883200 i11520 f/tmp/w13.bin
    ;;
up2)
    # resize_up_reg with taps from two words (one channel) and no clamp,
    # against HEAD's kernel (/tmp/oldcl, from git), three interleaved
    # rounds; its tests; then both under Nsight Compute through ptxrun
    # (HEAD's cl/ travels as the untracked oldcl/: the device's copy has no .git)
    # (and an intermediate version as the untracked midcl/, when there is one)
    [ -d oldcl/cl ] || { echo "up2: no oldcl/cl"; exit 1; }
    rm -rf /tmp/oldcl /tmp/midcl && cp -r oldcl /tmp/oldcl
    vs="cl /tmp/oldcl/cl"
    if [ -d midcl/cl ]; then cp -r midcl /tmp/midcl; vs="cl /tmp/midcl/cl /tmp/oldcl/cl"; fi
    kpath_rounds resize_up 1920x1080,3840x2160 1,3 $vs
    CLV_CACHE_DIR=/tmp/u2c/t timeout 100 build-gpu/tests/test_resize > "$OUT/up2_test.txt" 2>&1
    echo "test_resize rc=$? $(tail -1 "$OUT/up2_test.txt")"
    CLV_TUNE=gpu CLV_CACHE_DIR=/tmp/u2c/t2 timeout 100 build-gpu/tests/test_resize > "$OUT/up2_test2.txt" 2>&1
    echo "test_resize CLV_TUNE=gpu rc=$? $(tail -1 "$OUT/up2_test2.txt")"
    for v in cl /tmp/oldcl/cl; do
        tag=new; [ "$v" = cl ] || tag=old
        echo "--- kernels of $v"
        CLV_KERNEL_PATH=$v ptx_setup /tmp/u2c/p$tag > /dev/null || exit 1
        ptx_prof "up1$tag" resize_up_reg "CN=1$" 1440 405 b8294400 i3840 i3840 i2160 \
            b18662400 i5760 i5760 i3240 f/tmp/tab.bin i8
        ptx_prof "up3$tag" resize_up_reg "CN=3$" 1440 405 b24883200 i11520 i3840 i2160 \
            b55987200 i17280 i5760 i3240 f/tmp/tab.bin i8
    done
    ;;
final8)
    # the eighth session's last call: the tests of what changed, part 1's
    # rows as the defaults now choose, rows per work-item of resize_up_reg,
    # the filter passes at 32x4, the upscaling resize beside OpenCV
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    SUITE_ONLY="^(resize|resize-gpu|tune-env|transpose-gpu|box-fixed|box-wide|gaussian-wide|pyramid-gpu|limits-identical)$" \
        suite_groups 3 110
    timeout 60 build-gpu/bench/clv-bench --device gpu --ops transpose,resize,resize_up,box5,box31,gaussian,pyramid \
        --sizes 1920x1080,3840x2160 --types u8 --channels 1,3 --reps 15 2>&1 | grep -E "^op=|rror" |
        awk '{print $1, $2, $4, $7}' | tee "$OUT/rows.txt"
    env_rounds CLV_REG_PY 2 resize_up default 4 16 | tee "$OUT/regpy.txt"
    env_rounds CLV_REG_LOCAL 2 box5,box31,gaussian default 32x4 | tee "$OUT/reglocal.txt"
    timeout 60 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --ops resize_up --sizes 1920x1080,3840x2160 --reps 10 \
        --markdown "$OUT/gpu_resize_up.md" > "$OUT/resize_up.txt" 2>&1
    echo "bench rc=$?"; grep -E "^\| resize_up" "$OUT/gpu_resize_up.md"
    ;;
tr)
    # the u8 transpose as the rows choose it (transpose_reg on 16x4 blocks
    # for one channel): its tests, three rounds of device times, then beside
    # OpenCV's OpenCL path
    timeout 120 meson test -C build-gpu transpose transpose-gpu transpose-generic \
        transpose-limits tune-env --print-errorlogs --timeout-multiplier 3 > "$OUT/tests.txt" 2>&1
    echo "tests rc=$?"; grep -E "^ *[0-9]+/|Ok:|Fail:" "$OUT/tests.txt"
    env_rounds CLV_U8_REG 3 transpose default
    timeout 150 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --ops transpose --sizes 1280x720,1920x1080,3840x2160 --reps 10 \
        --markdown "$OUT/gpu_transpose.md" > "$OUT/transpose.txt" 2>&1
    echo "bench rc=$?"; cat "$OUT/gpu_transpose.md"
    ;;
final17)
    # issue 17's last H200 run of 2026-12-04: the default kernel choice's
    # tests, the register kernels' own, then the filter rows side by side
    # with OpenCV at 1080p and 4K, then the sliding pyramid at fewer rows
    # per work-item
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    timeout 100 meson test -C build-gpu tune-env box-fixed resize-gpu transpose-gpu gaussian \
        pyramid resize transpose --print-errorlogs \
        --timeout-multiplier 3 > "$OUT/tests.txt" 2>&1
    echo "tests rc=$?"; grep -E "^ *[0-9]+/|Ok:|Fail:" "$OUT/tests.txt"
    timeout 170 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --ops transpose,resize,resize_up,box5,box31,gaussian,pyramid \
        --sizes 1920x1080,3840x2160 --reps 10 --markdown "$OUT/gpu_filters.md" \
        > "$OUT/filters.txt" 2>&1
    echo "bench rc=$?"; cat "$OUT/gpu_filters.md"
    for py in 1 2; do
        CLV_U8_REG=pyr CLV_REG_PY=$py timeout 20 build-gpu/bench/clv-bench --device gpu --ops pyramid \
            --sizes 3840x2160 --types u8 --channels 1 --reps 15 2>&1 | grep -E "^op=|rror" | sed "s/^/pyr_reg PY=$py /"
    done
    ;;
up)
    # issue 17: the u8 upscaling resize with 4 pixels of several rows per
    # work-item (resize_up_reg, CLV_U8_REG=up) against resize_bilinear, at
    # its default rows per work-item and at others (PYS)
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    timeout 100 meson test -C build-gpu resize-gpu resize --print-errorlogs \
        --timeout-multiplier 3 > "$OUT/tests.txt" 2>&1
    echo "tests rc=$?"; grep -E "^ *[0-9]+/|Ok:|Fail:" "$OUT/tests.txt"
    ubench() {
        timeout 60 build-gpu/bench/clv-bench --device gpu --ops resize_up \
            --sizes 1920x1080,3840x2160 --types u8 --channels 1,3 --reps 15 "$@" 2>&1
    }
    for reg in default up; do
        echo "CLV_U8_REG=$reg"
        if [ $reg = default ]; then ubench; else CLV_U8_REG=$reg ubench; fi \
            | tee -a "$OUT/up_$reg.txt" | grep -E "^op=|rror" | cut -c1-120
    done
    for py in ${PYS:-2 4 16}; do
        echo "up CLV_REG_PY=$py"
        CLV_U8_REG=up CLV_REG_PY=$py ubench | grep -E "^op=|rror" | cut -c1-120
    done
    ;;
shapes)
    # issue 17: the u8 register kernels and wide passes at explicit
    # work-group shapes (CLV_REG_LOCAL) against the driver's choice, 4K,
    # the upscaling resize's kernel on (CLV_U8_REG default + up)
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    for shape in driver ${SHAPES:-32x8 64x4 128x2 16x16 8x32 64x1 256x1}; do
        echo "CLV_REG_LOCAL=$shape"
        rl=$shape
        CLV_REG_LOCAL=$rl CLV_U8_REG=box1,pyr1,half,transpose1,boxw,gaussw,up timeout 60 \
            build-gpu/bench/clv-bench --device gpu --ops ${OPS:-transpose,resize,resize_up,box5,box31,gaussian} \
            --sizes ${SIZES:-3840x2160} --types u8 --channels 1,3 --reps 15 2>&1 \
            | tee -a "$OUT/shape_$shape.txt" | grep -E "^op=|rror" | cut -c1-110
        CLV_REG_LOCAL=$rl timeout 30 build-gpu/bench/clv-bench --device gpu --ops pyramid \
            --sizes ${SIZES:-3840x2160} --types u8 --channels 1 --reps 15 2>&1 \
            | grep -E "^op=|rror" | cut -c1-110
    done
    ;;
p4)
    # issue 17 part 4: the host's CPU through PoCL: the box filters' and the
    # pyramid's band kernels by worker count, then the quick side-by-side rows
    export POCL_AFFINITY=1
    for n in 1 16; do
        echo "POCL_MAX_PTHREAD_COUNT=$n"
        POCL_MAX_PTHREAD_COUNT=$n timeout 90 build-gpu/bench/clv-bench --device cpu --ops box5,box31,pyramid \
            --sizes 1920x1080 --types u8,f32 --channels 1,3 --reps 10 --warmup 2 2>&1 \
            | grep -E "^op=|rror" | cut -c1-110
    done
    timeout 300 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device cpu \
        --ocl-device :CPU: --no-python --quick --ops ${OPS:-box5,box31,resize,pyramid,gaussian,transpose} \
        --types u8 --channels 1,3 --markdown "$OUT/p4.md" > "$OUT/p4.txt" 2>&1
    echo "p4 rc=$?"; grep -E "^\||Load" "$OUT/p4.md"
    ;;
p4floor)
    # issue 17 part 4's rows still over 1.0 (halving u8, pyramid) on the
    # host's CPU: the launch floor (raw_empty: an empty kernel, one
    # work-item per compute unit, enqueue to clFinish) and the ops by worker
    # count; then the GPU's floor and its pyramid launch by launch
    export POCL_AFFINITY=1
    for n in 1 2 4 8 16; do
        echo "POCL_MAX_PTHREAD_COUNT=$n"
        POCL_MAX_PTHREAD_COUNT=$n timeout 60 build-gpu/bench/clv-bench --device cpu --mode chain \
            --ops resize --sizes 1920x1080 --types u8 --channels 1 --reps 15 2>&1 \
            | grep -E "raw_empty|raw_copy|op=resize|rror" | cut -c1-160
        POCL_MAX_PTHREAD_COUNT=$n timeout 90 build-gpu/bench/clv-bench --device cpu \
            --ops resize,pyramid,box5 --sizes 1920x1080 --types u8 --channels 1,3 --reps 15 2>&1 \
            | grep -E "^op=|rror" | cut -c1-120
    done
    timeout 60 build-gpu/bench/clv-bench --device gpu --mode chain --ops resize \
        --sizes 1920x1080 --types u8 --channels 1 --reps 15 2>&1 | grep -E "raw_|op=resize|rror" | cut -c1-160
    CLV_PROFILE=2 timeout 60 build-gpu/bench/clv-bench --device gpu --ops pyramid \
        --sizes 1920x1080,3840x2160 --reps 10 --warmup 3 > "$OUT/pyr_profile.txt" 2>&1
    grep -E "^op=" "$OUT/pyr_profile.txt"; grep kernel "$OUT/pyr_profile.txt" | tail -6
    timeout 200 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device cpu \
        --ocl-device :CPU: --no-python --quick --ops resize,pyramid \
        --types u8 --channels 1,3 --markdown "$OUT/p4floor.md" > "$OUT/p4floor.txt" 2>&1
    echo "compare rc=$?"; grep -E "^\||Load" "$OUT/p4floor.md"
    ;;
pyr2)
    # the pyramid's two and three steps per launch (pyr_reg2, pyr_reg3)
    # the register kernels the H200's row left off for more than one
    # channel (box_reg, gauss_reg, transpose_reg: timed before their row
    # ends went through one reflection), against the row's choice; three
    # interleaved rounds
    env_rounds CLV_U8_REG 3 box5,gaussian,transpose default \
        box,pyr,half,transpose1,boxw,gaussw,up,pyr3 box1,gauss,pyr,half,transpose1,boxw,gaussw,up,pyr3 \
        box1,pyr,half,transpose,boxw,gaussw,up,pyr3
    ;;
upv)
    # resize_up_reg's source taps from aligned words (bench/variants/mk_up.py)
    # against its byte loads, three interleaved rounds
    python3 bench/variants/mk_up.py /tmp/upv > /dev/null || exit 1
    kpath_rounds resize_up 1920x1080,3840x2160 1,3 cl /tmp/upv
    CLV_TUNE=gpu CLV_KERNEL_PATH=/tmp/upv CLV_CACHE_DIR=/tmp/upc/t CLV_TEST_DATA=tests/data \
        timeout 120 build-gpu/tests/test_resize > "$OUT/upv_test.txt" 2>&1
    echo "test_resize on the variant rc=$?"; tail -1 "$OUT/upv_test.txt"
    ;;
split)
    # the default kernels' time launch by launch at 4K (box, Gaussian,
    # transpose, resize_up) and their registers and spills (ptxinfo)
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    CLV_PROFILE=2 timeout 60 build-gpu/bench/clv-bench --device gpu \
        --ops box5,box31,gaussian,transpose,resize_up --sizes 3840x2160 --types u8 --channels 1,3 \
        --reps 2 --warmup 1 2>&1 | grep -iE "kernel|^op=" | cut -c1-60 | head -90
    python3 bench/ptxinfo.py "$CLV_CACHE_DIR" > "$OUT/ptxinfo.txt" 2>&1
    echo "ptxinfo rc=$?"; grep -E "box_w|gauss_w|box_reg|transpose|resize_up" "$OUT/ptxinfo.txt" |
        sort | uniq | head -40
    ;;
wpy)
    # the wide pairs' second pass (box_wv, gauss_wv) at other rows per
    # work-item (CLV_REG_PY, which box_reg takes too), two interleaved rounds
    env_rounds CLV_REG_PY 2 box5,box31,gaussian default 2 4 8 16
    ;;
bwv)
    # box_wv's rows 4 at a time, loads first (bench/variants/mk_boxwv.py)
    # against the kernel as it is, three interleaved rounds, then the box's
    # wide test on the variant
    python3 bench/variants/mk_boxwv.py /tmp/bwv > /dev/null || exit 1
    kpath_rounds box5,box31 1920x1080,3840x2160 1,3 cl /tmp/bwv
    CLV_TUNE=gpu CLV_U8_REG=boxw CLV_KERNEL_PATH=/tmp/bwv CLV_CACHE_DIR=/tmp/bwc/t \
        CLV_TEST_DATA=tests/data timeout 120 build-gpu/tests/test_box wide > "$OUT/bwv_test.txt" 2>&1
    echo "test_box wide on the variant rc=$?"; tail -1 "$OUT/bwv_test.txt"
    ;;
box5)
    # part 1's box 5x5 and pyramid rows with the current defaults (short)
    timeout 60 build-gpu/bench/clv-bench --device gpu --ops box5,pyramid --sizes 1920x1080,3840x2160 \
        --types u8 --channels 1 --reps 15 2>&1 | grep -E "^op=|rror" | cut -c1-120
    ;;
s4)
    # this session's pending device runs in one call: pyr2, the twin (its
    # OpenCL column was never timed on the H200), then p4floor
    # (the twin's binaries outside $OUT: a call brings back 8 files at most)
    bash "$0" pyr2
    TWIN_DIR=/tmp/clv-twin bash "$0" twin
    bash "$0" p4floor
    ;;
next17)
    # issue 17's two pending device runs in one call: fbfused, then p4 (each
    # writes its own files under $OUT; about 8 minutes together)
    bash "$0" fbfused
    bash "$0" p4
    ;;
box9)
    # box_reg's interior in packed 16-bit lanes, unrolled (ninth session)
    # against HEAD's (the untracked oldcl/, from git archive), three
    # interleaved rounds; the new kernel on three channels too (CLV_U8_REG=all
    # lets box_reg take them); its tests; then Nsight Compute (ncu2)
    [ -d oldcl/cl ] || { echo "box9: no oldcl/cl"; exit 1; }
    rm -rf /tmp/oldcl && cp -r oldcl /tmp/oldcl
    kpath_rounds box5 1920x1080,3840x2160 1,3 cl /tmp/oldcl/cl | tee "$OUT/box9.txt"
    env_rounds CLV_U8_REG 2 box5 default all | tee "$OUT/box9all.txt"
    timeout 150 meson test -C build-gpu box box-fixed box-wide --print-errorlogs \
        --timeout-multiplier 3 > "$OUT/box9_tests.txt" 2>&1
    echo "tests rc=$?"; grep -E "^ *[0-9]+/|Ok:|Fail:" "$OUT/box9_tests.txt"
    timeout 200 bash "$0" ncu2
    ;;
wide9)
    # the wide passes' interiors straight (gauss_wv, box_wv) and without the
    # clamps (gauss_wh too) against HEAD's (oldcl/), three interleaved
    # rounds; box_reg on 3 and 4 channels (CLV_U8_REG=all) and at other rows
    # per work-item; the tests of what changed; gauss_wv under Nsight Compute
    [ -d oldcl/cl ] || { echo "wide9: no oldcl/cl"; exit 1; }
    rm -rf /tmp/oldcl && cp -r oldcl /tmp/oldcl
    kpath_rounds box5,box31,gaussian 1920x1080,3840x2160 1,3 cl /tmp/oldcl/cl | tee "$OUT/wide9.txt"
    for round in 1 2; do
        for v in default all; do
            u=$v; [ "$v" = default ] && u=
            CLV_U8_REG=$u timeout 60 build-gpu/bench/clv-bench --device gpu --ops box5 \
                --sizes 1920x1080,3840x2160 --types u8 --channels 3,4 --reps 15 2>&1 |
                grep -E "^op=|rror" | awk -v r=$round -v v=$v '{print r, v, $1, $2, $4, $7}'
        done
    done | tee "$OUT/box9cn.txt"
    env_rounds CLV_REG_PY 2 box5 default 4 16 | tee "$OUT/box9py.txt"
    timeout 200 meson test -C build-gpu gaussian-wide box-wide box-fixed --print-errorlogs \
        --timeout-multiplier 3 > "$OUT/wide9_tests.txt" 2>&1
    echo "tests rc=$?"; grep -E "^ *[0-9]+/|Ok:|Fail:" "$OUT/wide9_tests.txt"
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    ptx_setup "$CLV_CACHE_DIR" > /dev/null || exit 1
    ptx_prof gwv3 gauss_wv "CN=3 .*GW_RY=6" 1440 2160/GW_PY b49766400 i11520 i11520 i2160 \
        b24883200 i11520 f/tmp/w13.bin
    ;;
final9)
    # the ninth session's last call: part 1's rows as the defaults now
    # choose (box_reg for every channel count), the filters beside OpenCV,
    # then the tests of what changed
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    timeout 70 build-gpu/bench/clv-bench --device gpu --ops transpose,resize,resize_up,box5,box31,gaussian,pyramid \
        --sizes 1920x1080,3840x2160 --types u8 --channels 1,3 --reps 15 2>&1 | grep -E "^op=|rror" |
        awk '{print $1, $2, $4, $7}' | tee "$OUT/rows.txt"
    timeout 120 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --ops box5,box31,gaussian --sizes 1920x1080,3840x2160 --reps 10 \
        --markdown "$OUT/gpu_filters.md" > "$OUT/filters.txt" 2>&1
    echo "bench rc=$?"; cat "$OUT/gpu_filters.md"
    SUITE_ONLY="^(box|box-fixed|box-wide|gaussian|gaussian-wide|tune-env)$" suite_groups 3 200
    ;;
boxf10)
    # the f32 box's small windows in registers (box_regf, CLV_U8_REG's boxf)
    # against box_small, three interleaved rounds; its rows per work-item;
    # box 31x31 f32 launch by launch; the tests; the box rows beside OpenCV
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    for round in 1 2 3; do
        for v in box,boxw box,boxw,boxf; do
            CLV_U8_REG=$v f32_bench box5 1920x1080,3840x2160 1,3 $v
        done
    done | tee "$OUT/boxf.txt"
    for py in 4 16; do
        CLV_REG_PY=$py f32_bench box5 1920x1080,3840x2160 1,3 $py
    done | tee "$OUT/boxf_py.txt"
    f32_box31_launches
    SUITE_ONLY="^(box|box-fixed-f32)$" suite_groups 2 200
    box_compare
    ;;
last10)
    # the tests of the packed first passes (box_wh, gauss_wh) and part 1's
    # filter rows as the defaults now choose
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    SUITE_ONLY="^(box-wide|gaussian-wide|box-fixed|box-wide-f32)$" suite_groups 4 150
    timeout 60 build-gpu/bench/clv-bench --device gpu --ops box5,box31,gaussian \
        --sizes 3840x2160 --types u8 --channels 1,3 --reps 15 2>&1 | grep -E "^op=|rror" |
        awk '{print $1, $2, $4, $7}' | tee "$OUT/rows.txt"
    ;;
gwh)
    # gauss_wh with its loaded values packed 4 to a word (the untracked
    # varcl/) against cl/, three interleaved rounds
    [ -d varcl/cl ] || { echo "gwh: no varcl/cl"; exit 1; }
    rm -rf /tmp/varcl && cp -r varcl /tmp/varcl
    kpath_rounds gaussian 1920x1080,3840x2160 1,3 cl /tmp/varcl/cl | tee "$OUT/gwh.txt"
    ;;
last11)
    # the eleventh session's last call: part 1's rows at 4K (three rounds)
    # and the filter rows beside OpenCV's OpenCL path, as the defaults now
    # choose
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    for round in 1 2 3; do
        part1_rows
    done | tee "$OUT/part1.txt"
    gpu_compare box5,box31,gaussian,bilateral filters
    ;;
strm)
    # box_whf streaming its span past 48 values a side (f32 and u16 box 31x31
    # on four channels, which took box_rows + box_cols before), and the rows
    # that keep the held span, two rounds
    export CLV_CACHE_DIR=/tmp/strm
    for round in 1 2; do
        for t in f32 u16; do
            timeout 100 build-gpu/bench/clv-bench --device gpu --ops box31 \
                --sizes 1920x1080,3840x2160 --types $t --channels 1,3,4 --reps 15 2>&1 |
                grep -E "^op=|rror" | awk -v r=$round '{print r, $1, $2, $3, $4, $7}'
        done
    done | tee "$OUT/strm.txt"
    SUITE_ONLY="^(box-wide-f32|box-wide-u16)$" suite_groups 2 300
    ;;
u16x)
    # u16 through the f32 box's and Gaussian's kernels (box_regf, box_whf +
    # box_wvf, gauss_whf + gauss_wvf) against the kernels before (box_small,
    # box_rows + box_cols, gauss_fused: the default words less boxf, boxfw
    # and gaussfw), three interleaved rounds; the tests of those kernels
    export CLV_CACHE_DIR=/tmp/u16x
    for round in 1 2 3; do
        for v in default box,pyr1,half,transpose1,boxw,gaussw,up,pyr31; do
            u=$v; [ "$v" = default ] && u=
            CLV_U8_REG=$u timeout 120 build-gpu/bench/clv-bench --device gpu \
                --ops box5,box31,gaussian --sizes 1920x1080,3840x2160 --types u16 \
                --channels 1,3,4 --reps 15 2>&1 | grep -E "^op=|rror" |
                awk -v r=$round -v v="${v%%,*}" '{print r, v, $1, $2, $4, $7}'
        done
    done | tee "$OUT/u16x.txt"
    SUITE_ONLY="^(box-fixed-u16|box-wide-u16|gaussian-wide-u16|gaussian-wide-f32|box-fixed-f32|box-wide-f32|gaussian-wide|box-wide)$" \
        suite_groups 4 400
    ;;
bil4)
    # the bilateral on four channels (3.3 times three channels' time in
    # sweep11): outputs per work-item, registers, launch by launch
    export CLV_CACHE_DIR=/tmp/bil4 PATH=$PATH:/usr/local/cuda/bin
    for v in 1 2 4; do
        CLV_REG_PY=$v timeout 60 build-gpu/bench/clv-bench --device gpu --ops bilateral \
            --sizes 3840x2160 --types u8 --channels 3,4 --reps 15 2>&1 |
            grep -E "^op=|rror" | awk -v v=$v '{print v, $1, $2, $4, $7}'
    done | tee "$OUT/bil4.txt"
    CLV_PROFILE=2 timeout 60 build-gpu/bench/clv-bench --device gpu --ops bilateral \
        --sizes 3840x2160 --types u8 --channels 4 --reps 2 --warmup 1 2>&1 | grep -iE "kernel|^op="
    python3 bench/ptxinfo.py /tmp/bil4 --kernels bil_fixed,bil_tiled 2>&1 | tee "$OUT/ptx.txt"
    ;;
sweep11)
    # every filter and resampling op in every type and channel count at
    # 1080p and 4K as the defaults choose (device ms, medians of 15), to find
    # the cases that fall off the fast kernels
    export CLV_CACHE_DIR=/tmp/sweep11
    for t in u8 u16 f32; do
        timeout 250 build-gpu/bench/clv-bench --device gpu \
            --ops transpose,resize,resize_up,box5,box31,gaussian,bilateral \
            --sizes 1920x1080,3840x2160 --types $t --channels 1,3,4 --reps 15 2>&1 |
            grep -E "^op=|rror" | awk '{print $1, $2, $3, $4, $7}'
    done | tee "$OUT/sweep11.txt"
    ;;
gfw11)
    # the f32 Gaussian's wide passes (gauss_whf + gauss_wvf, CLV_U8_REG=all
    # adds them) against gauss_fused (the default rows), three interleaved
    # rounds; gauss_wvf's rows; registers; the test
    export CLV_CACHE_DIR=/tmp/gfw11 PATH=$PATH:/usr/local/cuda/bin
    for round in 1 2 3; do
        for v in default all; do
            u=$v; [ "$v" = default ] && u=
            CLV_U8_REG=$u f32_bench gaussian 1920x1080,3840x2160 1,3,4 $v
        done
    done | tee "$OUT/gfw11.txt"
    for round in 1 2; do
        for v in 4 16; do
            CLV_U8_REG=all CLV_REG_PY=$v f32_bench gaussian 1920x1080,3840x2160 1,3,4 py$v
        done
    done | tee "$OUT/gfw11py.txt"
    python3 bench/ptxinfo.py /tmp/gfw11 --kernels gauss_whf,gauss_wvf 2>&1 | tee "$OUT/ptx.txt"
    SUITE_ONLY="^(gaussian-wide-f32)$" suite_groups 1 300
    ;;
look11)
    # work-group shapes of the register kernels and wide passes again (since
    # box_wh's packing and box_wv's 8 rows; two interleaved rounds), part
    # 1's 4K rows launch by launch, the f32 box on four channels
    export CLV_CACHE_DIR=/tmp/look11
    env_rounds CLV_REG_LOCAL 2 box5,box31,gaussian,resize_up default driver 32x4 16x16 32x8 \
        64x2 128x1 | tee "$OUT/shapes11.txt"
    for a in "box5,box31,gaussian,resize_up,transpose 3" "pyramid,box5,box31,gaussian 1"; do
        set -- $a
        CLV_PROFILE=2 timeout 60 build-gpu/bench/clv-bench --device gpu --ops $1 \
            --sizes 3840x2160 --types u8 --channels $2 --reps 2 --warmup 1 2>&1 |
            grep -iE "kernel|^op=" | cut -c1-90
    done | tee "$OUT/launches11.txt"
    timeout 60 build-gpu/bench/clv-bench --device gpu --ops box5,box31,gaussian \
        --sizes 1920x1080,3840x2160 --types f32 --channels 4 --reps 15 2>&1 |
        grep -E "^op=|rror" | awk '{print $1, $2, $4, $7}' | tee "$OUT/f32cn4.txt"
    ;;
tests11)
    # the tests of this session's changes (bil_fixed's outputs per
    # work-item, box_wv's rows, box_wh's reach) with the final defaults
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    SUITE_ONLY="^(bilateral|bilateral-fixed|box|box-wide|box-fixed|box-wide-f32|tune-env)$" \
        suite_groups 4 500
    ;;
final11)
    # the eleventh session's last timing call: part 1's rows at 4K as the
    # defaults now choose (three rounds); box 31x31, 5x5 and the Gaussian on
    # four channels; the bilateral and box rows beside OpenCV's OpenCL path
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    for round in 1 2 3; do
        part1_rows
        part1_flow_rows
    done | tee "$OUT/part1.txt"
    timeout 60 build-gpu/bench/clv-bench --device gpu --ops box5,box31,gaussian \
        --sizes 1920x1080,3840x2160 --types u8 --channels 4 --reps 15 2>&1 |
        grep -E "^op=|rror" | awk '{print $1, $2, $4, $7}' | tee "$OUT/cn4.txt"
    gpu_compare bilateral,box31 bil
    ;;
wv11)
    # box_wv's rows per work-item (box 31x31 u8), 8 against the default 16,
    # three interleaved rounds, 720p to 4K
    export CLV_CACHE_DIR=/tmp/wv11
    for round in 1 2 3; do
        for v in default 8; do
            u=$v; [ "$v" = default ] && u=
            CLV_REG_PY=$u timeout 60 build-gpu/bench/clv-bench --device gpu --ops box31 \
                --sizes 1280x720,1920x1080,3840x2160 --types u8 --channels 1,3,4 --reps 15 2>&1 |
                grep -E "^op=|rror" | awk -v r=$round -v v="$v" '{print r, v, $1, $2, $4, $7}'
        done
    done | tee "$OUT/wv11.txt"
    ;;
py11)
    # rows per work-item of the register kernels and wide passes, again,
    # since their interiors were unrolled (ninth and tenth sessions): u8 box
    # 5x5 and 31x31, Gaussian, upscaling, pyramid under CLV_REG_PY, two
    # interleaved rounds; the f32 bilateral's outputs per work-item
    export CLV_CACHE_DIR=/tmp/py11
    # (the pyramid takes one channel: a 3-channel pyramid ends clv-bench)
    env_rounds CLV_REG_PY 2 box5,box31,gaussian,resize_up default 2 4 8 16 32 |
        tee "$OUT/py11.txt"
    for round in 1 2; do
        for v in default 2 4 8 16; do
            u=$v; [ "$v" = default ] && u=
            CLV_REG_PY=$u timeout 60 build-gpu/bench/clv-bench --device gpu --ops pyramid \
                --sizes 1920x1080,3840x2160 --types u8 --channels 1 --reps 15 2>&1 |
                grep -E "^op=|rror" | awk -v r=$round -v v="$v" '{print r, v, $1, $2, $4, $7}'
            CLV_REG_PY=$u f32_bench bilateral 1920x1080,3840x2160 1 $v
        done
    done | tee "$OUT/pyr_bilf32.txt"
    ;;
tsw13)
    # the tile transpose's groups in strips 4 to 32 tiles wide, each strip
    # top to bottom, and tiles of 64x16 and 16x64 pixels
    # (bench/variants/mk_tsh.py, the last argument a strip width; cl/ has
    # 32x32 tiles in rows): u8 x 3 at 1080p and 4K, three interleaved
    # rounds; f32 x 1 and x 3 at 4K, two rounds; then test_transpose
    # (generic: the tile) on strips of 8
    mkdir -p /tmp/tsw
    for v in "32 32 4" "32 32 8" "32 32 16" "32 32 32" "64 16 0" "16 64 0" "64 16 16" "16 64 8"; do
        set -- $v
        python3 bench/variants/mk_tsh.py /tmp/tsw/$1x$2s$3 $v > /dev/null || exit 1
    done
    kpath_rounds transpose 1920x1080,3840x2160 3 cl /tmp/tsw/32x32s4 /tmp/tsw/32x32s8 \
        /tmp/tsw/32x32s16 /tmp/tsw/32x32s32 /tmp/tsw/64x16s0 /tmp/tsw/16x64s0 \
        /tmp/tsw/64x16s16 /tmp/tsw/16x64s8 | tee "$OUT/tsw.txt"
    for round in 1 2; do
        for v in cl /tmp/tsw/32x32s8 /tmp/tsw/32x32s16 /tmp/tsw/64x16s0 /tmp/tsw/16x64s0; do
            CLV_KERNEL_PATH=$v CLV_CACHE_DIR=/tmp/kpc/$(echo $v | tr / _) \
                f32_bench transpose 3840x2160 1,3 $(echo $v | tr / _)
        done
    done | tee "$OUT/tsw_f32.txt"
    CLV_TUNE=generic CLV_KERNEL_PATH=/tmp/tsw/32x32s8 CLV_CACHE_DIR=/tmp/tswc \
        CLV_TEST_DATA=tests/data timeout 120 build-gpu/tests/test_transpose \
        > "$OUT/tsw_test.txt" 2>&1
    echo "test_transpose (generic), strips of 8 rc=$? $(tail -1 "$OUT/tsw_test.txt")"
    ;;
rgb13)
    # transpose_rgb (u8 x 3, whole-word stores; CLV_U8_REG's transpose for
    # three channels) against the tile (the default, transpose1), three
    # interleaved rounds; then test_transpose with CLV_TUNE=gpu
    export CLV_CACHE_DIR=/tmp/rgb13
    rgb_rounds
    ;;
upf15)
    # resize_bilinear with its 4-row fast path (cl, since b5924b7) against
    # the row loop alone (bench/variants/mk_upf.py loop), f32 upscaling at
    # 1080p and 4K, one and three channels, three interleaved rounds; then
    # test_resize under CLV_TUNE=generic
    python3 bench/variants/mk_upf.py loop /tmp/upl > /dev/null || exit 1
    for round in 1 2 3; do
        for v in /tmp/upl cl; do
            CLV_KERNEL_PATH=$v CLV_CACHE_DIR=/tmp/kpc/$(echo $v | tr / _) \
                f32_bench resize_up 1920x1080,3840x2160 1,3 "$v"
        done
    done | tee "$OUT/upf.txt"
    CLV_TUNE=generic CLV_TEST_DATA=tests/data timeout 200 \
        build-gpu/tests/test_resize > "$OUT/upf_test.txt" 2>&1
    echo "test_resize (generic) rc=$? $(tail -1 "$OUT/upf_test.txt")"
    ;;
s18h)
    # resize_half4 (f32 and u16 exact halving, 4 pixels of RH_PY rows per
    # work-item in 4-value vectors) against resize_bilinear, which the GPU
    # rows gave them before: device ms, medians of 15, three interleaved
    # rounds, rows per work-item 2 (its default), 1 and 4; then test_resize
    # with every GPU kernel on (CLV_TUNE=gpu)
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    for round in 1 2 3; do
        for v in bilinear halfw halfw:1 halfw:4; do
            case $v in
            bilinear) set -- CLV_U8_REG=none ;;
            halfw) set -- CLV_U8_REG=halfw ;;
            *) set -- CLV_U8_REG=halfw CLV_REG_PY="${v#halfw:}" ;;
            esac
            env "$@" timeout 60 build-gpu/bench/clv-bench --device gpu --ops resize \
                --sizes 1920x1080,3840x2160 --types f32,u16 --channels 1,3 --reps 15 2>&1 |
                grep -E "^op=|rror" | awk -v r=$round -v v=$v '{print r, v, $2, $3, $4, $7}'
        done
    done | tee "$OUT/halfw.txt"
    CLV_TUNE=gpu timeout 60 build-gpu/tests/test_resize > "$OUT/test_resize_gpu.txt" 2>&1
    echo "test_resize CLV_TUNE=gpu rc=$?"; grep -E "FAIL|passed" "$OUT/test_resize_gpu.txt" | tail -5
    ;;
s18f)
    # the rows above part 1's 0.5 against OpenCV's OpenCL path: the copy
    # floor of their bytes (chain mode's raw_copy, f32 one channel, 1080p and
    # 4K, beside the ops' device times), then the one-channel transposes and
    # resizes beside OpenCV's OpenCL path in three interleaved rounds (how
    # much OpenCV's own wall moves between rounds)
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    timeout 120 build-gpu/bench/clv-bench --device gpu --mode chain --sizes 1920x1080,3840x2160 \
        --types f32 --channels 1 --ops transpose,resize,resize_up --reps 11 > "$OUT/chainf.txt" 2>&1
    echo "chain rc=$?"; grep -vE "^#" "$OUT/chainf.txt" | cut -c1-250
    gpu_compare transpose,resize,resize_up f32 --types u8,f32 --channels 1 --rounds 3
    grep -E "^round" "$OUT/compare_f32.txt"
    gpu_compare transpose,resize,resize_up,box5,box31,gaussian,pyramid 720 --sizes 1280x720
    ;;
s18)
    # the eighteenth session's H200 table in one call: part 1's rows at 4K
    # (two rounds, with the pyramid and Farneback), the chain mode, the light
    # ops beside OpenCV's CPU and OpenCL paths at 1080p and 4K, then the
    # heavy ops at 1080p; $OUT packed into one archive (8 files come back)
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    part1_twice
    chain_light
    gpu_compare transpose,resize,resize_up,box5,box31,gaussian,pyramid light
    gpu_compare bilateral,farneback,corners,lk,tonemap,grid16 heavy --sizes 1920x1080 --reps 5
    tar czf /tmp/s18.tgz -C "$OUT" . && rm -rf "${OUT:?}"/* && mv /tmp/s18.tgz "$OUT/"
    ;;
s17a)
    # the seventeenth session's first timing call: part 1's rows at 4K (two
    # rounds, with the pyramid and Farneback), the chain mode, clv-bench's
    # wall on the profiling context against the unprofiled one (s16w's three
    # rounds), then the light ops beside OpenCV's CPU and OpenCL paths
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    part1_twice
    chain_light
    wall_rounds > "$OUT/wall.txt"
    echo "wall rounds: $(wc -l < "$OUT/wall.txt") lines"
    gpu_compare transpose,resize,resize_up,box5,box31,gaussian,pyramid light
    ;;
s16w)
    # the sixteenth session: clv-bench's wall on the profiling context (the
    # method before 2026-12-07, --wall-context profiled) against the
    # unprofiled one (now), three interleaved rounds, then the light ops
    # beside OpenCV's OpenCL path as compare.py now measures them
    wall_rounds | tee "$OUT/wall.txt"
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    gpu_compare transpose,resize,resize_up,box5,box31,gaussian,pyramid light
    ;;
s16b)
    # the sixteenth session, part 4 on the host's CPU through PoCL: the
    # upscaling resize with and without resize_strip_vec's prefetches
    # (mk_nopf.py), three interleaved rounds, then every op's quick
    # side-by-side rows beside OpenCV's CPU code (no PoCL variables)
    python3 bench/variants/mk_nopf.py /tmp/nopf > /dev/null || exit 1
    for round in 1 2 3; do
        for v in cl/ /tmp/nopf/; do
            CLV_KERNEL_PATH=$v timeout 60 build-gpu/bench/clv-bench --device cpu --ops resize_up \
                --sizes 1920x1080,3840x2160 --types u8,f32 --channels 1,3 --reps 10 2>&1 |
                grep -E "^op=|rror" | awk -v r=$round -v v="$v" '{print r, v, $1, $2, $3, $4, $7}'
        done
    done | tee "$OUT/pf.txt"
    timeout 420 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device cpu \
        --ocl-device :CPU: --no-python --no-ocl --no-pocl-affinity --quick \
        --ops transpose,resize,resize_up,box5,box31,gaussian,pyramid,bilateral,farneback,corners,lk \
        --types u8 --channels 1,3 --markdown "$OUT/p4.md" > "$OUT/p4.txt" 2>&1
    echo "p4 rc=$?"; grep -E "^\||Load|load" "$OUT/p4.md"
    ;;
t15a)
    # the fifteenth session's table, first call: part 1's rows at 4K (two
    # rounds, with the pyramid and Farneback), then the light ops beside
    # OpenCV's CPU and OpenCL paths at 1080p and 4K (u8 1/3, f32 1)
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    part1_twice
    gpu_compare transpose,resize,resize_up,box5,box31,gaussian,pyramid light
    ;;
t15b)
    # second call: the heavy ops beside OpenCV at 1080p, then the chain
    # mode (part 2's host cost per op)
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    timeout 330 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --ops bilateral,farneback,corners,lk,tonemap,grid16 \
        --sizes 1920x1080 --reps 5 --markdown "$OUT/gpu_heavy.md" > "$OUT/heavy.txt" 2>&1
    echo "heavy rc=$?"; grep -E "^\| [a-z]" "$OUT/gpu_heavy.md" | cut -d'|' -f2-7,11,13
    timeout 120 build-gpu/bench/clv-bench --device gpu --mode chain --sizes 1920x1080 \
        --ops resize,transpose,box5,gaussian --reps 11 > "$OUT/chain.txt" 2>&1
    echo "chain rc=$?"; grep -vE "^#" "$OUT/chain.txt" | tail -12
    ;;
last14)
    # the fourteenth session's last call: the transposes beside OpenCV's
    # OpenCL path (transpose_rgb now the GPU rows' u8 x 3 kernel), then part
    # 1's rows at 4K as the defaults choose
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    gpu_compare transpose tr
    round=1 part1_rows | tee "$OUT/part1.txt"
    ;;
pyc14)
    # the pyramid as it is (cl: level 0's copy as two 4-byte stores per
    # source row) against one 8-byte store (mk_pyc.py store8) and against the
    # row loops unrolled twice (mk_pyc.py unroll2), three interleaved rounds;
    # then the pyramid and transpose tests as the GPU row chooses
    python3 bench/variants/mk_pyc.py store8 /tmp/pyc > /dev/null || exit 1
    python3 bench/variants/mk_pyc.py unroll2 /tmp/pyu > /dev/null || exit 1
    kpath_rounds pyramid 1280x720,1920x1080,3840x2160 1 cl /tmp/pyc /tmp/pyu | tee "$OUT/pyc.txt"
    timeout 200 meson test -C build-gpu --no-rebuild pyramid pyramid-gpu transpose transpose-gpu \
        --print-errorlogs > "$OUT/pyc_tests.txt" 2>&1
    echo "tests rc=$?"; grep -E "^ *[0-9]+/[0-9]+ |Ok:|Fail:" "$OUT/pyc_tests.txt"
    ;;
s14)
    # the fourteenth session's first call: rgb13 (transpose_rgb against the
    # tile, three interleaved rounds, then test_transpose under CLV_TUNE=gpu),
    # then part 1's rows at 4K with the pyramid (4K) and Farneback (1080p),
    # two rounds, as the defaults choose
    export CLV_CACHE_DIR=/tmp/s14
    rgb_rounds
    part1_twice
    ;;
copy13)
    # the floor under the u8 x 3 rows on this card: chain mode's raw_copy
    # (a uint4 copy of the image's bytes) beside transpose, box 5x5 and the
    # Gaussian, 1080p and 4K, u8 and f32, one and three channels; then
    # part 1's rows at 4K, two rounds
    export CLV_CACHE_DIR=/tmp/c13
    timeout 200 build-gpu/bench/clv-bench --device gpu --mode chain \
        --ops transpose,box5,gaussian --sizes 1920x1080,3840x2160 --types u8,f32 \
        --channels 1,3 --reps 7 > "$OUT/chain.txt" 2>&1
    echo "chain rc=$?"
    for round in 1 2; do
        part1_rows
    done | tee "$OUT/part1.txt"
    ;;
tsh13)
    # the tile transpose on bigger tiles (more bytes in flight per
    # work-group before its barrier): CLV_TR_TILE 16 / 32 (default) / 64,
    # u8 x 1 (transpose_reg: a control) and x 3, three interleaved rounds;
    # f32 x 1 at 64, three rounds; oblong tiles (bench/variants/mk_tsh.py;
    # the host's launch unchanged, so some groups return at once); then
    # test_transpose (generic: the tile) at 64. CLV_TR_TILE was removed
    # after this ran (no gain): run it at 68cb78a.
    export CLV_CACHE_DIR=/tmp/tshc
    env_rounds CLV_TR_TILE 3 transpose default 16 64 | tee "$OUT/tsh.txt"
    for round in 1 2 3; do
        for v in default 64; do
            CLV_TR_TILE=$([ $v = default ] || echo $v) \
                f32_bench transpose 1920x1080,3840x2160 1 $v
        done
    done | tee "$OUT/tsh_f32.txt"
    mkdir -p /tmp/tsw
    vs="cl"
    for v in "64 32 0" "32 64 0" "128 64 0"; do
        set -- $v
        python3 bench/variants/mk_tsh.py /tmp/tsw/$1x$2s$3 $v > /dev/null || exit 1
        vs="$vs /tmp/tsw/$1x$2s$3"
    done
    kpath_rounds transpose 1920x1080,3840x2160 3 $vs | tee "$OUT/tsh_var.txt"
    CLV_TUNE=generic CLV_TR_TILE=64 CLV_TEST_DATA=tests/data timeout 120 \
        build-gpu/tests/test_transpose > "$OUT/tsh_test.txt" 2>&1
    echo "test_transpose (generic) CLV_TR_TILE=64 rc=$? $(tail -1 "$OUT/tsh_test.txt")"
    ;;
pl12)
    # bil_fixed's two- and four-channel tile as a plane per channel (cl/)
    # against interleaved pixels (the untracked varcl/cl): test_bilateral
    # fixed, then 4K u8 with 4, 1 and 3 channels, two interleaved rounds
    [ -d varcl/cl ] || { echo "pl12: no varcl/cl"; exit 1; }
    rm -rf /tmp/varcl && cp -r varcl /tmp/varcl
    export CLV_CACHE_DIR=/tmp/pl12
    bil_tests CLV_TUNE gpu | tee "$OUT/tests.txt"
    for round in 1 2; do
        for v in cl /tmp/varcl/cl; do
            CLV_KERNEL_PATH=$v CLV_CACHE_DIR=/tmp/kpc/$(echo $v | tr / _) timeout 60 \
                build-gpu/bench/clv-bench --device gpu --ops bilateral --sizes 3840x2160 \
                --types u8 --channels 4,1,3 --reps 11 2>&1 | grep -E "^op=|rror" |
                awk -v r=$round -v v=$v '{print r, v, $1, $2, $4, $7}'
        done
    done | tee "$OUT/pl.txt"
    ;;
bpy12)
    # bil_fixed's outputs per work-item again now that u8/u16 taps are one
    # instruction shorter (CLV_REG_PY 1, 2 and 4 against the default, 1 and
    # 3 channels, two rounds); then test_bilateral fixed at 2 and 4
    export CLV_CACHE_DIR=/tmp/bpy
    env_rounds CLV_REG_PY 2 bilateral default 1 2 4 | tee "$OUT/bpy.txt"
    bil_tests CLV_REG_PY 2 4 | tee "$OUT/tests.txt"
    ;;
lut12)
    # bil_fixed (bilateral 19x19, u8): the tile of integer types staged
    # times the range factor (cl/ against the kernels before it, the
    # untracked varcl/cl) and the range tables for one channel (CLV_BIL_LUT
    # 0 to 3); the tests with the default tables and all three first; SASS
    # instructions. The tables and CLV_BIL_LUT were removed after this ran
    # (no gain): run it at dac5520.
    [ -d varcl/cl ] || { echo "lut12: no varcl/cl"; exit 1; }
    rm -rf /tmp/varcl && cp -r varcl /tmp/varcl
    export CLV_CACHE_DIR=/tmp/bill PATH=$PATH:/usr/local/cuda/bin
    timeout 200 meson test -C build-gpu bilateral-fixed bilateral-lut --print-errorlogs \
        > "$OUT/meson.txt" 2>&1
    grep -E "^ *[0-9]+/[0-9]+ " "$OUT/meson.txt"
    env_rounds CLV_BIL_LUT 3 bilateral 0 1 2 3 | tee "$OUT/lut.txt"
    kpath_rounds bilateral 1920x1080,3840x2160 1,3 cl /tmp/varcl/cl | tee "$OUT/scale.txt"
    kpath_rounds bilateral 3840x2160 4 cl /tmp/varcl/cl | tee "$OUT/cn4.txt"
    bil_tests CLV_BIL_LUT 1 2 | tee "$OUT/tests12.txt"
    sass_counts /tmp/bill bil_fixed
    ;;
bil11)
    # bil_fixed (bilateral 19x19, u8): outputs per work-item (CLV_REG_PY
    # 1, 2, 4, 16 against the default), then a share of its taps' 2^x by an
    # FMA polynomial instead of ex2.approx (the untracked varcl/: cl one tap
    # in 4, cl5 one in 8) against cl/; registers and SASS instructions
    [ -d varcl/cl ] || { echo "bil11: no varcl/cl"; exit 1; }
    rm -rf /tmp/varcl && cp -r varcl /tmp/varcl
    export CLV_CACHE_DIR=/tmp/bilpy PATH=$PATH:/usr/local/cuda/bin
    env_rounds CLV_REG_PY 2 bilateral default 1 2 4 16 | tee "$OUT/bilpy.txt"
    kpath_rounds bilateral 1920x1080,3840x2160 1,3 cl /tmp/varcl/cl /tmp/varcl/cl5 |
        tee "$OUT/bilx.txt"
    sass_counts /tmp/bilpy bil_fixed
    ;;
bwh)
    # box_wh with its loaded values packed 4 to a word (the untracked
    # varcl/, a timing copy) against cl/, three interleaved rounds
    [ -d varcl/cl ] || { echo "bwh: no varcl/cl"; exit 1; }
    rm -rf /tmp/varcl && cp -r varcl /tmp/varcl
    kpath_rounds box31 1920x1080,3840x2160 1,3 cl /tmp/varcl/cl | tee "$OUT/bwh.txt"
    ;;
final10)
    # the tenth session's last call: the filter and resampling rows beside
    # OpenCV's OpenCL path (u8 1 and 3 channels, f32), 1080p and 4K
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    for ops in box5,box31,gaussian transpose,resize,resize_up,pyramid; do
        timeout 170 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench \
            --clv-device gpu --ocl-device :GPU: --ops $ops --sizes 1920x1080,3840x2160 \
            --reps 10 --markdown "$OUT/gpu_${ops%%,*}.md" > "$OUT/filters_${ops%%,*}.txt" 2>&1
        echo "bench $ops rc=$?"; grep -E "^\| [a-z]" "$OUT/gpu_${ops%%,*}.md" | cut -d'|' -f2-7,11,13
    done
    ;;
f32d)
    # the f32 box as the defaults now choose (box_regf, its interior's rows
    # unrolled, for every channel count; box_wvf at 4 rows) against
    # box_small for three channels (CLV_U8_REG's boxf1), three interleaved
    # rounds; the tests; the box rows beside OpenCV
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    for round in 1 2 3; do
        for v in default box,boxw,boxf1,boxfw; do
            u=$v; [ "$v" = default ] && u=
            CLV_U8_REG=$u f32_bench box5,box31 1920x1080,3840x2160 1,3 $v
        done
    done | tee "$OUT/f32d.txt"
    SUITE_ONLY="^(box|box-wide-f32|box-fixed-f32)$" suite_groups 3 300
    box_compare
    ;;
f32c)
    # box_regf with its interior's rows unrolled (the untracked varcl/)
    # against cl/, on one and three channels (CLV_U8_REG: box_regf for
    # both); box_wvf at 16, 4 and 2 rows per work-item (CLV_REG_PY);
    # three interleaved rounds
    [ -d varcl/cl ] || { echo "f32c: no varcl/cl"; exit 1; }
    rm -rf /tmp/varcl && cp -r varcl /tmp/varcl
    for round in 1 2 3; do
        for v in cl /tmp/varcl/cl; do
            CLV_U8_REG=box,boxw,boxf,boxfw CLV_KERNEL_PATH=$v \
                CLV_CACHE_DIR=/tmp/kpc/$(echo $v | tr / _) \
                f32_bench box5 1920x1080,3840x2160 1,3 "$v"
        done
        for py in 16 4 2; do
            CLV_REG_PY=$py f32_bench box31 1920x1080,3840x2160 1,3 "wvf$py"
        done
    done | tee "$OUT/f32c.txt"
    ;;
f32b)
    # the f32 box's passes: box_whf with running sums along its 16 values
    # (the untracked varcl/, a timing copy) against cl/, and the rows per
    # work-item of box_wvf (16, 8, 4) and of box_regf (4, 2, 1)
    # (CLV_REG_PY), three interleaved rounds
    [ -d varcl/cl ] || { echo "f32b: no varcl/cl"; exit 1; }
    rm -rf /tmp/varcl && cp -r varcl /tmp/varcl
    for round in 1 2 3; do
        for v in cl /tmp/varcl/cl; do
            CLV_KERNEL_PATH=$v CLV_CACHE_DIR=/tmp/kpc/$(echo $v | tr / _) \
                f32_bench box31 1920x1080,3840x2160 1,3 "$v"
        done
        for py in 16 8 4; do
            CLV_REG_PY=$py f32_bench box31 3840x2160 1,3 "wvf$py"
        done
        for py in 4 2 1; do
            CLV_REG_PY=$py f32_bench box5 1920x1080,3840x2160 1 "regf$py"
        done
    done | tee "$OUT/f32b.txt"
    ;;
whf10)
    # the f32 box's wider windows' first pass on 16 values per work-item
    # (box_whf) with box_wvf (CLV_U8_REG's boxfw) against box_rows +
    # box_cols, three interleaved rounds; launch by launch; the tests; the
    # box rows beside OpenCV
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    for round in 1 2 3; do
        boxfw_pair
    done | tee "$OUT/whf.txt"
    f32_box31_launches
    SUITE_ONLY="^(box|box-wide-f32|box-fixed-f32)$" suite_groups 3 300
    box_compare
    ;;
boxfw10)
    # (as at 3ca8368: box_whf has been the first pass since) the f32 box's
    # wider windows as two passes in 16-byte vectors (box_regf
    # with ky 1 as the first, box_wvf; CLV_U8_REG's boxfw) against box_rows +
    # box_cols, and box_regf's rows per work-item (4 against 8), three
    # interleaved rounds; launch by launch; how the host waits
    # (bench/twin/finish_wait); the tests; the box rows beside OpenCV
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    for round in 1 2 3; do
        boxfw_pair
        for py in 8 4; do
            CLV_REG_PY=$py f32_bench box5 1920x1080,3840x2160 1 py$py
        done
    done | tee "$OUT/boxfw.txt"
    f32_box31_launches
    cc -O2 bench/twin/finish_wait.c -lOpenCL -o /tmp/finish_wait && /tmp/finish_wait |
        tee "$OUT/finish_wait.txt"
    SUITE_ONLY="^(box-wide-f32|box-fixed-f32|box-fixed|tune-env)$" suite_groups 4 200
    box_compare
    ;;
suite)
    # the whole suite on the H200 with the current defaults, then the filter
    # rows side by side with OpenCV at 1080p and 4K
    export CLV_CACHE_DIR=$PWD/build-gpu/cache
    suite_groups 4 330
    timeout 200 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench --clv-device gpu \
        --ocl-device :GPU: --ops transpose,resize,resize_up,box5,box31,gaussian,pyramid \
        --sizes 1920x1080,3840x2160 --reps 10 --markdown "$OUT/gpu_filters.md" \
        > "$OUT/filters.txt" 2>&1
    echo "bench rc=$?"; cat "$OUT/gpu_filters.md"
    ;;
esac
