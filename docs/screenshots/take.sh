#!/usr/bin/env bash
# Takes the README's screenshots from the real app under xvfb-run: the main window in the
# middle of an upload (resumed from the journal, as after a restart), the endpoints dialog
# after a Test, and the settings dialog. Uploads go through throttling proxies so the picture
# catches them moving. Usage: docs/screenshots/take.sh [BUILD_DIR]   (needs xvfb, imagemagick, xdotool)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state
mkdir -p "$work/storage" "$work/samples/photos/2024" "$work/samples/video" "$XDG_CONFIG_HOME/Multilane/multilane"
for i in 1 2 3; do head -c $((160 * 1024 * 1024)) /dev/urandom >"$work/samples/video/clip-$i.mov"; done
for i in $(seq 1 12); do head -c $((i * 700 * 1024)) /dev/urandom >"$work/samples/photos/2024/IMG_20$i.jpg"; done

"$build/app/multilane-receiver" --storage "$work/storage" --listen 127.0.0.1:0,0,0 >"$work/receiver.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
    mapfile -t urls < <(sed -n 's/^listening on //p' "$work/receiver.log")
    [ ${#urls[@]} -ge 3 ] && break
    sleep 0.1
done
endpoints=()
json=""
port=47101
for u in "${urls[@]}"; do
    python3 "$here/throttle_proxy.py" $port "${u##*:}" 1000000 >/dev/null &
    pids+=($!)
    endpoints+=(--endpoint "http://127.0.0.1:$port")
    json+="${json:+,}{\"url\":\"http://127.0.0.1:$port\",\"weight\":1,\"maxConnections\":6}"
    port=$((port + 1))
done
sleep 0.5
cat >"$XDG_CONFIG_HOME/Multilane/multilane/settings.json" <<JSON
{"endpoints":[$json],"destination":"laptop"}
JSON

# A command-line upload interrupted after a few seconds leaves unfinished files in the journal,
# which the window offers to resume when it starts.
timeout -s INT 4 "$build/app/multilane" upload "${endpoints[@]}" --dest laptop --quiet \
    "$work/samples/video" "$work/samples/photos" || true

shoot() { # window-name output.png
    local id
    id=$(xdotool search --sync --onlyvisible --name "$1" | head -1)
    sleep 0.5
    import -window "$id" "$here/$2"
    echo "wrote $here/$2"
}

timeout 120 xvfb-run -a -s "-screen 0 1280x800x24" bash -c "
    set -e
    '$build/app/multilane' &
    app=\$!
    box=\$(xdotool search --sync --onlyvisible --name 'Unfinished uploads' | head -1)
    sleep 0.5
    xdotool windowfocus --sync \$box
    xdotool key Return
    sleep 7
    $(declare -f shoot); here='$here'
    shoot '— Multilane' main-window.png
    main=\$(xdotool search --onlyvisible --name '— Multilane' | head -1)
    xdotool windowfocus --sync \$main
    xdotool key ctrl+e
    xdotool search --sync --onlyvisible --name '^Endpoints\$' >/dev/null
    sleep 0.3
    xdotool windowfocus --sync \$(xdotool search --onlyvisible --name '^Endpoints\$' | head -1)
    xdotool key alt+t
    sleep 4 # health, token and a one-second bandwidth probe
    shoot '^Endpoints\$' endpoints-dialog.png
    xdotool key Escape
    sleep 0.5
    xdotool windowfocus --sync \$main
    xdotool key ctrl+comma
    shoot 'Multilane Settings' settings-dialog.png
    xdotool key Escape
    kill \$app
"
