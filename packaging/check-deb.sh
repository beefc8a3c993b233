#!/usr/bin/env bash
# Builds the Debian packages from a build folder and checks what `dpkg -x` of them holds:
# binaries that run (--version), the desktop file, icon and metainfo, the hardened unit.
# Usage: packaging/check-deb.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out" >"$out/cpack.log" 2>&1 || { cat "$out/cpack.log"; exit 1; }
fail() { echo "check-deb: $*" >&2; exit 1; }
for name in multilane multilane-receiver; do
    deb=$(ls "$out"/${name}_*.deb 2>/dev/null | head -1)
    [ -n "$deb" ] || fail "no ${name}_*.deb was made"
    dpkg-deb -x "$deb" "$out/$name"
    echo "$(basename "$deb"): $(dpkg-deb -f "$deb" Depends)"
done

app=$out/multilane
recv=$out/multilane-receiver
# Outside any display, so `multilane` stays the command-line tool even with no arguments.
env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$app/usr/bin/multilane" --version | grep -qx "multilane [0-9.]*" \
    || fail "multilane --version from the package did not answer"
"$recv/usr/bin/multilane-receiver" --version | grep -qx "multilane-receiver [0-9.]*" \
    || fail "multilane-receiver --version from the package did not answer"
for f in usr/share/applications/org.multilane.Multilane.desktop \
         usr/share/metainfo/org.multilane.Multilane.metainfo.xml \
         usr/share/icons/hicolor/scalable/apps/org.multilane.Multilane.svg; do
    [ -s "$app/$f" ] || fail "multilane package lacks $f"
done
unit=$recv/usr/lib/systemd/system/multilane-receiver.service
[ -s "$unit" ] || fail "multilane-receiver package lacks its systemd unit"
for setting in ProtectSystem=strict NoNewPrivileges=yes User=multilane-receiver ReadWritePaths=; do
    grep -q "^$setting" "$unit" || fail "the unit lacks $setting"
done
command -v desktop-file-validate >/dev/null && desktop-file-validate "$app/usr/share/applications/org.multilane.Multilane.desktop"
command -v appstreamcli >/dev/null && appstreamcli validate --no-net "$app/usr/share/metainfo/org.multilane.Multilane.metainfo.xml" >/dev/null
echo "check-deb: both packages hold runnable binaries"
