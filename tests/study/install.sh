#!/bin/sh
# tests/study/install.sh - `make install PREFIX=tmp` then run from there with
# the source tree out of the way: cwd elsewhere, WARPCAST_DATA unset, a trace
# copied out; the data must come from PREFIX/share/warpcast (a config added
# only there is listed).  Compiles docs/library-example.c against the
# installed pkg-config file.  `make uninstall` leaves no file behind.
set -u
BUILD=${BUILD:-build}
src=$(pwd)
tmp=$(mktemp -d)
# hermetic: the installed program converts into no cache of the user
WARPCAST_TRACE_CACHE=off; export WARPCAST_TRACE_CACHE
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
check() { name=$1; shift; if "$@"; then pass=$((pass+1)); else echo "FAIL install: $name"; fail=$((fail+1)); fi; }
pre=$tmp/prefix
make --no-print-directory -s install BUILD="$BUILD" SAN="${SAN:-}" PREFIX="$pre" >"$tmp/log" 2>&1
check "make install" [ $? = 0 ]
for f in bin/warpcast lib/libwarpcast.a lib/pkgconfig/warpcast.pc include/warpcast/wc.h \
         include/warpcast/keys.def include/warpcast/smp.h share/warpcast/gpus/h100-pcie.cfg \
         share/man/man1/warpcast.1; do
    check "installed $f" [ -f "$pre/$f" ]
done
"$src/${WARPCAST:-$BUILD/warpcast}" synth --kind mixed --out "$tmp/work/app" --quiet
cp "$pre/share/warpcast/gpus/v100.cfg" "$pre/share/warpcast/gpus/only-installed.cfg"
cd "$tmp/work" || exit 1
unset WARPCAST_DATA
check "installed: gpus reads PREFIX/share/warpcast" sh -c "'$pre/bin/warpcast' gpus | grep -q '^only-installed '"
"$pre/bin/warpcast" predict app --mode interval --format csv > out.csv
check "installed: predict runs" [ $? = 0 ]
check "installed: predict output" [ "$(wc -l < out.csv)" = 6 ]
"$pre/bin/warpcast" ubench "$pre/share/warpcast/ubench/listing1-r10-r12.sass" > ub.txt
check "installed: ubench on bundled data" [ $? = 0 ]
if command -v man >/dev/null 2>&1; then
    check "man page renders" sh -c "MANPATH='$pre/share/man' man -P cat warpcast 2>/dev/null | grep -q 'what-if study'"
fi
if command -v pkg-config >/dev/null 2>&1; then
    export PKG_CONFIG_PATH="$pre/lib/pkgconfig"
    # shellcheck disable=SC2046
    ${CC:-cc} -std=c11 -Wall -Werror ${SAN:+-fsanitize=$SAN} -o example "$src/docs/library-example.c" \
        $(pkg-config --cflags --libs --static warpcast) 2>"$tmp/cc.err"
    check "library example compiles against warpcast.pc" [ $? = 0 ] || cat "$tmp/cc.err" >&2
    WARPCAST_DATA=$(pkg-config --variable=datadir warpcast) ./example app 66 > ex.txt
    check "library example runs" [ $? = 0 ]
    check "library example: 5 kernels + total" [ "$(wc -l < ex.txt)" = 6 ]
else
    echo "notice: install: pkg-config absent: library example not compiled"
fi
rm -f "$pre/share/warpcast/gpus/only-installed.cfg"
cd "$src" || exit 1
make --no-print-directory -s uninstall BUILD="$BUILD" SAN="${SAN:-}" PREFIX="$pre" >/dev/null 2>&1
check "uninstall leaves no file" [ -z "$(find "$pre" -type f)" ]
echo "install: $pass passed, $fail failed"
[ $fail = 0 ]
