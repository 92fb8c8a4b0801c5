#!/usr/bin/env bash
# Rewrites the golden snapshots (`make golden`). The -update flag belongs to
# internal/golden, so only packages whose tests import it accept the flag;
# `go test ./... -update` fails everywhere else. The list is computed here on
# every run, so a new package with golden tests is picked up without editing
# anything, and a testdata/golden folder whose package does not import
# internal/golden (its files could never be rewritten) is an error.
# Extra arguments go to go test (e.g. scripts/golden.sh -run TestReport).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
mod=$($GO list -m)
helper="$mod/internal/golden"
mapfile -t pkgs < <($GO list -f '{{.ImportPath}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}' ./... |
  awk -v h="$helper" '{ for (i = 2; i <= NF; i++) if ($i == h) { print $1; break } }')
if [ ${#pkgs[@]} -eq 0 ]; then
  echo "golden: no package's tests import $helper" >&2; exit 1
fi
missing=0
while IFS= read -r dir; do
  pkg="$mod/${dir#./}"
  pkg=${pkg%/testdata/golden}
  found=0
  for p in "${pkgs[@]}"; do [ "$p" = "$pkg" ] && found=1 && break; done
  if [ $found -eq 0 ]; then
    echo "golden: $dir exists but $pkg's tests do not import $helper (nothing would rewrite it)" >&2
    missing=1
  fi
done < <(find . -path ./.git -prune -o -type d -path '*/testdata/golden' -print | sort)
[ $missing -eq 0 ] || exit 1
echo "golden: ${pkgs[*]#"$mod/"}"
$GO test -count=1 "${pkgs[@]}" -update "$@"
