#!/usr/bin/env bash
# Re-vendors the echarts runtime the page and share pages draw charts with.
# Vendoring time only (needs the npm registry); nothing is fetched at run time.
# Usage: web/vendor.sh [VERSION]   (run from anywhere; default version below)
set -euo pipefail
ver="${1:-6.1.0}"
here="$(cd "$(dirname "$0")" && pwd)"
. "$(dirname "$0")/../scripts/npm-pack.sh"
npm_pack echarts "$ver"
cp "$pkg/dist/echarts.min.js" "$here/echarts.min.js"
cp "$pkg/LICENSE" "$here/LICENSE"
cp "$pkg/NOTICE" "$here/NOTICE"
cp "$pkg/licenses/LICENSE-d3" "$here/LICENSE-d3"
sum="$(sha256sum "$here/echarts.min.js" | cut -d' ' -f1)"
cat > "$here/VERSIONS" <<V
# Vendored third-party files in web/ (re-create with web/vendor.sh; \`make vendor\`).
echarts.min.js  npm echarts@${ver} dist/echarts.min.js  sha256 ${sum}  licence: LICENSE (Apache-2.0), NOTICE, LICENSE-d3 (bundled d3 parts)
V
echo "vendored echarts@${ver} into $here"
