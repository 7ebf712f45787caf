#!/bin/sh
# calib/hw/run.sh - run the warpcast calibration kit on this machine's GPU.
#
#   ./run.sh [OUTDIR] [REPS]     (default results-<host>-<date>, 3 repetitions)
#
# Builds wcbench with -arch=native and runs every test REPS times at each
# clock setting: with Nsight Compute present, under `ncu --clock-control
# base` (clocks locked by the profiler, clock=base) and `--clock-control
# none` (the GPU's own boost, clock=none), recording gpc__cycles_elapsed.max
# and the measured SM clock of every launch; without ncu, plain runs
# (clock=none only).  The program's own output and Nsight Compute's output
# never share a file: wcbench's stdout goes to bench.csv, ncu writes a
# report file that is exported separately.  Every file is described in the
# OUTDIR/README.md this script writes; `warpcast calibrate --kit OUTDIR`
# reads the folder as it is.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-results-$(hostname)-$(date +%Y%m%d-%H%M)}
reps=${2:-3}
mkdir -p "$out/sass" "$out/ncu"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -C "$here" all >/dev/null
bin="$here/build/wcbench"
have_ncu=0
command -v ncu >/dev/null 2>&1 && have_ncu=1

# ---- environment ----------------------------------------------------------
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,pstate --format=csv 2>/dev/null || echo "nvidia-smi: unavailable"
  nvcc --version | tail -1
  [ $have_ncu = 1 ] && ncu --version | tail -1 || echo "ncu: not found"
} > "$out/env.txt"
{
  echo "key,value,unit"
  "$bin" info | sed 's/^info,//'
  echo "kit_reps,$reps,"
  echo "kit_ncu,$have_ncu,bool"
} > "$out/info.csv"
gpu=$(sed -n 's/^name,\(.*\),$/\1/p' "$out/info.csv")

# ---- one invocation: program rows to bench.csv, ncu launches to ncu.csv ----
# bench.csv: clock,rep,test,param,value,unit      (wcbench's own rows)
# ncu.csv:   clock,rep,run,launch,kernel,grid,block,gpc_cycles_max,sm_mhz
echo "clock,rep,test,param,value,unit" > "$out/bench.csv"
echo "clock,rep,run,launch,kernel,grid,block,gpc_cycles_max,sm_mhz" > "$out/ncu.csv"
nrun=0
one() { # CLOCK REP ARGS...
  clock=$1 rep=$2
  shift 2
  nrun=$((nrun + 1))
  if [ $have_ncu = 1 ]; then
    ncu --clock-control "$clock" --log-file "$tmp/ncu.log" -f -o "$tmp/rep" \
      --metrics gpc__cycles_elapsed.max,gpc__cycles_elapsed.avg.per_second \
      "$bin" "$@" > "$tmp/prog.out"
    ncu --import "$tmp/rep.ncu-rep" --csv --page raw > "$tmp/ncu-raw.csv"
    # keep the first repetition's raw exports for reference
    [ "$rep" = 1 ] && cp "$tmp/ncu-raw.csv" "$out/ncu/$clock-$(echo "$*" | tr ' ' '_').csv"
    python3 - "$tmp/ncu-raw.csv" "$clock" "$rep" "$nrun" >> "$out/ncu.csv" <<'PY'
import csv, sys
path, clock, rep, run = sys.argv[1:5]
rows = [r for r in csv.reader(open(path)) if r]
if not rows:
    sys.exit(0)
h = rows[0]
col = {n: i for i, n in enumerate(h)}
need = ["ID", "Kernel Name", "Grid Size", "Block Size", "gpc__cycles_elapsed.max",
        "gpc__cycles_elapsed.avg.per_second"]
miss = [n for n in need if n not in col]
if miss:
    sys.exit("run.sh: ncu export lacks " + ", ".join(miss))
units = rows[1] if len(rows) > 1 and rows[1][0] == "" else None
hz_scale = {"hz": 1, "khz": 1e3, "mhz": 1e6, "ghz": 1e9, "cycle/second": 1,
            "cycle/nsecond": 1e9, "cycle/usecond": 1e6}
scale = 1.0
if units:
    u = units[col["gpc__cycles_elapsed.avg.per_second"]].lower()
    scale = hz_scale.get(u, 1.0)
def num(s):
    return float(s.replace(",", ""))
def dim(s):
    p = 1
    for x in s.strip("()").split(","):
        p *= int(x)
    return p
for r in rows[1:]:
    if r[0] == "" or r[0] == "ID":
        continue
    name = r[col["Kernel Name"]].split("(")[0]
    print("%s,%s,%s,%s,%s,%d,%d,%.0f,%.1f" % (
        clock, rep, run, r[col["ID"]], name, dim(r[col["Grid Size"]]),
        dim(r[col["Block Size"]]), num(r[col["gpc__cycles_elapsed.max"]]),
        num(r[col["gpc__cycles_elapsed.avg.per_second"]]) * scale / 1e6))
PY
  else
    "$bin" "$@" > "$tmp/prog.out"
  fi
  # wcbench prints only test,param,value,unit rows; anything else is an error
  if grep -v '^[a-z_0-9]*,[^,]*,[^,]*,[^,]*$' "$tmp/prog.out" >&2; then
    echo "run.sh: unexpected output from wcbench $*" >&2
    exit 1
  fi
  sed "s/^/$clock,$rep,/" "$tmp/prog.out" >> "$out/bench.csv"
}
clocks=none
[ $have_ncu = 1 ] && clocks="base none"
run() { for c in $clocks; do for r in $(seq "$reps"); do one "$c" "$r" "$@"; done; done; }

# ---- every test -------------------------------------------------------------
for op in $("$bin" ops); do run lat "$op"; run tput "$op"; done
# L1 (cached chase, fine steps up to 256 KB), then L2 and DRAM
for kb in 4 16 32 64 96 128 160 192 208 224 240 256 320 512 1024 4096 16384 32768 65536 131072 262144; do
  run chase $((kb * 1024)) 128
done
for kb in 4 64 1024 16384 65536 262144; do
  run chase $((kb * 1024)) 32
  run chasecg $((kb * 1024)) 128
done
for st in 1 2 4 8 16 32; do run shlat "$st"; done
for a in 1 2 3 4; do run memissue "$a"; done
run memorder
run imbalance 0; run imbalance 1
for sc in warp cta lane; do for sp in global shared; do run atom "$sc" "$sp"; done; done
# L2 bandwidth (within the L2 after the warm-up pass) and DRAM (past it)
for mb in 4 8 16 32 256 1024; do run bw read $((mb << 20)); run bw copy $((mb << 20)); done
for w in 4 8 16; do run shbw "$w"; done
for b in 1 132 264 1024 4096 16384 65536; do
  for t in 32 256 512 704 1024; do run empty "$b" "$t"; done
done
for it in 10 20 40; do run ffma 1 32 "$it"; done

# ---- SASS of every kernel: both encoding words of every instruction ---------
cuobjdump -sass "$bin" > "$out/sass/all.sass"
awk -v dir="$out/sass" -v gpu="$gpu" '
  /Function : / { if (f) close(f); if (g) close(g); n=$3;
                  if (match(n, /^_Z[0-9]+/)) n = substr(n, RLENGTH + 1, substr(n, 3, RLENGTH - 2) + 0);
                  f=dir "/" n ".sass"; g=dir "/" n "-tput.sass";
                  print "# cuobjdump -sass of " n " (" gpu "), one warp" > f;
                  print "# cuobjdump -sass of " n " (" gpu "), 32 warps (one full CTA)\n.warps 32" > g; next }
  # an instruction line (/*addr*/ ... /* 0x... */) and the line under it
  # that holds only the second encoding word (/* 0x... */)
  f && /\/\* 0x[0-9a-f]+ \*\// { print > f; print > g }' "$out/sass/all.sass"

# ---- derived files: medians in the formats `warpcast calibrate` reads ----------
python3 - "$out" <<'PY'
import collections, csv, os, statistics, sys
out = sys.argv[1]
bench = list(csv.DictReader(open(os.path.join(out, "bench.csv"))))
ncu = list(csv.DictReader(open(os.path.join(out, "ncu.csv"))))
clocks = sorted({r["clock"] for r in bench})
ref = "base" if "base" in clocks else clocks[0]   # cycles at the locked clock
med = collections.defaultdict(list)
for r in bench:
    med[(r["clock"], r["test"], r["param"], r["unit"])].append(float(r["value"]))
with open(os.path.join(out, "summary.csv"), "w") as f:
    f.write("clock,test,param,unit,median,min,max,n\n")
    for (c, t, p, u), v in sorted(med.items()):
        f.write("%s,%s,%s,%s,%g,%g,%g,%d\n" % (c, t, p, u, statistics.median(v), min(v), max(v), len(v)))
with open(os.path.join(out, "cycles.csv"), "w") as f:
    f.write("# clock=%s medians; made by calib/hw/run.sh (see README.md)\n" % ref)
    f.write("ubench,metric,value,label\n")
    for (c, t, p, u), v in sorted(med.items()):
        if c != ref or not (t.startswith("lat_") or t.startswith("tput_")):
            continue
        k = t.split("_", 1)[1]
        metric = "latency" if t.startswith("lat_") else "throughput"
        sass = "sass/k_%s%s.sass" % (k, "" if metric == "latency" else "-tput")
        f.write("%s,%s,%g,%s %s\n" % (sass, metric, statistics.median(v), k, metric))
shape = collections.defaultdict(list)
for r in ncu:
    if r["clock"] == ref and r["kernel"] == "k_empty":
        shape[(int(r["grid"]), int(r["block"]))].append(float(r["gpc_cycles_max"]))
with open(os.path.join(out, "empty.csv"), "w") as f:
    f.write("# Nsight Compute gpc__cycles_elapsed.max of k_empty, clock=%s, median over all launches\n" % ref)
    f.write("ctas,threads,cycles\n")
    for (g, b), v in sorted(shape.items()):
        f.write("%d,%d,%g\n" % (g, b, statistics.median(v)))
PY

cat > "$out/README.md" <<MD
# warpcast calibration run on $gpu

Made by \`calib/hw/run.sh\` ($reps repetitions of every test at each clock
setting: $clocks). Every file is plain CSV with one header line (lines
starting with \`#\` are comments); no file mixes the program's output with
Nsight Compute's.

| file | what it holds |
|---|---|
| env.txt | date, host, nvidia-smi clocks, nvcc and ncu versions (for people) |
| info.csv | \`key,value,unit\`: device facts from cudaGetDeviceProperties (name, sm_count, clock_max kHz, mem_clock kHz, mem_bus_width, l2_bytes, smem_per_sm, ...), kit_reps, kit_ncu |
| bench.csv | \`clock,rep,test,param,value,unit\`: every row wcbench printed. clock \`base\` = run under \`ncu --clock-control base\` (locked), \`none\` = \`--clock-control none\` (or no ncu). \`param\` is \`k=v;k=v\`. Tests and units below |
| ncu.csv | \`clock,rep,run,launch,kernel,grid,block,gpc_cycles_max,sm_mhz\`: every kernel launch Nsight Compute profiled (run = invocation number, launch = ncu's ID within it; gpc__cycles_elapsed.max and gpc__cycles_elapsed.avg.per_second in MHz) |
| summary.csv | \`clock,test,param,unit,median,min,max,n\`: bench.csv over repetitions |
| cycles.csv | \`ubench,metric,value,label\`: the chain medians at clock ${clocks%% *}, each naming its kernel's listing (\`warpcast calibrate --measured cycles.csv --model detailed\`) |
| empty.csv | \`ctas,threads,cycles\`: median gpc__cycles_elapsed.max of k_empty per shape (\`warpcast calibrate --model launch --measured empty.csv\`) |
| sass/all.sass | \`cuobjdump -sass\` of wcbench as printed |
| sass/K.sass, sass/K-tput.sass | kernel K's listing (both encoding lines of every instruction), one warp and 32 warps: warpcast ubench inputs |
| ncu/CLOCK-ARGS.csv | Nsight Compute raw page (\`--import --csv --page raw\`) of the first repetition of each invocation |

Tests (bench.csv \`test\`, \`unit\`): \`lat_OP\` cycles/op of a 256-op dependent
chain, one warp; \`tput_OP\` thread-ops/cycle/SM, full blocks on every SM;
\`chase\` cycles/load, cached pointer chase after a full warm-up pass
(\`bytes\`, \`stride\`: L1 then L2 then DRAM); \`chasecg\` the same with ld.cg (L2
and DRAM only); \`shlat\` cycles/load of a shared chase, \`stride\` words
(bank conflicts gcd(stride,32)-way); \`memissue\` cycles between two clock
reads around \`loads\` independent shared loads per warp, \`active\` warps on
distinct sub-cores (seed 000 Table 1); \`memorder\` the first and last clock
read of warps 0 and 4 (one sub-core) around 12 shared loads each, from the
earlier first read: with warp 4's first read the later, the older warp 0
ending first means freed memory-queue entries go to the oldest warp
(\`mem_issue_oldest\` = 1); \`imbalance\` cycles (seed 001);
\`atom\` atomics/cycle (GPU-wide per SM cycle), cycles/cta-max and atomics/ns,
one address per \`scope\` (warp, cta, lane) in \`space\` (global, shared);
\`bw\` bytes/cycle (GPU-wide per SM cycle) and GB/s of \`kind\` read or copy
over \`bytes\` (under the L2 size: L2 bandwidth, above: DRAM); \`shbw\`
bytes/cycle/SM of conflict-free shared loads of \`width\` bytes; \`empty\` and
\`ffma\` event-cycles (cudaEvent ms x maximum clock: includes the host;
prefer ncu.csv).

Calibrate everything in one step:
  warpcast calibrate --kit $(basename "$out") --gpu BASE --out NEW.cfg
MD
echo "results in $out"
