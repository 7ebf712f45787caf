#!/bin/sh
# tests/golden/tcache_names.sh - a message about a kernel of a trace read
# through the trace cache names the trace the user gave, not the cache
# file (cli/tcache.c, cli_tcache_name): on the run that converts it and on
# the run that finds it converted.
set -u
WARPCAST=${WARPCAST:-build/warpcast}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$WARPCAST" synth --kind compute --ctas 256 --iters 8 --out "$tmp/trace" --quiet || exit 1
fail=0
for run in convert hit; do
    WARPCAST_TRACE_CACHE="$tmp/cache" "$WARPCAST" predict --quiet --gpu v100 \
        --set max_warps_per_sm=1 "$tmp/trace" >/dev/null 2>"$tmp/err"
    rc=$?
    first=$(head -n 1 "$tmp/err")
    case "$first" in
    "$tmp/trace: error: kernel cannot run on v100"*) ;;
    *) echo "FAIL tcache_names ($run): $first"; fail=1 ;;
    esac
    [ "$rc" = 2 ] || { echo "FAIL tcache_names ($run): exit $rc"; fail=1; }
done
ls "$tmp/cache"/*.wctb >/dev/null 2>&1 || { echo "FAIL tcache_names: nothing cached"; fail=1; }
[ $fail = 0 ] && echo "tcache_names: passed"
exit $fail
