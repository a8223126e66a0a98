#!/usr/bin/env bash
# bench/twin: build both hosts and run them on this machine's GPU (the CUDA
# one only where nvcc is found). Usage: bash bench/twin/run.sh [OUTDIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/clv-twin}
mkdir -p "$out"
cc -std=c11 -O2 -Wall -Wextra -o "$out/twin_opencl" "$here/twin_opencl.c" -lOpenCL
TWIN_BINARY_OUT="$out/twin_opencl.bin" "$out/twin_opencl" "$here/twin_kernels.h"
"$out/twin_opencl" "$here/twin_kernels.h" "-cl-mad-enable"
if command -v nvcc > /dev/null; then
    nvcc -O3 -arch=native -o "$out/twin_cuda" "$here/twin_cuda.cu"
    nvcc -O3 -arch=native -ptx -o "$out/twin_cuda.ptx" "$here/twin_cuda.cu"
    "$out/twin_cuda"
else
    echo "nvcc not found: CUDA side not run"
fi
