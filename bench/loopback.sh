#!/usr/bin/env bash
# Loopback throughput and memory, no shaping: one 1 GiB file and 400 x 256 KiB files, sent by
# `multilane upload` over three receiver ports and by `curl -T` (one file after another) to the
# same receiver. Prints a table; peak RSS comes from /usr/bin/time -v.
# Usage: bench/loopback.sh [BUILD_DIR]   (default build; build it first with scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
MULTILANE_BOOTSTRAP_EXTRA="time bc" scripts/bootstrap.sh
bin="${1:-build}/app"
work=$(mktemp -d /tmp/multilane-bench.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

mkdir -p "$work/src/small" "$work/storage"
head -c $((1024 * 1024 * 1024)) /dev/urandom >"$work/src/big.bin"
for i in $(seq 1 400); do head -c $((256 * 1024)) /dev/urandom >"$work/src/small/f$i.bin"; done
sync

/usr/bin/time -v -o "$work/receiver.time" "$bin/multilane-receiver" --storage "$work/storage" \
    --listen 127.0.0.1:0,0,0 >"$work/receiver.log" 2>&1 &
timed_receiver=$!
for _ in $(seq 1 100); do [ "$(grep -c '^listening' "$work/receiver.log")" -ge 3 ] && break; sleep 0.1; done
mapfile -t urls < <(sed -n 's/^listening on //p' "$work/receiver.log")
endpoints=(); for u in "${urls[@]}"; do endpoints+=(--endpoint "$u"); done

seconds_of() { grep 'Elapsed (wall' "$1" | awk '{print $NF}' | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }'; }
rss_of() { grep 'Maximum resident' "$1" | awk '{print int($NF/1024)}'; }
row() { # name bytes timefile
    local s; s=$(seconds_of "$3")
    printf '| %-40s | %8.2f | %8.0f | %8s |\n' "$1" "$s" "$(echo "$2 / $s / 1000000" | bc -l)" "$(rss_of "$3")"
}

echo "| run | seconds | MB/s | client peak RSS MiB |"
echo "|---|---:|---:|---:|"
big=$((1024 * 1024 * 1024)); small=$((400 * 256 * 1024))
for round in 1 2; do
    rm -rf "$work/storage/m$round"
    /usr/bin/time -v -o "$work/m-big.time" "$bin/multilane" upload "${endpoints[@]}" --quiet --dest "m$round" \
        "$work/src/big.bin" 2>/dev/null
    row "multilane, 1 GiB file, 3 ports (run $round)" $big "$work/m-big.time"
done
/usr/bin/time -v -o "$work/c-big.time" curl -s -o /dev/null -T "$work/src/big.bin" "${urls[0]}/v1/files/curl/big.bin"
row "curl -T, 1 GiB file, 1 port" $big "$work/c-big.time"
/usr/bin/time -v -o "$work/m-small.time" "$bin/multilane" upload "${endpoints[@]}" --quiet --dest m-small \
    "$work/src/small/" 2>/dev/null
row "multilane, 400 x 256 KiB, 3 ports" $small "$work/m-small.time"
start=$(date +%s.%N)
for f in "$work"/src/small/*.bin; do curl -s -o /dev/null -T "$f" "${urls[0]}/v1/files/curl-small/"; done
end=$(date +%s.%N)
printf '| %-40s | %8.2f | %8.0f | %8s |\n' "curl -T, 400 x 256 KiB one by one" "$(echo "$end - $start" | bc -l)" \
    "$(echo "$small / ($end - $start) / 1000000" | bc -l)" "-"

# Stop the receiver itself (the child of /usr/bin/time), so time writes its report.
pkill -INT -P "$timed_receiver" 2>/dev/null || true
wait "$timed_receiver" 2>/dev/null || true
echo
echo "receiver peak RSS: $(rss_of "$work/receiver.time") MiB"
cmp "$work/src/big.bin" "$work/storage/m1/big.bin" && echo "big file verified byte for byte"
