#!/bin/sh
# Build the libFuzzer targets of clvision: tests/fuzz/build.sh OUT_DIR
# clang -g -O1 -fsanitize=fuzzer,address,undefined, straight from the
# sources (no meson): the library and CLI sources are compiled once with the
# same sanitizers (fuzzer-no-link) into two static archives, from which each
# harness pulls only the objects it needs.
set -eu

if [ $# -ne 1 ]; then
    echo "usage: $0 OUT_DIR" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
CC=${CC:-clang}
jobs=${JOBS:-2}

if ! command -v "$CC" >/dev/null 2>&1; then
    echo "$0: $CC not found (apt-get install clang libclang-rt-14-dev)" >&2
    exit 1
fi

san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
common="-g -O1 -std=c11 -fno-omit-frame-pointer -D_POSIX_C_SOURCE=200809L -DCL_TARGET_OPENCL_VERSION=120"
common="$common -I$out/gen -I$root/include -I$root/src $(pkg-config --cflags libpng)"
libs="-lOpenCL $(pkg-config --libs libpng libjpeg) -lm -lpthread"
if pkg-config --exists OpenEXR; then
    common="$common -DCLV_HAVE_OPENEXR=1 $(pkg-config --cflags OpenEXR)"
    libs="$libs $(pkg-config --libs OpenEXR)"
else
    echo "$0: OpenEXR not found: fuzz_exr only checks the UNSUPPORTED path" >&2
fi

# version.h as meson's configure_file() writes it.
mkdir -p "$out/gen/clvision" "$out/obj/lib" "$out/obj/cli"
ver=$(sed -n "s/^ *version *: *'\([0-9.]*\)'.*/\1/p" "$root/meson.build" | head -n 1)
IFS=. read -r major minor patch <<VER
$ver
VER
sed -e "s/@MAJOR@/$major/" -e "s/@MINOR@/$minor/" -e "s/@PATCH@/$patch/" -e "s/@VERSION@/$ver/" \
    "$root/include/clvision/version.h.in" >"$out/gen/clvision/version.h"
cp "$out/gen/clvision/version.h" "$out/gen/version.h"

lib_flags="$common $san -fsanitize=fuzzer-no-link -DCLV_BUILDING_LIBRARY"
lib_flags="$lib_flags -DCLV_KERNEL_DATADIR=\"$root/cl\" -DCLV_KERNEL_SRCDIR=\"$root/cl\""

# compile DIR SRC... : one object per source, $jobs at a time.
compile() {
    dir=$1
    shift
    printf '%s\n' "$@" | xargs -P "$jobs" -I{} sh -c \
        'f={}; o="$0/$(basename "$f" .c).o"; '"$CC"' $1 -c "$f" -o "$o"' "$dir" "$lib_flags"
}

lib_src=$(sed -n "/^lib_sources = files(/,/^)/s/^ *'\(src\/[^']*\.c\)',*/\1/p" "$root/meson.build")
compile "$out/obj/lib" $(for f in $lib_src; do echo "$root/$f"; done)
rm -f "$out/libclvision-fuzz.a"
ar rcs "$out/libclvision-fuzz.a" "$out"/obj/lib/*.o

# The CLI without main() (clv.c is built separately, main renamed).
compile "$out/obj/cli" $(ls "$root"/src/cli/*.c | grep -v '/clv\.c$')
rm -f "$out/libclvcli-fuzz.a"
ar rcs "$out/libclvcli-fuzz.a" "$out"/obj/cli/*.o
$CC $lib_flags -Dmain=clv_main -c "$root/src/cli/clv.c" -o "$out/obj/clv_main.o"

link() {
    name=$1
    shift
    $CC $common -Wall -Wextra -Werror $san -fsanitize=fuzzer -o "$out/$name" "$root/tests/fuzz/$name.c" "$@" $libs
    echo "built $out/$name"
}
for t in png jpeg exr hdr pfm flo; do
    link "fuzz_$t" "$out/libclvision-fuzz.a"
done
link fuzz_csv "$out/libclvcli-fuzz.a" "$out/libclvision-fuzz.a"
# Its own cli_cmd_* stand in for src/cli/cmd_*.c: only cli_util.o is linked.
link fuzz_args "$out/obj/clv_main.o" "$out/obj/cli/cli_util.o" "$out/libclvision-fuzz.a"
