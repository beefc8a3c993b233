#!/usr/bin/env bash
# Builds the Debian packages from a build folder and checks what `dpkg -x` of them holds:
# binaries that run (--version), the desktop file, icon and metainfo, the hardened unit, and the
# receiver's config file (a conffile the unit reads, which the packaged receiver accepts).
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
# The window is its own program; the command line loads none of its libraries (a script's
# `multilane upload` starts in half the time).
[ -x "$app/usr/bin/multilane-window" ] || fail "multilane package lacks usr/bin/multilane-window"
if readelf -d "$app/usr/bin/multilane" | grep -E 'NEEDED.*lib(Qt6Widgets|Qt6Gui|X11)' >&2; then
    fail "usr/bin/multilane links the window's libraries"
fi
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
conf=$recv/etc/multilane/receiver.conf
[ -s "$conf" ] || fail "multilane-receiver package lacks /etc/multilane/receiver.conf"
dpkg-deb -I "$(ls "$out"/multilane-receiver_*.deb | head -1)" conffiles | grep -qx /etc/multilane/receiver.conf \
    || fail "/etc/multilane/receiver.conf is not a conffile (an upgrade would overwrite the admin's edits)"
grep -q '^ExecStart=/usr/bin/multilane-receiver --config /etc/multilane/receiver.conf' "$unit" \
    || fail "the unit does not start the receiver with --config /etc/multilane/receiver.conf"
"$recv/usr/bin/multilane-receiver" --config "$conf" --version >/dev/null \
    || fail "the packaged receiver refuses its own config file"
command -v desktop-file-validate >/dev/null && desktop-file-validate "$app/usr/share/applications/org.multilane.Multilane.desktop"
command -v appstreamcli >/dev/null && appstreamcli validate --no-net "$app/usr/share/metainfo/org.multilane.Multilane.metainfo.xml" >/dev/null
echo "check-deb: both packages hold runnable binaries"
