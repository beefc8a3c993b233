#!/usr/bin/env bash
# What this machine allows on unshaped loopback, next to what multilane reaches, in one run:
# SHA-256 per core, a fresh 200 MiB written into the page cache, curl -T of 200 MiB to the
# receiver's discard route (HTTP path only) and as a stored whole-file PUT (one connection:
# receive, SHA-256, write), and multilane over three ports with client and receiver CPU seconds.
# Ends with the CPU budget a given rate leaves on this machine's cores.
# Usage: bench/ceiling.sh [BUILD_DIR] [RUNS]   (default build, 3)
set -euo pipefail
cd "$(dirname "$0")/.."
MULTILANE_BOOTSTRAP_EXTRA="time bc openssl" scripts/bootstrap.sh
bin="${1:-build}/app"
runs="${2:-3}"
[ -x "$bin/multilane" ] || { echo "build first: scripts/build.sh" >&2; exit 2; }
work=$(mktemp -d /tmp/multilane-ceiling.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
size=$((200 * 1024 * 1024))
head -c $size /dev/urandom >"$work/big.bin"

mb_per_s() { echo "$size / $1 / 1000000" | bc -l | xargs printf '%.0f'; }
now() { date +%s.%N; }

sha=$(openssl speed -evp sha256 -bytes 1048576 -seconds 2 2>/dev/null | awk '/^sha256/ {print $2}' | tr -d k)
sha_mb=$(echo "$sha * 1000 / 1000000" | bc -l | xargs printf '%.0f')
echo "cores: $(nproc)"
echo "SHA-256 (OpenSSL, 1 MiB blocks, one core): $sha_mb MB/s"

for i in $(seq 1 "$runs"); do
    rm -f "$work/fresh.bin"
    a=$(now); dd if="$work/big.bin" of="$work/fresh.bin" bs=8M status=none; b=$(now)
    echo "dd 200 MiB into a new file (page cache), run $i: $(mb_per_s "$(echo "$b - $a" | bc -l)") MB/s"
done
rm -f "$work/fresh.bin"

mkdir -p "$work/storage"
"$bin/multilane-receiver" --quiet --storage "$work/storage" --listen 127.0.0.1:0,0,0 >"$work/receiver.log" 2>&1 &
receiver=$!
for _ in $(seq 1 100); do [ "$(grep -c '^listening' "$work/receiver.log")" -ge 3 ] && break; sleep 0.1; done
mapfile -t urls < <(sed -n 's/^listening on //p' "$work/receiver.log")
endpoints=(); for u in "${urls[@]}"; do endpoints+=(--endpoint "$u"); done
receiver_cpu() { awk '{printf "%.2f", ($14 + $15) / 100}' "/proc/$receiver/stat"; }

for i in $(seq 1 "$runs"); do
    r0=$(receiver_cpu); a=$(now)
    curl -s -o /dev/null -T "$work/big.bin" "${urls[0]}/v1/discard"
    b=$(now); r1=$(receiver_cpu)
    echo "curl -T to /v1/discard, run $i: $(mb_per_s "$(echo "$b - $a" | bc -l)") MB/s, receiver CPU $(echo "$r1 - $r0" | bc) s"
done
for i in $(seq 1 "$runs"); do
    r0=$(receiver_cpu); a=$(now)
    curl -s -o /dev/null -T "$work/big.bin" "${urls[0]}/v1/files/curl$i/big.bin"
    b=$(now); r1=$(receiver_cpu)
    echo "curl -T stored (one connection), run $i: $(mb_per_s "$(echo "$b - $a" | bc -l)") MB/s, receiver CPU $(echo "$r1 - $r0" | bc) s"
    rm -rf "$work/storage/curl$i"
done
for i in $(seq 1 "$runs"); do
    r0=$(receiver_cpu)
    /usr/bin/time -f '%e %U %S' -o "$work/client.time" "$bin/multilane" upload "${endpoints[@]}" --quiet \
        --dest "m$i" "$work/big.bin" 2>/dev/null
    r1=$(receiver_cpu)
    read -r wall user sys <"$work/client.time"
    echo "multilane, 3 ports, run $i: $(mb_per_s "$wall") MB/s, client CPU $(echo "$user + $sys" | bc) s, receiver CPU $(echo "$r1 - $r0" | bc) s"
    rm -rf "$work/storage/m$i"
done

echo
budget=$(echo "$size / 1000000000 * $(nproc)" | bc -l)
hashing=$(echo "2 * $size / ($sha * 1000)" | bc -l)
printf 'At 1 GB/s, 200 MiB leaves %.2f CPU seconds on %d cores; SHA-256 on both ends alone takes %.2f.\n' \
    "$budget" "$(nproc)" "$hashing"
