#!/usr/bin/env bash
# Installs what building and testing Multilane needs on Debian 12, if it is missing.
# Fast when everything is there (no apt call at all).
set -euo pipefail

packages=(cmake ninja-build ccache g++ pkg-config clang-format curl dpkg-dev fakeroot file
          qt6-base-dev qt6-base-dev-tools libcpp-httplib-dev libxxhash-dev libssl-dev
          qt6-svg-dev qtkeychain-qt6-dev xvfb xauth imagemagick
          qt6-tools-dev qt6-l10n-tools # lrelease: the window's English plural forms
          clang-14 libclang-rt-14-dev # clang + libFuzzer for the fuzz smoke run in scripts/test.sh
          iptables) # wanemu's NFQUEUE rules (tests/wan)
[ "${MULTILANE_BOOTSTRAP_EXTRA:-}" ] && read -r -a extra <<<"$MULTILANE_BOOTSTRAP_EXTRA" && packages+=("${extra[@]}")

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "bootstrap: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
