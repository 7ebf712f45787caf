#!/bin/sh
# calib/hw/run.sh - run the warpcast calibration kit on this machine's GPU.
#
#   ./run.sh [OUTDIR] [REPS]     (default results-<host>-<date>, 5 repetitions)
#
# Builds wcbench with -arch=native, records the GPU, clocks, driver and CUDA
# versions, runs every test REPS times (median kept), runs Nsight Compute when
# `ncu` is present (gpc__cycles_elapsed.max of the launch tests, instruction
# mixes of every kernel), saves `cuobjdump -sass` of every kernel, and writes:
#   OUTDIR/cycles.csv      `warpcast calibrate --measured` input (ctas,threads,
#                          cycles for empty kernels; ubench,metric,value rows
#                          for the arithmetic chains)
#   OUTDIR/raw.csv         every row of every repetition
#   OUTDIR/sass/*.sass     per-kernel SASS, loadable as warpcast ubench files
#   OUTDIR/ncu-*.csv       Nsight Compute exports (when ncu ran)
#   OUTDIR/env.txt, OUTDIR/README.md
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-results-$(hostname)-$(date +%Y%m%d-%H%M)}
reps=${2:-5}
mkdir -p "$out/sass"
out=$(cd "$out" && pwd)
make -C "$here" all >/dev/null
bin="$here/build/wcbench"

# ---- environment ----------------------------------------------------------
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,pstate --format=csv 2>/dev/null || echo "nvidia-smi: unavailable"
  nvcc --version | tail -1
  command -v ncu >/dev/null 2>&1 && ncu --version | tail -1 || echo "ncu: not found"
} > "$out/env.txt"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo unknown)

# ---- run every test REPS times ----------------------------------------------
: > "$out/raw.csv"
run() { for r in $(seq "$reps"); do "$bin" "$@" | sed "s/^/$r,/" >> "$out/raw.csv"; done; }
for op in $("$bin" ops); do run lat "$op"; run tput "$op"; done
for kb in 1 4 8 16 32 64 128 192 256 512 1024 4096 16384 65536 262144; do
  for st in 32 128; do run chase $((kb * 1024)) "$st"; done
done
for st in 1 2 4 8 16 32; do run shlat "$st"; done
for a in 1 2 3 4; do run memissue "$a"; done
run imbalance 0; run imbalance 1
for b in 1 114 1024 4096 16384 65536; do
  for t in 32 256 512 704 1024; do run empty "$b" "$t"; done
done
for it in 10 20 40; do run ffma 1 32 "$it"; done

# ---- Nsight Compute: elapsed cycles of the launch tests, instruction mixes ----
if command -v ncu >/dev/null 2>&1; then
  for b in 1 114 1024 4096 16384 65536; do
    for t in 32 256 512 704 1024; do
      ncu --csv --page raw --metrics gpc__cycles_elapsed.max,sm__cycles_elapsed.avg \
        "$bin" empty "$b" "$t" 2>/dev/null | grep -v '^==' >> "$out/ncu-empty.csv.tmp" || true
    done
  done
  # keep one header
  [ -f "$out/ncu-empty.csv.tmp" ] && awk 'NR==1 || !/^"ID"/' "$out/ncu-empty.csv.tmp" > "$out/ncu-empty.csv" && rm -f "$out/ncu-empty.csv.tmp"
  ncu --csv --page raw --metrics gpc__cycles_elapsed.max,smsp__inst_executed.sum,sass__inst_executed_per_opcode \
    "$bin" ffma 1 32 10 2>/dev/null | grep -v '^==' > "$out/ncu-ffma.csv" || true
fi

# ---- SASS of every kernel -------------------------------------------------------
cuobjdump -sass "$bin" > "$out/sass/all.sass"
awk -v dir="$out/sass" -v gpu="$gpu" '
  /Function : / { if (f) close(f); if (g) close(g); n=$3;
                  if (match(n, /^_Z[0-9]+/)) n = substr(n, RLENGTH + 1, substr(n, 3, RLENGTH - 2) + 0);
                  f=dir "/" n ".sass"; g=dir "/" n "-tput.sass";
                  print "# cuobjdump -sass of " n " (" gpu "), one warp" > f;
                  print "# cuobjdump -sass of " n " (" gpu "), 32 warps (one full CTA)\n.warps 32" > g; next }
  f && /\/\*[0-9a-f]+\*\// { print > f; print > g }' "$out/sass/all.sass"

# ---- cycles.csv: medians in the warpcast calibrate format --------------------------
python3 - "$out" <<'PY'
import collections, statistics, sys, os
out = sys.argv[1]
rows = collections.defaultdict(list)
for line in open(os.path.join(out, "raw.csv")):
    p = line.strip().split(",")
    if len(p) == 5:
        rows[(p[1], p[2], p[4])].append(float(p[3]))
with open(os.path.join(out, "cycles.csv"), "w") as f:
    f.write("# medians over repetitions; made by calib/hw/run.sh (see README.md)\n")
    f.write("ubench,metric,value,label\n")
    for (test, param, unit), v in sorted(rows.items()):
        med = statistics.median(v)
        if test.startswith("lat_") or test.startswith("tput_"):
            k = test.split("_", 1)[1]
            metric = "latency" if test.startswith("lat_") else "throughput"
            sass = "sass/k_%s%s.sass" % (k, "" if metric == "latency" else "-tput")
            f.write("%s,%s,%g,%s %s\n" % (sass, metric, med, k, metric))
with open(os.path.join(out, "launch.csv"), "w") as f:
    f.write("# event-timed launches (cycles = ms x SM clock); prefer ncu-empty.csv\n")
    f.write("ctas,threads,cycles\n")
    for (test, param, unit), v in sorted(rows.items()):
        if test == "empty":
            kv = dict(x.split("=") for x in param.split(";"))
            f.write("%s,%s,%g\n" % (kv["grid"], kv["block"], statistics.median(v)))
PY

cat > "$out/README.md" <<MD
# warpcast calibration run on $gpu

Made by \`calib/hw/run.sh\` ($reps repetitions per test, medians kept); see
env.txt for GPU, clocks, driver and CUDA versions.

- raw.csv: repetition,test,param,value,unit for every run of \`wcbench\`
- cycles.csv: latency / throughput rows for \`warpcast calibrate --measured\`,
  each naming the SASS of its kernel under sass/ (a warpcast ubench input);
  check that the mangled names match the files in sass/ (cuobjdump names).
- launch.csv: empty-kernel elapsed cycles from cudaEvents (includes host
  launch latency); ncu-empty.csv (when Nsight Compute ran) holds
  gpc__cycles_elapsed.max, the quantity warpcast models: use it instead.
- sass/: \`cuobjdump -sass\` of every kernel, split per function.

Fit the launch overheads:
  warpcast calibrate --gpu GPU --model launch --measured ncu-empty.csv \\
    --ncu-metric gpc__cycles_elapsed.max \\
    --fit launch_overhead,cta_dispatch,cta_overhead,cta_warp_overhead --out fit.cfg
MD
echo "results in $out"
