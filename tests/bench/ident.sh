#!/bin/sh
# tests/bench/ident.sh BIN OUTDIR - the outputs a speed-only change must not
# move: `predict --format json` (host_seconds stripped) of BIN in the three
# modes on three GPUs over synthetic traces of every kind (made once under
# $IDENT_TRACES, default /tmp/wc-ident-traces) and, when ../shared is
# present, the H100 SXM kernels.  Compare two runs with `diff -r A B`.
# Not part of `make test` (a helper for speed work; about 2-4 min).
set -eu
bin=$1; out=$2
tr=${IDENT_TRACES:-/tmp/wc-ident-traces}
mkdir -p "$out" "$tr"
for k in compute latency memory divergent imbalanced balanced shared chase fp64 tensor mixed; do
    case $k in
        imbalanced|balanced) a="--ctas 160 --threads 1024 --iters 16" ;;
        memory) a="--ctas 512 --iters 8" ;;
        *) a="--ctas 384 --iters 8" ;;
    esac
    [ -f "$tr/$k/kernelslist.g" ] || "$bin" synth --kind "$k" $a --sass --out "$tr/$k" --quiet
done
run() { # name gpu mode trace
    "$bin" predict --format json --seed 3 --gpu "$2" --mode "$3" "$4" 2>/dev/null |
        sed 's/"host_seconds": [0-9.e+-]*//' >"$out/$1.$2.$3.json" ||
        echo "exit $?" >>"$out/$1.$2.$3.json"
}
for k in compute latency memory divergent imbalanced balanced shared chase fp64 tensor mixed; do
    for g in h100-pcie a100 rtx-a6000; do
        for m in interval detailed hybrid; do run "$k" $g $m "$tr/$k"; done
    done
done
sx=$(dirname "$0")/../../../shared/data/hw/h100-sxm/traces
if [ -d "$sx" ]; then
    for d in "$sx"/*/; do
        n=$(basename "$d")
        for m in interval detailed hybrid; do run "sxm-$n" h100-sxm $m "$d"; done
    done
fi
ls "$out" | wc -l
