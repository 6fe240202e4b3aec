#!/bin/sh
# The entry point of tinyagent's MCP bundle (.mcpb) on macOS and Linux. A bundle is chosen by OS
# only, so it carries one binary per CPU and this picks the one for this machine: on a Mac, Apple
# silicon is told by the hardware (sysctl), not by uname, which says x86_64 under Rosetta. The host
# runs it with /bin/sh, so it works even when the host unpacked the bundle without execute bits;
# the binary gets its execute bit back here. exec, so the host's signals reach tinyagent itself.
set -eu

here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)

case $(uname -s) in
  Darwin)
    if [ "$(sysctl -n hw.optional.arm64 2>/dev/null || true)" = 1 ]; then arch=aarch64; else arch=x86_64; fi
    ;;
  *)
    case $(uname -m) in
      x86_64 | amd64) arch=x86_64 ;;
      aarch64 | arm64) arch=aarch64 ;;
      *) arch=$(uname -m) ;;
    esac
    ;;
esac

binary="$here/tinyagent-$arch"
if [ ! -f "$binary" ]; then
  has=""
  for file in "$here"/tinyagent-*; do
    [ -f "$file" ] && has="$has${file##*/} "
  done
  echo "tinyagent: this bundle has no binary for $(uname -sm) (it has: $has)" >&2
  exit 1
fi
if [ ! -x "$binary" ] && ! chmod 755 "$binary" 2>/dev/null; then
  echo "tinyagent: $binary is not executable and cannot be made so; run: chmod 755 '$binary'" >&2
  exit 1
fi
exec "$binary" "$@"
