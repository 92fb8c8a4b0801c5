# Sourced by the vendoring scripts (web/vendor.sh, internal/axe/vendor.sh):
# npm_pack NAME VERSION unpacks the npm package NAME@VERSION into
# "$pkg" (a temporary folder removed on exit). Vendoring time only: it
# needs the npm registry; nothing is fetched at run or test time.
npm_pack() {
  local tmp
  tmp="$(mktemp -d)"
  trap "rm -rf '$tmp'" EXIT
  ( cd "$tmp" && npm pack --silent "$1@$2" >/dev/null && tar -xzf "$1-$2.tgz" )
  pkg="$tmp/package"
}
