#!/bin/sh
# tests/bench/pgo-train.sh WARPCAST DIR - the training run of `make pgo`.
# The project's own synthetic kernels (every kind of `warpcast synth`, a
# size unlike the benchmarks'), read as text and in the binary form, run by
# every mode on three GPU configs, and a microbenchmark: the code paths the
# models spend their time in.  About 30 s with the instrumented program.
set -eu
W=$1
D=$2
rm -rf "$D"
mkdir -p "$D"
for k in compute latency memory divergent imbalanced balanced shared chase fp64 tensor mixed; do
    "$W" synth --kind "$k" --ctas 264 --threads 256 --iters 8 --sass --seed 11 \
        --out "$D/$k" --quiet
    "$W" convert "$D/$k" -o "$D/$k.wcb" >/dev/null
done
for k in compute memory shared mixed divergent tensor; do
    for m in interval detailed hybrid; do
        "$W" predict "$D/$k.wcb" --gpu h100-pcie --mode "$m" --jobs 1 >/dev/null
    done
done
for k in latency imbalanced balanced chase fp64; do
    "$W" predict "$D/$k.wcb" --gpu a100 --mode detailed --jobs 1 >/dev/null
    "$W" predict "$D/$k" --gpu h100-sxm --jobs 1 --no-trace-cache >/dev/null
done
"$W" ubench data/ubench/table1-4sub.sass >/dev/null
"$W" ubench data/ubench/fig4-a.sass >/dev/null
