#!/usr/bin/env bash
# Runs every native fuzz target (func FuzzXxx in *_test.go) for DURATION each.
# Usage: scripts/fuzz.sh DURATION   (make fuzz: 120s each)
#        scripts/fuzz.sh seeds      (make test: each target's committed corpus
#        only, no mutation — a random search in the landing suite would make it
#        flaky; a crash that `make fuzz` finds is committed as a seed instead)
set -euo pipefail
dur=${1:-4s}
cd "$(dirname "$0")/.."
found=0
while IFS=: read -r file name; do
  pkg=./$(dirname "$file")
  found=$((found + 1))
  echo "fuzz: $pkg $name ($dur)"
  if [ "$dur" = seeds ]; then
    go test -count=1 -run="^${name}\$" "$pkg" >/tmp/fuzz-$name.log 2>&1 || { cat /tmp/fuzz-$name.log; exit 1; }
    tail -n 1 /tmp/fuzz-$name.log | sed 's/^/  /'
    continue
  fi
  go test -run='^$' -fuzz="^${name}\$" -fuzztime="$dur" -fuzzminimizetime=1s "$pkg" >/tmp/fuzz-$name.log 2>&1 || {
    cat /tmp/fuzz-$name.log; echo "fuzz: $name failed (new failing input is under $pkg/testdata/fuzz/$name)"; exit 1; }
  { grep -E 'execs' /tmp/fuzz-$name.log | tail -n 1; tail -n 1 /tmp/fuzz-$name.log; } | sed 's/^/  /'
done < <(grep -rEo --include='*_test.go' '^func (Fuzz[A-Za-z0-9_]+)' . | grep -v '/node_modules/' | sed 's/:func /:/' | sort)
[ "$found" -gt 0 ] || { echo "fuzz: no fuzz targets found"; exit 1; }
echo "fuzz: $found targets ran"
