#!/usr/bin/env bash
# Re-vendors axe-core, the accessibility engine the browser tests inject into
# pages (test data only: the product never serves it).
# Vendoring time only (needs the npm registry); nothing is fetched at test time.
# Usage: internal/axe/vendor.sh [VERSION]   (run from anywhere; default version below)
set -euo pipefail
ver="${1:-4.14.1}"
here="$(cd "$(dirname "$0")" && pwd)/testdata"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
( cd "$tmp" && npm pack --silent "axe-core@${ver}" >/dev/null && tar -xzf "axe-core-${ver}.tgz" )
cp "$tmp/package/axe.min.js" "$here/axe.min.js"
cp "$tmp/package/LICENSE" "$here/LICENSE"
cp "$tmp/package/LICENSE-3RD-PARTY.txt" "$here/LICENSE-3RD-PARTY.txt"
sum="$(sha256sum "$here/axe.min.js" | cut -d' ' -f1)"
cat > "$here/VERSIONS" <<V
# Vendored third-party test data in internal/axe/testdata/ (re-create with internal/axe/vendor.sh; \`make vendor\`).
axe.min.js  npm axe-core@${ver} axe.min.js  sha256 ${sum}  licence: LICENSE (MPL-2.0), LICENSE-3RD-PARTY.txt
V
echo "vendored axe-core@${ver} into $here"
