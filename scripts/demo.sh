#!/usr/bin/env bash
# The run command: installs what is missing, builds, starts a receiver on three local ports over
# a demo storage folder, then opens the desktop window on it when a display exists; without one
# it uploads a sample set of files through all three ports and shows where they landed.
# Everything stays under ./demo; nothing is left running.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
BUILD_DIR=build scripts/build.sh
bin=build/app

demo="$PWD/demo"
rm -rf "$demo/storage" "$demo/receiver.log"
mkdir -p "$demo/storage" "$demo/samples/photos/2024"
if [ ! -f "$demo/samples/video.bin" ]; then
    echo "making sample files in $demo/samples"
    head -c $((256 * 1024 * 1024)) /dev/urandom >"$demo/samples/video.bin"
    for i in $(seq 1 40); do head -c $((i * 37 * 1024)) /dev/urandom >"$demo/samples/photos/2024/img_$i.jpg"; done
    echo "hello from multilane" >"$demo/samples/photos/readme.txt"
fi

"$bin/multilane-receiver" --storage "$demo/storage" --listen 127.0.0.1:0,0,0 >"$demo/receiver.log" 2>&1 &
receiver=$!
trap 'kill $receiver 2>/dev/null || true' EXIT
endpoints=()
for _ in $(seq 1 100); do
    mapfile -t urls < <(sed -n 's/^listening on //p' "$demo/receiver.log")
    [ ${#urls[@]} -ge 3 ] && break
    kill -0 $receiver 2>/dev/null || { cat "$demo/receiver.log"; exit 1; }
    sleep 0.1
done
for u in "${urls[@]}"; do endpoints+=(--endpoint "$u"); done
echo "receiver: ${urls[*]} -> $demo/storage"

# With a display, the desktop window over the same receiver; its settings and resume journal
# stay under ./demo, so the user's own are untouched. MULTILANE_HEADLESS=1 forces the CLI demo.
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "${MULTILANE_HEADLESS:-}" ]; then
    export XDG_CONFIG_HOME="$demo/config" XDG_STATE_HOME="$demo/state"
    mkdir -p "$XDG_CONFIG_HOME/Multilane/multilane"
    list=""
    for u in "${urls[@]}"; do list+="${list:+,}{\"url\":\"$u\"}"; done
    printf '{"endpoints":[%s],"onConflict":"overwrite"}\n' "$list" >"$XDG_CONFIG_HOME/Multilane/multilane/settings.json"
    echo "opening the window: drop files or folders on it (samples in $demo/samples); close it to stop the demo"
    "$bin/multilane"
    exit 0
fi

"$bin/multilane" upload "${endpoints[@]}" --on-conflict overwrite \
    "$demo/samples/video.bin" "$demo/samples/photos/"

echo
echo "landed in $demo/storage:"
(cd "$demo/storage" && find . -path ./.multilane -prune -o -type f -print | sort | head -8 && echo "  … $(find . -path ./.multilane -prune -o -type f -print | wc -l) files")
echo "checksums match: $(cd "$demo/samples" && sha256sum video.bin | cut -c1-16) (source) = $(cd "$demo/storage" && sha256sum video.bin | cut -c1-16) (stored)"
