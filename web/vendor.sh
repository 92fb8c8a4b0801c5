#!/usr/bin/env bash
# Re-vendors the echarts runtime the page and share pages draw charts with.
# Vendoring time only (needs the npm registry); nothing is fetched at run time.
# Usage: web/vendor.sh [VERSION]   (run from anywhere; default version below)
set -euo pipefail
ver="${1:-6.1.0}"
here="$(cd "$(dirname "$0")" && pwd)"
. "$(dirname "$0")/../scripts/npm-pack.sh"
npm_pack echarts "$ver"
# The "common" build (line, bar, scatter, pie; grid, title, legend, tooltip,
# toolbox, dataZoom, mark lines, …): every series and component the page's
# and share pages' options use, in 64 % of the full build's bytes, so
# the page parses and runs less script before its first chart.
cp "$pkg/dist/echarts.common.min.js" "$here/echarts.min.js"
cp "$pkg/LICENSE" "$here/LICENSE"
cp "$pkg/NOTICE" "$here/NOTICE"
cp "$pkg/licenses/LICENSE-d3" "$here/LICENSE-d3"
sum="$(sha256sum "$here/echarts.min.js" | cut -d' ' -f1)"
cat > "$here/VERSIONS" <<V
# Vendored third-party files in web/ (re-create with web/vendor.sh; \`make vendor\`).
echarts.min.js  npm echarts@${ver} dist/echarts.common.min.js  sha256 ${sum}  licence: LICENSE (Apache-2.0), NOTICE, LICENSE-d3 (bundled d3 parts)
V
echo "vendored echarts@${ver} into $here"
