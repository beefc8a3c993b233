#!/usr/bin/env bash
# Takes the README's screenshots from the real app in a real window (Xvfb with the openbox
# window manager): the window at start, the endpoints dialog after a Test, the settings, an
# upload in the middle on a 5 MB/s link (linksim in front of a receiver's three ports, each
# endpoint capped at 6 connections), the same upload waiting for its receivers (the receiver
# killed), and the close dialog. Files reach the window as from a file manager: `multilane FILE`
# while the window runs hands them over.
# Usage: docs/screenshots/take.sh [BUILD_DIR]   (installs xvfb, openbox, xdotool, imagemagick)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
need=()
for tool in xvfb-run:xvfb openbox:openbox xdotool:xdotool import:imagemagick xwininfo:x11-utils; do
    command -v "${tool%%:*}" >/dev/null || need+=("${tool#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" xauth >/dev/null
fi
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

export XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_RUNTIME_DIR=$work/runtime
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
mkdir -p "$work/storage" "$work/samples/photos" "$XDG_CONFIG_HOME/Multilane/multilane"
head -c 300000000 /dev/urandom >"$work/samples/holiday.mov"
for i in $(seq 1 50); do head -c $((20000 + i * 3000)) /dev/urandom >"$work/samples/photos/IMG_$i.jpg"; done

start_receiver() { # [listen]
    "$build/app/multilane-receiver" --storage "$work/storage" --listen "${1:-127.0.0.1:0,0,0}" \
        >"$work/receiver.log" 2>&1 &
    receiver=$!
    pids+=($receiver)
    for _ in $(seq 1 100); do
        mapfile -t urls < <(sed -n 's/^listening on //p' "$work/receiver.log")
        [ ${#urls[@]} -ge 3 ] && return 0
        sleep 0.1
    done
    echo "the receiver did not start" >&2
    exit 1
}
start_receiver
ports=$(printf '%s\n' "${urls[@]}" | sed 's/.*://' | paste -sd,)
listens=()
for u in "${urls[@]}"; do listens+=(--listen "127.0.0.1:0=127.0.0.1:${u##*:}"); done
touch "$work/linksim.out"
"$build/bench/linksim/linksim" --total-rate 5MB/s --rtt 20 --buffer 64KiB --quiet "${listens[@]}" \
    >"$work/linksim.out" &
pids+=($!)
for _ in $(seq 1 100); do [ "$(grep -c '^linksim' "$work/linksim.out")" -ge 3 ] && break; sleep 0.1; done
json=""
for port in $(sed -n 's/^linksim 127.0.0.1:\([0-9]*\) .*/\1/p' "$work/linksim.out"); do
    json+="${json:+,}{\"url\":\"http://127.0.0.1:$port\",\"weight\":1,\"maxConnections\":6}"
done
cat >"$XDG_CONFIG_HOME/Multilane/multilane/settings.json" <<JSON
{"endpoints":[$json],"destination":"laptop"}
JSON

# The session inside Xvfb: everything from here on runs with its DISPLAY.
cat >"$work/session.sh" <<'SESSION'
set -euo pipefail
openbox &
sleep 1
shoot() { # window-name-regex output.png [with-popups]
    local id
    id=$(xdotool search --sync --onlyvisible --name "$1" | head -1)
    sleep 0.7
    if [ "${3:-}" ]; then # a tooltip is a window of its own: take the screen where the window is
        eval "$(xwininfo -id "$(xdotool getwindowgeometry "$id" >/dev/null; echo "$id")" -frame |
            sed -n 's/^ *Absolute upper-left X: *\(-*[0-9]*\)/X=\1/p; s/^ *Absolute upper-left Y: *\(-*[0-9]*\)/Y=\1/p;
                   s/^ *Width: *\([0-9]*\)/W=\1/p; s/^ *Height: *\([0-9]*\)/H=\1/p')"
        import -window root -crop "$((W + 2))x$((H + 130))+$((X - 1))+$((Y - 24))" +repage "$here/$2" # room for a tooltip below
    else
        import -frame -window "$id" "$here/$2"
    fi
    echo "wrote $here/$2"
}
focus() { xdotool windowactivate --sync "$(xdotool search --sync --onlyvisible --name "$1" | head -1)"; }
"$build/app/multilane" &
app=$!
main='Multilane$'
xdotool search --sync --onlyvisible --name "$main" >/dev/null
sleep 3 # the window measures the link when it opens
shoot "$main" main-window-start.png

focus "$main"
xdotool key ctrl+e
sleep 0.5
focus '^Endpoints'
xdotool key alt+t
sleep 6 # every endpoint's check, then a one-second upload to each in turn
shoot '^Endpoints' endpoints-dialog.png
xdotool key Escape
sleep 0.5
focus "$main"
xdotool key ctrl+comma
shoot '^Settings' settings-dialog.png
xdotool key Escape

# As from a file manager: the running window takes the files; a folder follows a moment later.
"$build/app/multilane" "$samples/holiday.mov"
sleep 3
"$build/app/multilane" "$samples/photos"
sleep 14
shoot "$main" main-window.png

kill "$receiver"
sleep 5
focus "$main" # Qt shows tooltips in the active window
badge=$(xdotool search --onlyvisible --name "$main" | head -1)
eval "$(xdotool getwindowgeometry --shell "$badge")"
xdotool mousemove --window "$badge" $((WIDTH - 60)) $((HEIGHT - 12)) # over the badge: its tooltip
sleep 0.3
xdotool mousemove_relative 2 0
sleep 2
shoot "$main" main-window-waiting.png popups

focus "$main"
xdotool key ctrl+q
shoot '^Uploads are running' close-dialog.png
xdotool key Escape
kill "$app"
SESSION
timeout 300 xvfb-run -a -s "-screen 0 1280x800x24" \
    env here="$here" build="$build" samples="$work/samples" receiver="$receiver" bash "$work/session.sh"
