#!/usr/bin/env bash
# Uneven endpoints: what a clearly slower endpoint in the list costs. Three ports of one receiver;
# two behind a linksim at a fast per-connection rate, the third behind another at a slow one, the
# same round trip. For each link, drawn from a seed, one 200 MiB file is sent self-tuned to the
# two fast endpoints only and to all three, alternating, and the table gives each wall time and
# their ratio (all three / fast only): 1.0 means the slow endpoint cost nothing. With BASE=path to
# another `multilane`, its runs with all three go beside ours in the same rounds (an A/B).
#
# Usage: bench/uneven-endpoints.sh [BUILD_DIR]    (default: build)
#   SEED=n (default: random, printed)  LINKS=3  ROUNDS=2  BASE=/path/to/multilane
set -euo pipefail
cd "$(dirname "$0")/.."
MULTILANE_BOOTSTRAP_EXTRA="time" scripts/bootstrap.sh
build="${1:-build}"
bin="$build/app"
linksim_bin="$build/bench/linksim/linksim"
[ -x "$bin/multilane" ] && [ -x "$linksim_bin" ] || { echo "build first: BUILD_DIR=$build scripts/build.sh" >&2; exit 2; }
SEED="${SEED:-$RANDOM}"
LINKS="${LINKS:-3}"
ROUNDS="${ROUNDS:-2}"
BASE="${BASE:-}"

work=$(mktemp -d /tmp/multilane-uneven.XXXXXX)
cleanup() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
head -c $((200 * 1024 * 1024)) /dev/urandom >"$work/big.bin"

# Links: a fast rate of 1-6 MB/s a connection, a slow one 8-40 times slower, a round trip of
# 10-100 ms; drawn from the seed so that a new seed gives new links.
mapfile -t links < <(python3 - "$SEED" "$LINKS" <<'EOF'
import random, sys
rng = random.Random(int(sys.argv[1]))
for _ in range(int(sys.argv[2])):
    fast = rng.uniform(1e6, 6e6)
    slow = fast / rng.uniform(8, 40)
    rtt = rng.randint(10, 100)
    print(f"{int(fast)} {int(slow)} {rtt}")
EOF
)

# One upload through fresh linksims and a fresh receiver (a fresh storage folder each: on this
# disk, files made soon after many were deleted cost more). Prints the wall time.
upload() { # client fast slow rtt with_slow
    local client=$1 fast=$2 slow=$3 rtt=$4 with_slow=$5 run
    run=$(mktemp -d "$work/run.XXXXXX")
    "$bin/multilane-receiver" --quiet --storage "$run" --listen 127.0.0.1:0,0,0 >"$run.rx" 2>&1 &
    local rx=$!
    for _ in $(seq 1 100); do [ "$(grep -c '^listening' "$run.rx")" -ge 3 ] && break; sleep 0.1; done
    mapfile -t ports < <(sed -n 's/^listening on http:\/\/127.0.0.1://p' "$run.rx")
    "$linksim_bin" --quiet --per-connection-rate "${fast}" --rtt "$rtt" \
        --listen 127.0.0.1:0=127.0.0.1:"${ports[0]}" --listen 127.0.0.1:0=127.0.0.1:"${ports[1]}" >"$run.lf" 2>&1 &
    local lf=$!
    "$linksim_bin" --quiet --per-connection-rate "${slow}" --rtt "$rtt" \
        --listen 127.0.0.1:0=127.0.0.1:"${ports[2]}" >"$run.ls" 2>&1 &
    local ls=$!
    for _ in $(seq 1 100); do [ -s "$run.lf" ] && [ -s "$run.ls" ] && [ "$(wc -l <"$run.lf")" -ge 2 ] && break; sleep 0.1; done
    mapfile -t endpoints < <(sed -n 's/^linksim \([^ ]*\) .*/http:\/\/\1/p' "$run.lf")
    [ "$with_slow" = 1 ] && endpoints+=("$(sed -n 's/^linksim \([^ ]*\) .*/http:\/\/\1/p' "$run.ls")")
    local args=()
    for endpoint in "${endpoints[@]}"; do args+=(--endpoint "$endpoint"); done
    /usr/bin/time -f "%e" -o "$run.time" "$client" upload --quiet --state-dir "$run.state" "${args[@]}" \
        "$work/big.bin" >"$run.out" 2>&1 || { echo "upload failed:" >&2; cat "$run.out" >&2; exit 1; }
    kill "$rx" "$lf" "$ls" 2>/dev/null || true
    wait "$rx" "$lf" "$ls" 2>/dev/null || true
    cat "$run.time"
}

echo "seed $SEED, $ROUNDS rounds, $(git rev-parse --short HEAD)"
echo
header="| link | fast MB/s a connection | slow | RTT ms | fast only, s | all three, s | ratio"
[ -n "$BASE" ] && header+=" | BASE, all three, s | BASE ratio"
echo "$header |"
echo "|---|---:|---:|---:|---|---|---:$([ -n "$BASE" ] && echo '|---|---:')|"
n=0
for link in "${links[@]}"; do
    read -r fast slow rtt <<<"$link"
    only=() all=() base=()
    for _ in $(seq 1 "$ROUNDS"); do
        only+=("$(upload "$bin/multilane" "$fast" "$slow" "$rtt" 0)")
        all+=("$(upload "$bin/multilane" "$fast" "$slow" "$rtt" 1)")
        [ -n "$BASE" ] && base+=("$(upload "$BASE" "$fast" "$slow" "$rtt" 1)")
    done
    ratio() { python3 -c "import sys; a=[float(x) for x in sys.argv[1].split()]; b=[float(x) for x in sys.argv[2].split()]; print(f'{sum(b)/sum(a):.2f}')" "$1" "$2"; }
    row="| $n | $(python3 -c "print(f'{$fast/1e6:.2f}')") | $(python3 -c "print(f'{$slow/1e3:.0f} kB/s')") | $rtt"
    row+=" | ${only[*]} | ${all[*]} | $(ratio "${only[*]}" "${all[*]}")"
    [ -n "$BASE" ] && row+=" | ${base[*]} | $(ratio "${only[*]}" "${base[*]}")"
    echo "$row |"
    n=$((n + 1))
done
