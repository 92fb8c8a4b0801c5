#!/usr/bin/env bash
# Full benchmark suite → BENCHMARKS.md (make bench runs `make wasm` first).
# Usage: scripts/bench.sh [bench flags…]   e.g. scripts/bench.sh -quick -out /tmp/BENCHMARKS.quick.md
# About 50 minutes on a 2-core machine; see BENCHMARKS.md "How to reproduce".
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f web/app.wasm ] && [ -f web/app.wasm.br ] || { echo "bench: web/app.wasm(.br) missing: run make wasm (make bench does)" >&2; exit 1; }
[ -x /usr/bin/chromium ] || { echo "bench: /usr/bin/chromium missing: run scripts/deps.sh test" >&2; exit 1; }
ls -d /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { echo "bench: PostgreSQL binaries missing: run scripts/deps.sh test" >&2; exit 1; }
args=("$@")
[[ " ${args[*]-} " == *" -out "* ]] || args+=(-out BENCHMARKS.md)
exec go run ./cmd/bench "${args[@]}"
