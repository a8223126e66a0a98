#!/usr/bin/env bash
# Build, test and benchmark on the lent NVIDIA machine in one go (used for the
# GPU numbers in bench/RESULTS.md). Writes logs and tables under $OUT.
# Usage: bash bench/run_gpu.sh [tests|bench|all]
set -u
what=${1:-all}
OUT=${OUT:-/tmp/clv-gpu-out}
mkdir -p "$OUT" /etc/OpenCL/vendors
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
clinfo -l 2>&1 | tee "$OUT/clinfo.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >> "$OUT/clinfo.txt" 2>&1

meson setup build-gpu >/dev/null && ninja -C build-gpu > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
export CLV_DEVICE=gpu CLV_REQUIRE_DEVICE=1

if [ "$what" = tests ] || [ "$what" = all ]; then
    build-gpu/clv demo "$OUT/demo" > "$OUT/demo.txt" 2>&1; echo "demo rc=$?" >> "$OUT/demo.txt"
    meson test -C build-gpu --print-errorlogs --timeout-multiplier 2 > "$OUT/tests.txt" 2>&1
    echo "tests rc=$?"; tail -15 "$OUT/tests.txt"
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
    PYTHONUNBUFFERED=1 timeout 420 python3 bench/compare.py --clv-bench build-gpu/bench/clv-bench \
        --clv-device gpu --ocl-device :GPU: --reps 30 --markdown "$OUT/gpu.md" > "$OUT/bench.txt" 2>&1
    echo "bench rc=$?"; tail -70 "$OUT/bench.txt"
fi
