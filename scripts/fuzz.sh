#!/usr/bin/env bash
# Runs every native fuzz target (func FuzzXxx in *_test.go) for DURATION each.
# Usage: scripts/fuzz.sh DURATION   (make test: 4s each; make fuzz: 120s each)
set -euo pipefail
dur=${1:-4s}
cd "$(dirname "$0")/.."
found=0
while IFS=: read -r file name; do
  pkg=./$(dirname "$file")
  found=$((found + 1))
  echo "fuzz: $pkg $name ($dur)"
  go test -run='^$' -fuzz="^${name}\$" -fuzztime="$dur" -fuzzminimizetime=1s "$pkg" >/tmp/fuzz-$name.log 2>&1 || {
    cat /tmp/fuzz-$name.log; echo "fuzz: $name failed (new failing input is under $pkg/testdata/fuzz/$name)"; exit 1; }
  { grep -E 'execs' /tmp/fuzz-$name.log | tail -n 1; tail -n 1 /tmp/fuzz-$name.log; } | sed 's/^/  /'
done < <(grep -rEo --include='*_test.go' '^func (Fuzz[A-Za-z0-9_]+)' . | grep -v '/node_modules/' | sed 's/:func /:/' | sort)
[ "$found" -gt 0 ] || { echo "fuzz: no fuzz targets found"; exit 1; }
echo "fuzz: $found targets ran"
