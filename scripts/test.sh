#!/usr/bin/env bash
# The order of `make test` (run by it after deps).
#
# A suite that bounds a time gets the CPU it was measured with. Work that
# bounds none runs beside it under SCHED_IDLE (`chrt --idle 0`), on the
# cycles it leaves idle:
#   - `make wasm` (a compile, then brotli-11 of app.wasm: 33 s of one core)
#     beside `make check` and `make unit` (1.65 of the 2 cores over its
#     116 s: the wasm gets little of it, and its brotli is what the next
#     phase waits for, so nothing else runs before it);
#   - the e2e tests that bound no time (`make e2e-untimed`, two browsers at
#     a time), `make smoke-front` (fuzz seeds, one-iteration benchmarks,
#     the 30 s soak, the bench's speed group), `make wasmtest` (the pure
#     packages under node: 28 s of both cores; before the wasm was awaited
#     it held the brotli back by as much) and the quick bench's own
#     builds (`go run ./cmd/bench -prepare`: the hello world's wasm, whose
#     brotli-11 alone takes most of a minute) beside `make security` (about
#     half the CPU of its minute) and `make e2e-timed`, the e2e tests that
#     bound a time: they run one browser at a time and leave most of a core
#     idle; then `make e2e-server` (browser tests with bounded page loads)
#     and the quick bench (`scripts/smoke.sh bench`: its figures only show
#     that the harness still writes its rows, so it asserts no time and
#     needs no machine to itself, but it runs at normal priority so that
#     its browsers are not starved). e2e-untimed (about 500 s beside)
#     starts first; it used to end the phase and hold e2e-server and the
#     quick bench back by 50 s (a fresh clone: 863 s in all).
# Not nice 19: chromium, run as root, sets its own threads' nice values
# (-8 for the compositor and display threads), so browsers beside the timed
# ones at nice 19 took the CPU back (a timed test's worker send jitter p99
# 1.2 ms alone, 31.7 ms beside niced browsers, 4.7 ms beside SCHED_IDLE
# ones); a thread's nice value does not lift it out of SCHED_IDLE.
# `make wasm` moves whole files into web/ (the Makefile), so a test binary
# compiled meanwhile embeds either no wasm or all of it. `make bench` (not
# part of this) is where the groups that time sessions run alone.
set -euo pipefail
cd "$(dirname "$0")/.."
make="${MAKE:-make} --no-print-directory"

# beside NAME COMMAND…: start COMMAND under SCHED_IDLE in a process group
# of its own (set -m), output to a log.
beside() {
  local name=$1 log=/tmp/duplexscope-test-$1.log
  shift
  set -m
  {
    rc=0
    chrt --idle 0 "$@" || rc=$?
    echo "make test: $name ended at $((SECONDS - t0)) s"
    exit "$rc"
  } >"$log" 2>&1 &
  set +m
  eval "pid_$name=$!"
  running="$running $!"
}

# await NAME: wait for it, print its log, fail if it failed.
await() {
  local pid log=/tmp/duplexscope-test-$1.log rc=0
  eval "pid=\$pid_$1"
  wait "$pid" || rc=$?
  echo "--- $1 (ran beside; SCHED_IDLE) ---"
  cat "$log"
  if [ "$rc" -ne 0 ]; then
    echo "make test: $1 failed (exit $rc)"
    exit "$rc"
  fi
}

# step COMMAND…: run it, then say how long it took (the log shows where
# the suite's minutes go).
t0=$SECONDS
step() {
  local t=$SECONDS rc=0
  "$@" || rc=$?
  echo "make test: $* took $((SECONDS - t)) s (at $((SECONDS - t0)) s)"
  return "$rc"
}

# On failure, stop whatever still runs beside (its whole process group).
running=""
trap 'for p in $running; do kill -- -"$p" 2>/dev/null || true; done' EXIT

beside wasm $make wasm
step $make check
step $make unit
step await wasm
beside untimed $make e2e-untimed
beside smoke $make smoke-front
beside prepare go run ./cmd/bench -prepare
beside wasmtest $make wasmtest
step $make security
step $make e2e-timed
step $make e2e-server
step await prepare
step scripts/smoke.sh bench
step await smoke
step await wasmtest
step await untimed
echo "make test: all passed"
