#!/usr/bin/env bash
# Short runs of the long suites so they cannot rot (part of `make test`):
# every fuzz target on its committed corpus, a 30 s soak, every benchmark
# once and the make-bench harness's speed group, quick ("front"), then the
# harness's other groups, quick ("bench").
# Usage: scripts/smoke.sh [all|front|bench]   (default all)
set -euo pipefail
cd "$(dirname "$0")/.."
part=${1:-all}
case $part in all | front | bench) ;; *) echo "usage: scripts/smoke.sh [all|front|bench]" >&2; exit 2 ;; esac

# The soak mostly waits on its paced sessions (about 8 s of CPU in 40 s) and
# bounds no time, only completions, heap and goroutines: it runs beside the
# fuzz seeds and the one-iteration benchmarks, whose figures nobody reads.
front() {
  local soaklog=/tmp/soak-smoke.log soak
  echo "soak: 30 s smoke (in the background)"
  go test -tags soak -count=1 -timeout 5m -run TestSoak ./session/ -soak.duration=30s >"$soaklog" 2>&1 &
  soak=$!
  scripts/fuzz.sh "${SMOKE_FUZZTIME:-seeds}" || { kill "$soak" 2>/dev/null; exit 1; }
  echo "bench: one iteration of every benchmark"
  go test -run='^$' -bench=. -benchtime=1x -count=1 ./... >/tmp/bench-smoke.log 2>&1 || { cat /tmp/bench-smoke.log; kill "$soak" 2>/dev/null; exit 1; }
  grep -c '^Benchmark' /tmp/bench-smoke.log | sed 's/^/bench: benchmarks run: /'
  if ! wait "$soak"; then
    cat "$soaklog"; echo "soak: failed"; exit 1
  fi
  tail -n 1 "$soaklog" | sed 's/^/soak: /'
  # Quick, the speed group's `go test -bench` figures are one iteration:
  # nothing there needs the machine to itself.
  echo "bench: quick run of the make-bench harness, speed group"
  go run ./cmd/bench -quick -only speed -out /tmp/BENCHMARKS.quick-speed.md
}

# The other groups time sessions, so they run alone (make test starts them
# last).
quickbench() {
  echo "bench: quick run of the make-bench harness, the groups that time sessions"
  go run ./cmd/bench -quick -only fidelity,browser,capacity,pacing -out /tmp/BENCHMARKS.quick.md
}

case $part in
  front) front ;;
  bench) quickbench ;;
  all) front; quickbench ;;
esac
