#!/usr/bin/env bash
# Re-vendors axe-core, the accessibility engine the browser tests inject into
# pages (test data only: the product never serves it).
# Vendoring time only (needs the npm registry); nothing is fetched at test time.
# Usage: internal/axe/vendor.sh [VERSION]   (run from anywhere; default version below)
set -euo pipefail
ver="${1:-4.14.1}"
here="$(cd "$(dirname "$0")" && pwd)/testdata"
. "$(dirname "$0")/../../scripts/npm-pack.sh"
npm_pack axe-core "$ver"
cp "$pkg/axe.min.js" "$here/axe.min.js"
cp "$pkg/LICENSE" "$here/LICENSE"
cp "$pkg/LICENSE-3RD-PARTY.txt" "$here/LICENSE-3RD-PARTY.txt"
sum="$(sha256sum "$here/axe.min.js" | cut -d' ' -f1)"
cat > "$here/VERSIONS" <<V
# Vendored third-party test data in internal/axe/testdata/ (re-create with internal/axe/vendor.sh; \`make vendor\`).
axe.min.js  npm axe-core@${ver} axe.min.js  sha256 ${sum}  licence: LICENSE (MPL-2.0), LICENSE-3RD-PARTY.txt
V
echo "vendored axe-core@${ver} into $here"
