#!/bin/sh
# tests/golden/run.sh - golden end-to-end tests of the warpcast program.
#
# Each case is a folder tests/golden/<case>/ holding:
#   cmd              the arguments, one shell line (run from the repo root)
#   expected_stdout  expected_stderr  expected_exit
#   needs_shared     (optional) skip with a notice when ../shared is absent
#   filter           (optional) sed script applied to stdout before comparing
#                    (e.g. to drop host_seconds)
# --bless rewrites the expectations from the current program.
# Further arguments name the cases to run (default: all).
set -u
# hermetic: no run reads or fills the user's trace cache unless a test says so
WARPCAST_TRACE_CACHE=off; export WARPCAST_TRACE_CACHE
WARPCAST=${WARPCAST:-build/warpcast}
bless=0
[ "${1:-}" = "--bless" ] && { bless=1; shift; }
only="$*"
pass=0; fail=0; skip=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for dir in tests/golden/*/; do
    case=${dir%/}; case=${case##*/}
    [ -f "$dir/cmd" ] || continue
    if [ -n "$only" ]; then
        case " $only " in *" $case "*) ;; *) continue ;; esac
    fi
    if [ -f "$dir/needs_shared" ] && [ ! -d ../shared/data/traces ]; then
        echo "notice: golden/$case skipped: ../shared absent"; skip=$((skip+1)); continue
    fi
    args=$(cat "$dir/cmd")
    # each case gets an empty TMPDIR and must leave it empty (a scratch
    # file or folder left behind, on success or on error, fails the case)
    rm -rf "$tmp/td"; mkdir "$tmp/td"
    eval "TMPDIR=\"$tmp/td\" \"$WARPCAST\" $args" >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/exit"
    left=$(ls -A "$tmp/td")
    if [ -f "$dir/filter" ]; then
        sed -f "$dir/filter" "$tmp/out" >"$tmp/out2"; mv "$tmp/out2" "$tmp/out"
        sed -f "$dir/filter" "$tmp/err" >"$tmp/err2"; mv "$tmp/err2" "$tmp/err"
    fi
    if [ $bless = 1 ]; then
        cp "$tmp/out" "$dir/expected_stdout"; cp "$tmp/err" "$dir/expected_stderr"
        cp "$tmp/exit" "$dir/expected_exit"; echo "blessed $case"; continue
    fi
    ok=1
    if [ -n "$left" ]; then
        ok=0; echo "FAIL golden/$case: left in TMPDIR: $left"
    fi
    for f in stdout stderr exit; do
        src=$tmp/out; [ $f = stderr ] && src=$tmp/err; [ $f = exit ] && src=$tmp/exit
        if ! cmp -s "$src" "$dir/expected_$f"; then
            ok=0; echo "FAIL golden/$case: $f differs"; diff "$dir/expected_$f" "$src" | head -20
        fi
    done
    if [ $ok = 1 ]; then pass=$((pass+1)); else fail=$((fail+1)); fi
done
echo "golden: $pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
