#!/usr/bin/env bash
# Runs one make step quietly: prints "== LABEL", keeps the command's output in out/logs/NAME.log
# and prints its last 80 lines, then fails, when the command fails.
#
#     tools/quietly.sh NAME "LABEL" COMMAND [ARGS...]
set -uo pipefail
# Cargo would try make's jobserver, whose file descriptors make does not pass to a plain
# recipe line (a warning, then cargo's own job count).
unset MAKEFLAGS MFLAGS
name=$1 label=$2
shift 2
mkdir -p out/logs
log=out/logs/$name.log
echo "== $label"
start=$SECONDS
if "$@" >"$log" 2>&1; then
    echo "   ok: $label ($((SECONDS - start)) s)"
else
    rc=$?
    tail -n 80 "$log"
    echo "!! failed (exit $rc): $label; full log: $log"
    # A full disk reads as many errors; the free space says whether it was one.
    echo "   free space: $(df -h --output=avail . /tmp | tail -n +2 | tr -s ' \n' ' ')(here, /tmp)"
    exit "$rc"
fi
