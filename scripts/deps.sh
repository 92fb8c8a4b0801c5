#!/usr/bin/env bash
# Installs what `make run` / `make test` need on a fresh Debian machine.
# Usage: scripts/deps.sh run|test
set -euo pipefail
want=()
need() { command -v "$1" >/dev/null 2>&1 || want+=("$2"); }
case "${1:-test}" in
  run) ;;
  test)
    need chromium chromium
    [ -x "$(ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | head -n1)" ] || want+=(postgresql)
    need node nodejs
    need ffmpeg ffmpeg
    need chrt util-linux # scripts/test.sh: work beside the timed suites runs under SCHED_IDLE
    need brotli brotli # internal/compress: the C encoder, 33 s instead of the Go port's 55 s for app.wasm
    ;;
esac
if [ ${#want[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null; then
    echo "missing: ${want[*]}; run: sudo apt-get install -y ${want[*]}" >&2; exit 1
  fi
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "installing: ${want[*]}"
  $SUDO apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${want[@]}" >/dev/null || {
    echo "apt-get install failed; run: sudo apt-get install -y ${want[*]}" >&2; exit 1; }
fi
