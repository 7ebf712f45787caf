#!/bin/sh
# tests/study/run.sh - end-to-end tests of the study commands: sweep (parallel
# = serial, resume, --points, JSON lines), --emit-jobs through GNU parallel +
# merge, the Slurm script (bash -n), report in headless Chromium, RFC 4180
# quoting, "did you mean".  GNU parallel and Chromium are optional: the parts
# that need them are skipped with a notice when they are absent.
set -u
# hermetic: no run reads or fills the user's trace cache unless a test says so
WARPCAST_TRACE_CACHE=off; export WARPCAST_TRACE_CACHE
WARPCAST=${WARPCAST:-build/warpcast}
case $WARPCAST in /*) ;; *) WARPCAST=$(pwd)/$WARPCAST ;; esac
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL study: $*"; fail=$((fail+1)); }
check() { # check NAME COMMAND...
    name=$1; shift
    if "$@"; then ok; else bad "$name"; fi
}

W=$WARPCAST
$W synth --kind mixed --ctas 160 --out "$tmp/app" --quiet || { echo "FAIL study: synth"; exit 1; }
$W synth --kind memory --out "$tmp/mem" --quiet || exit 1
V="--vary num_sms=66,114,132 --vary clock_mhz=1200:1800:300 --mode interval,hybrid"

# ---- sweep: the table does not depend on --jobs ------------------------------
# every mode; detailed and hybrid on a small study (host time)
$W sweep "$tmp/mem" --vary num_sms=66,132 --mode detailed,hybrid,interval --jobs 1 --quiet --out "$tmp/m1.csv"; r1=$?
$W sweep "$tmp/mem" --vary num_sms=66,132 --mode detailed,hybrid,interval --jobs 3 --quiet --out "$tmp/m3.csv"; r3=$?
check "sweep exit status" [ $r1 = 0 ] && [ $r3 = 0 ]
check "sweep all modes: --jobs 1 = --jobs 3" cmp -s "$tmp/m1.csv" "$tmp/m3.csv"
check "sweep all modes: 6 rows" [ "$(wc -l < "$tmp/m1.csv")" = 7 ]
# a text trace read by several points is converted once to the binary form
# (in the sweep's temporary directory, removed after): the same table
mkdir "$tmp/td"
TMPDIR="$tmp/td" $W sweep "$tmp/mem" --vary num_sms=66,132 --mode detailed,hybrid,interval --jobs 2 --quiet --no-convert --out "$tmp/m0.csv"; r0=$?
check "sweep --no-convert exit status" [ $r0 = 0 ]
check "sweep: converted once = read as text at every point" cmp -s "$tmp/m1.csv" "$tmp/m0.csv"
TMPDIR="$tmp/td" $W sweep "$tmp/mem" --vary num_sms=66,132 --mode hybrid,interval --jobs 2 --quiet --out "$tmp/m2.csv"
check "sweep: nothing left in TMPDIR" [ -z "$(ls -A "$tmp/td")" ]
V="--vary num_sms=66,114,132 --vary clock_mhz=1200:1800:300 --mode interval"
$W sweep "$tmp/app" "$tmp/mem" $V --jobs 1 --quiet --out "$tmp/s1.csv"; r1=$?
$W sweep "$tmp/app" "$tmp/mem" $V --jobs 3 --quiet --out "$tmp/s3.csv"; r3=$?
check "sweep exit status" [ $r1 = 0 ] && [ $r3 = 0 ]
check "sweep --jobs 1 = --jobs 3" cmp -s "$tmp/s1.csv" "$tmp/s3.csv"
check "sweep header" [ "$(head -1 "$tmp/s1.csv")" = \
  "trace,kernel_id,kernel,num_sms,clock_mhz,mode,seed,cycles,warp_instructions,ipc,ci95_lo,ci95_hi" ]
# 2 traces (5 + 1 kernels) x 9 points = 54 rows + header
check "sweep rows" [ "$(wc -l < "$tmp/s1.csv")" = 55 ]
# more SMs never make this 160-CTA application slower in the interval model
# (fields counted from the end: a demangled kernel name may hold commas)
a66=$(awk -F, '$(NF-7)==1200 && $(NF-6)=="interval" && $1 ~ /app$/ && $(NF-8)==66 {s+=$(NF-4)} END {print s}' "$tmp/s1.csv")
a132=$(awk -F, '$(NF-7)==1200 && $(NF-6)=="interval" && $1 ~ /app$/ && $(NF-8)==132 {s+=$(NF-4)} END {print s}' "$tmp/s1.csv")
check "sweep: 132 SMs faster than 66 ($a132 < $a66)" [ "$a132" -lt "$a66" ]

# ---- trace cache: a text trace converted once, the same results ---------------
tc="$tmp/tcache"
P="--mode interval --format csv --jobs 1"
$W predict $P --no-trace-cache "$tmp/mem" > "$tmp/p0.csv" 2>/dev/null
WARPCAST_TRACE_CACHE="$tc" $W predict $P "$tmp/mem" > "$tmp/p1.csv" 2>"$tmp/p1.err"; r1=$?
WARPCAST_TRACE_CACHE="$tc" $W predict $P "$tmp/mem" > "$tmp/p2.csv" 2>"$tmp/p2.err"; r2=$?
check "trace cache: exit status" [ $r1 = 0 ] && [ $r2 = 0 ]
check "trace cache: first run converts (one entry, its key, sum and warnings)" [ "$(ls "$tc" | wc -l)" = 4 ]
check "trace cache: the first run says so" grep -q "converted once to the binary form" "$tmp/p1.err"
check "trace cache: the second run reads it silently" [ ! -s "$tmp/p2.err" ]
check "trace cache: converting run = text" cmp -s "$tmp/p0.csv" "$tmp/p1.csv"
check "trace cache: cached run = text" cmp -s "$tmp/p0.csv" "$tmp/p2.csv"
WARPCAST_TRACE_CACHE="$tc" $W predict --mode hybrid --format csv --jobs 1 "$tmp/mem" > "$tmp/h1.csv" 2>/dev/null
$W predict --mode hybrid --format csv --jobs 1 "$tmp/mem" > "$tmp/h0.csv" 2>/dev/null
check "trace cache: hybrid from the cache = text" cmp -s "$tmp/h0.csv" "$tmp/h1.csv"
# a changed trace is a new entry (mtime, size, content)
touch -d "2001-01-01" "$tmp/mem/kernel-1.traceg"
WARPCAST_TRACE_CACHE="$tc" $W predict $P "$tmp/mem" > "$tmp/p3.csv" 2>"$tmp/p3.err"
check "trace cache: a touched trace is converted again" grep -q "converted once" "$tmp/p3.err"
check "trace cache: two entries" [ "$(ls "$tc" | grep -c 'wctb$')" = 2 ]
# a damaged entry is dropped and made again, with the same results
for f in "$tc"/*.wctb; do head -c 1000 "$f" > "$f.x" && mv "$f.x" "$f"; done
WARPCAST_TRACE_CACHE="$tc" $W predict $P "$tmp/mem" > "$tmp/p4.csv" 2>"$tmp/p4.err"; r4=$?
check "trace cache: damaged entry: exit status 0" [ $r4 = 0 ]
check "trace cache: damaged entry: made again" grep -q "converted once" "$tmp/p4.err"
check "trace cache: damaged entry: same results" cmp -s "$tmp/p0.csv" "$tmp/p4.csv"
# a cache that cannot be written: the text is read, with a notice
WARPCAST_TRACE_CACHE=/proc/warpcast-no $W predict $P "$tmp/mem" > "$tmp/p5.csv" 2>"$tmp/p5.err"; r5=$?
check "trace cache: unwritable: exit status 0" [ $r5 = 0 ]
check "trace cache: unwritable: notice" grep -q "trace cache: cannot convert" "$tmp/p5.err"
check "trace cache: unwritable: same results" cmp -s "$tmp/p0.csv" "$tmp/p5.csv"
# a bad trace: the error alone, as without the cache, and nothing cached
cp -r "$tmp/mem" "$tmp/bad"
sed -i '2000s/.*/0x0010 garbage here/' "$tmp/bad/kernel-1.traceg"
WARPCAST_TRACE_CACHE="$tc.bad" $W predict $P "$tmp/bad" > /dev/null 2>"$tmp/b1.err"; rb=$?
$W predict $P --no-trace-cache "$tmp/bad" > /dev/null 2>"$tmp/b0.err"
check "trace cache: bad trace: exit status 2" [ $rb = 2 ]
check "trace cache: bad trace: the same message" cmp -s "$tmp/b0.err" "$tmp/b1.err"
check "trace cache: bad trace: no entry" [ -z "$(ls -A "$tc.bad" 2>/dev/null)" ]
# the text's warnings are printed from the cache as without it, and an
# unknown opcode is reported once
$W synth --kind compute --ctas 4 --sass --out "$tmp/lst" --quiet
cp -r "$tmp/mem" "$tmp/wl" && cp "$tmp/lst/kernels.sass" "$tmp/wl/"
sed -i 's/ IADD3 / FOOBAR3 /' "$tmp/wl/kernel-1.traceg"
$W predict $P --no-trace-cache "$tmp/wl" > /dev/null 2>"$tmp/w0.err"
WARPCAST_TRACE_CACHE="$tc.w" $W predict $P "$tmp/wl" > /dev/null 2>"$tmp/w1.err"
WARPCAST_TRACE_CACHE="$tc.w" $W predict $P "$tmp/wl" > /dev/null 2>"$tmp/w2.err"
check "trace cache: warnings: the text run has two" [ "$(grep -c '^warning' "$tmp/w0.err")" = 2 ]
check "trace cache: warnings: converting run = text" sh -c "grep -v 'converted once' '$tmp/w1.err' | cmp -s - '$tmp/w0.err'"
check "trace cache: warnings: cached run = text" cmp -s "$tmp/w0.err" "$tmp/w2.err"
# info reads through it too
WARPCAST_TRACE_CACHE="$tc.info" $W info "$tmp/mem" > "$tmp/i1.txt" 2>/dev/null
WARPCAST_TRACE_CACHE="$tc.info" $W info "$tmp/mem" > "$tmp/i2.txt" 2>/dev/null
$W info --no-trace-cache "$tmp/mem" > "$tmp/i0.txt"
check "trace cache: info = text" cmp -s "$tmp/i0.txt" "$tmp/i1.txt"
check "trace cache: info from the cache = text" cmp -s "$tmp/i0.txt" "$tmp/i2.txt"
check "trace cache: info made an entry" [ "$(ls "$tc.info" | grep -c 'wctb$')" = 1 ]
# calibrate evaluates through the cache (converted once): the same fit
printf 'trace,cycles\nmem,400000\n' > "$tmp/cal.csv"
C="calibrate --gpu h100-pcie --measured $tmp/cal.csv --fit dram_latency --threads 2 --format csv --max-iter 5"
$W $C --no-trace-cache > "$tmp/c0.csv" 2>/dev/null; r0=$?
rm -rf "$tc"
WARPCAST_TRACE_CACHE="$tc" $W $C > "$tmp/c1.csv" 2>"$tmp/c1.err"; r1=$?
check "trace cache: calibrate exit status" [ $r0 = 0 ] && [ $r1 = 0 ]
check "trace cache: calibrate converts once" [ "$(grep -c 'converted once' "$tmp/c1.err")" = 1 ]
check "trace cache: calibrate = text" cmp -s "$tmp/c0.csv" "$tmp/c1.csv"
# sweep reads an entry the cache holds, and fills it when converting pays
rm -rf "$tc"
WARPCAST_TRACE_CACHE="$tc" $W sweep "$tmp/mem" --vary num_sms=66,132 --mode detailed,hybrid,interval --jobs 2 --quiet --out "$tmp/m5.csv"
check "trace cache: sweep converts into the cache" [ "$(ls "$tc" | grep -c 'wctb$')" = 1 ]
check "trace cache: sweep table = text" cmp -s "$tmp/m1.csv" "$tmp/m5.csv"

# ---- resume ------------------------------------------------------------------
# an interrupted file (half a point, a cut line) is completed to the same table
head -20 "$tmp/s1.csv" > "$tmp/r.csv"; printf '%s/app,1,_Z11mix' "$tmp" >> "$tmp/r.csv"
$W sweep "$tmp/app" "$tmp/mem" $V --jobs 2 --quiet --out "$tmp/r.csv"
check "resume completes to the same table" cmp -s "$tmp/s1.csv" "$tmp/r.csv"
# cut inside a quoted kernel name: the same (it was "-1 fields", exit 2)
{ head -21 "$tmp/s1.csv"; sed -n '22p' "$tmp/s1.csv" | sed 's/\("[^"]\{5\}\).*/\1/' | tr -d '\n'; } > "$tmp/rq.csv"
$W sweep "$tmp/app" "$tmp/mem" $V --jobs 2 --quiet --out "$tmp/rq.csv"
check "resume of a table cut inside a quoted field" cmp -s "$tmp/s1.csv" "$tmp/rq.csv"
# points already there are not run again: a doctored value survives
sed 's/^\(.*,66,1200,interval,0,\)[0-9]*,/\1777,/' "$tmp/s1.csv" > "$tmp/d.csv"
$W sweep "$tmp/app" "$tmp/mem" $V --jobs 2 --quiet --out "$tmp/d.csv"
check "resume skips points already done" [ "$(grep -c ',66,1200,interval,0,777,' "$tmp/d.csv")" = 6 ]
# another study in the same file is refused
$W sweep "$tmp/app" --vary num_sms=1,2 --quiet --out "$tmp/s1.csv" 2>"$tmp/err"
check "resume refuses another study" [ $? = 1 ]
# a damaged table (a line of other fields) is bad input, at its line
cp "$tmp/s1.csv" "$tmp/dm.csv"; echo x >> "$tmp/dm.csv"
$W sweep "$tmp/app" "$tmp/mem" $V --quiet --out "$tmp/dm.csv" 2>"$tmp/err"
check "resume of a damaged table: exit 2, FILE:LINE: error" sh -c "[ $? = 2 ] && grep -q 'dm.csv:[0-9]*: error: 1 fields' '$tmp/err'"
# a --points value that no key takes is an error of the file, before any run
printf 'num_sms\n8\nabc\n' > "$tmp/bp.csv"
$W sweep "$tmp/app" --points "$tmp/bp.csv" --mode interval --quiet > /dev/null 2>"$tmp/err"
check "--points bad value: exit 2 at its line" sh -c "[ $? = 2 ] && grep -q 'bp.csv:3: error: expected an integer' '$tmp/err'"

# ---- --points CSV = the same product by --vary --------------------------------
printf 'num_sms,clock_mhz\n' > "$tmp/pts.csv"
for s in 66 114 132; do for c in 1200 1500 1800; do echo "$s,$c"; done; done >> "$tmp/pts.csv"
$W sweep "$tmp/app" "$tmp/mem" --points "$tmp/pts.csv" --mode interval --quiet --out "$tmp/p.csv"
check "--points = --vary" cmp -s "$tmp/s1.csv" "$tmp/p.csv"

# ---- JSON lines, and merge converts back ---------------------------------------
$W sweep "$tmp/app" "$tmp/mem" $V --quiet --format json --out "$tmp/s.jsonl"
check "json lines: one object a line" [ "$(grep -c '^{"trace": ' "$tmp/s.jsonl")" = 54 ]
$W merge --quiet --out "$tmp/fromjson.csv" "$tmp/s.jsonl"
check "merge of JSON lines = CSV table" cmp -s "$tmp/s1.csv" "$tmp/fromjson.csv"

# ---- --emit-jobs: GNU parallel + merge, Slurm script ------------------------------
(cd "$tmp" && $W sweep app mem $V --emit-jobs jobs --quiet)
check "emit-jobs: 18 commands" [ "$(wc -l < "$tmp/jobs/jobs.txt")" = 18 ]
check "jobs.slurm passes bash -n" bash -n "$tmp/jobs/jobs.slurm"
check "jobs.slurm: array 1-18" grep -q '^#SBATCH --array=1-18$' "$tmp/jobs/jobs.slurm"
(cd "$tmp" && $W sweep app mem $V --jobs 2 --quiet --out local.csv)
if command -v parallel >/dev/null 2>&1; then
    parallel --will-cite --jobs 2 < "$tmp/jobs/jobs.txt"
    check "GNU parallel ran every job" [ $? = 0 ]
    $W merge --quiet --out "$tmp/merged.csv" "$tmp/jobs/parts"
    check "GNU parallel + merge = local sweep" cmp -s "$tmp/local.csv" "$tmp/merged.csv"
else
    echo "notice: study: GNU parallel absent (apt-get install parallel): --emit-jobs run through sh only"
    sh "$tmp/jobs/jobs.txt"
    $W merge --quiet --out "$tmp/merged.csv" "$tmp/jobs/parts"
    check "jobs.txt through sh + merge = local sweep" cmp -s "$tmp/local.csv" "$tmp/merged.csv"
fi
# --emit-jobs resumes like the local sweep: points already in --out are not emitted
# header + 9 rows: one whole point of app (5 kernels) and 4 rows of the next,
# which was cut short and is emitted again
head -10 "$tmp/local.csv" > "$tmp/half.csv"
cp "$tmp/half.csv" "$tmp/half.bak"
(cd "$tmp" && $W sweep app mem $V --out half.csv --emit-jobs jobs2 --quiet)
nd=$(wc -l < "$tmp/jobs2/jobs.txt")
check "emit-jobs --out: the done point not emitted ($nd = 17)" [ "$nd" = 17 ]
check "emit-jobs --out: slurm array matches ($nd)" grep -q "^#SBATCH --array=1-$nd\$" "$tmp/jobs2/jobs.slurm"
check "emit-jobs --out: leaves --out as it is" cmp -s "$tmp/half.csv" "$tmp/half.bak"
sh "$tmp/jobs2/jobs.txt"
# the parts first: the point cut short in half.csv is taken from them
$W merge --quiet --out "$tmp/merged2.csv" "$tmp/jobs2/parts" "$tmp/half.csv"
check "emit-jobs --out + merge = local sweep" cmp -s "$tmp/local.csv" "$tmp/merged2.csv"
(cd "$tmp" && $W sweep app mem $V --out local.csv --emit-jobs jobs3 --quiet)
check "emit-jobs --out complete: nothing emitted" [ ! -s "$tmp/jobs3/jobs.txt" ]
check "emit-jobs --out complete: slurm script passes bash -n" bash -n "$tmp/jobs3/jobs.slurm"
# merge keeps the first copy of a point
$W merge --quiet --out "$tmp/twice.csv" "$tmp/merged.csv" "$tmp/jobs/parts"
check "merge: a point from two inputs counts once" cmp -s "$tmp/local.csv" "$tmp/twice.csv"

# ---- RFC 4180: a kernel name with a comma and a quote is one field -------------
mkdir "$tmp/q"; cp "$tmp/mem"/* "$tmp/q/"
k=$(ls "$tmp/q"/*.traceg | head -1)
sed '1s/^-kernel name = .*/-kernel name = void f<int, "x">(int)/' "$k" > "$k.new" && mv "$k.new" "$k"
$W predict "$tmp/q" --mode interval --format csv > "$tmp/q.csv"
check "predict csv quotes a name" grep -q '^1,"void f<int, ""x"">(int)",' "$tmp/q.csv"
$W sweep "$tmp/q" --vary num_sms=1,2 --mode interval --quiet --out "$tmp/qs.csv"
$W merge --quiet --out "$tmp/qm.csv" "$tmp/qs.csv"
check "sweep/merge round-trip a quoted name" cmp -s "$tmp/qs.csv" "$tmp/qm.csv"
if command -v python3 >/dev/null 2>&1; then
    n=$(python3 -c 'import csv,sys; r=list(csv.reader(open(sys.argv[1]))); print(len({len(x) for x in r}), r[1][2])' "$tmp/qs.csv")
    check "python csv reads one field per column ($n)" [ "$n" = '1 void f<int, "x">(int)' ]
fi

# ---- did you mean ------------------------------------------------------------------
$W sweep "$tmp/app" --vary num_sm=1 2>"$tmp/err"; r=$?
check "unknown key: exit 1 + suggestion" [ $r = 1 ] && grep -q "did you mean 'num_sms'" "$tmp/err"
$W sweep "$tmp/app" --vary num_sms=1 --jbos 2 2>"$tmp/err"
check "unknown option: suggestion" grep -q "did you mean '--jobs'" "$tmp/err"
$W sweep "$tmp/app" --vary num_sms=1 --mode hybird 2>"$tmp/err"
check "unknown mode: suggestion" grep -q "did you mean 'hybrid'" "$tmp/err"

# ---- report -----------------------------------------------------------------------
$W predict "$tmp/app" --mode interval --format json > "$tmp/pi.json"
$W predict "$tmp/mem" --mode detailed --format json > "$tmp/pd.json"
$W report --quiet --out "$tmp/r.html" "$tmp/pi.json" "$tmp/pd.json" "$tmp/s1.csv"
check "report exit status" [ $? = 0 ]
check "report: self-contained (no http)" sh -c "! grep -q 'http://\|https://\|<script' '$tmp/r.html' || \
  [ \"\$(grep -o 'https\?://[^\"]*' '$tmp/r.html' | sort -u)\" = 'http://www.w3.org/2000/svg' ]"
check "report: 2 sweep figures per key" [ "$(grep -c '<svg class="chart curve\|<svg class="chart speedup' "$tmp/r.html")" = 4 ]
$W report --quiet --out "$tmp/r2.html" "$tmp/pi.json" "$tmp/pd.json" "$tmp/s1.csv"
check "report is deterministic" cmp -s "$tmp/r.html" "$tmp/r2.html"
printf 'a,b\n1,2\n' > "$tmp/notsweep.csv"
$W report --out "$tmp/x.html" "$tmp/notsweep.csv" 2>/dev/null
check "report: bad input exits 2" [ $? = 2 ]
# a number out of a double's range (9e999) in a calibrate JSON made report
# loop and grow without bound; inf or nan cycles in a sweep table drew NaN
# coordinates: both are bad input now
printf '{"measurements": [{"label": "a", "measured": 100, "before": 100, "after": 9e999}]}\n' > "$tmp/inf.json"
timeout 20 $W report --out "$tmp/x.html" "$tmp/inf.json" 2>/dev/null
check "report: an infinite number is bad input (exit 2, no hang)" [ $? = 2 ]
printf 'trace,kernel_id,kernel,num_sms,mode,seed,cycles\nt,1,k,8,interval,0,5267\nt,1,k,16,interval,0,inf\n' > "$tmp/sinf.csv"
$W report --out "$tmp/x.html" "$tmp/sinf.csv" 2>"$tmp/sinf.err"
check "report: inf cycles in a sweep table are bad input" sh -c "[ $? = 2 ] && grep -q ':3: error: cycles' '$tmp/sinf.err'"
# calibrate JSON (tests/study/calib-gt200.json: `calibrate --format json` of
# the gt200 example of docs/calibration.md): a scatter, 2 x 35 points
$W report --quiet --out "$tmp/cal.html" tests/study/calib-gt200.json
check "report: calibration scatter" grep -q '<svg class="chart scatter' "$tmp/cal.html"
check "report: 70 scatter points" [ "$(grep -c '^<circle' "$tmp/cal.html")" = 70 ]
check "report: MAPE shown" grep -q 'MAPE 50.34% before, 0.41% after' "$tmp/cal.html"

# --svg-dir: every figure of the page also as a standalone SVG file
$W report --quiet --out "$tmp/r3.html" "$tmp/pi.json" "$tmp/s1.csv" tests/study/calib-gt200.json
$W report --quiet --out "$tmp/sv.html" --svg-dir "$tmp/svg" "$tmp/pi.json" "$tmp/s1.csv" tests/study/calib-gt200.json
nsv=$(ls "$tmp/svg" | grep -c '^fig[0-9][0-9]-[a-z]*\.svg$')
check "report --svg-dir: one file per figure ($nsv)" [ "$nsv" = "$(grep -o '<svg ' "$tmp/sv.html" | wc -l)" ] && [ "$nsv" -gt 3 ]
check "report --svg-dir: the page is unchanged" cmp -s "$tmp/sv.html" "$tmp/r3.html"
check "report --svg-dir: scatter has its 70 points" [ "$(grep -c '^<circle' "$tmp/svg/"*-scatter.svg)" = 70 ]
check "report --svg-dir: standalone (XML declaration, CSS inside)" sh -c 'for f in "$1"/*.svg; do head -1 "$f" | grep -q "^<?xml" && grep -q "<style>" "$f" || exit 1; done' sh "$tmp/svg"
if command -v xmllint >/dev/null 2>&1; then
    check "report --svg-dir: well-formed XML" xmllint --noout "$tmp/svg/"*.svg
fi
# every --format a command accepts gives that format
$W ubench data/ubench/listing1-r10-r12.sass --format csv > "$tmp/u.csv"
check "ubench --format csv" [ "$(cat "$tmp/u.csv")" = "$(printf 'warp,subcore,clock_index,clock,delta\n0,0,0,111,\n0,0,1,118,7')" ]
$W gpus --keys --format csv > "$tmp/k.csv"
check "gpus --keys --format csv: quoted help" grep -q '^shmem_carveouts,string,,,,KiB list,"shared memory sizes the driver may pick, comma separated (""0,8,16,32,64,100"")"$' "$tmp/k.csv"

# progress on stderr: on a terminal only, never in a pipe or with --quiet
# (script(1) gives the command a terminal; WARPCAST_PROGRESS_AFTER=0: the
# line from the first tick, as the calibration may take under a second)
CAL="calibrate --gpu gt200 --model detailed --measured data/calib/gt200/tables.csv --set lat_fp32=20 --fit lat_fp32"
$W $CAL > "$tmp/cal-pipe.txt" 2> "$tmp/cal-pipe.err"
check "calibrate in a pipe: no progress" [ ! -s "$tmp/cal-pipe.err" ]
if command -v script >/dev/null 2>&1; then
    script -qec "env WARPCAST_PROGRESS_AFTER=0 $W $CAL > $tmp/cal-tty.txt" /dev/null > "$tmp/cal-tty.err" 2>&1
    check "calibrate on a terminal: progress" grep -q 'calibrate: detailed model, 1 key \.\.\. [0-9]* row predictions' "$tmp/cal-tty.err"
    # (but for the host seconds)
    check "calibrate: progress leaves the result alone" [ "$(sed 's/[0-9.]* s;//' "$tmp/cal-pipe.txt")" = "$(sed 's/[0-9.]* s;//' "$tmp/cal-tty.txt")" ]
    script -qec "env WARPCAST_PROGRESS_AFTER=0 $W $CAL --quiet > /dev/null" /dev/null > "$tmp/cal-q.err" 2>&1
    check "calibrate --quiet on a terminal: no progress" [ "$(grep -c 'row predictions' "$tmp/cal-q.err")" = 0 ]
else
    echo "notice: study: script(1) absent: progress on a terminal not tested"
fi

CHROME=
for c in chromium chromium-browser google-chrome; do
    command -v $c >/dev/null 2>&1 && { CHROME=$c; break; }
done
if [ -n "$CHROME" ]; then
    prof=$(mktemp -d)
    copts="--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync --no-first-run --user-data-dir=$prof"
    timeout 120 $CHROME $copts --dump-dom "file://$tmp/r.html" > "$tmp/dom.html" 2>/dev/null
    for el in '<svg' '<rect' '<polyline' '<circle' '<text'; do
        check "chromium DOM has $el" grep -q "$el" "$tmp/dom.html"
    done
    nsvg=$(grep -o '<svg' "$tmp/dom.html" | wc -l)
    check "chromium DOM: 8 figures ($nsvg)" [ "$nsvg" = 8 ]
    timeout 120 $CHROME $copts --dump-dom "file://$tmp/cal.html" 2>/dev/null | grep -o '<circle' > "$tmp/c.txt"
    check "chromium DOM: calibration scatter points" [ "$(wc -l < "$tmp/c.txt")" = 70 ]
    (cd "$tmp" && timeout 120 $CHROME $copts --window-size=800,700 --screenshot="$tmp/shot.png" "file://$tmp/r.html" >/dev/null 2>&1)
    if command -v python3 >/dev/null 2>&1; then
        frac=$(python3 tests/study/png_ink.py "$tmp/shot.png")
        check "screenshot is not blank (ink fraction $frac)" python3 -c "import sys; sys.exit(0 if 0.01 < float('$frac') < 0.9 else 1)"
    else
        check "screenshot written" [ "$(wc -c < "$tmp/shot.png")" -gt 20000 ]
    fi
    rm -rf "$prof"
else
    echo "notice: study: Chromium absent (apt-get install chromium): report not opened in a browser"
fi

echo "study: $pass passed, $fail failed"
[ $fail = 0 ]
