#!/usr/bin/env bash
# Short runs of the long suites so they cannot rot (part of `make test`):
# every fuzz target on its committed corpus, a 30 s soak, every benchmark once.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/fuzz.sh "${SMOKE_FUZZTIME:-seeds}"
echo "soak: 30 s smoke"
go test -tags soak -count=1 -timeout 5m -run TestSoak ./session/ -soak.duration=30s
echo "bench: one iteration of every benchmark"
go test -run='^$' -bench=. -benchtime=1x -count=1 ./... >/tmp/bench-smoke.log 2>&1 || { cat /tmp/bench-smoke.log; exit 1; }
grep -c '^Benchmark' /tmp/bench-smoke.log | sed 's/^/bench: benchmarks run: /'
echo "bench: quick run of the make-bench harness"
go run ./cmd/bench -quick -out /tmp/BENCHMARKS.quick.md
