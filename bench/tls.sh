#!/usr/bin/env bash
# HTTP vs HTTPS on loopback, one receiver of each kind on three ports: MB/s for one 1 GiB file,
# files/s for 400 x 256 KiB files (multilane, keep-alive), and requests/s for small PUTs with
# curl: one connection for all, a new connection each with TLS session resumption, and a new
# connection each with a full handshake (--no-sessionid). Prints a table and the receivers'
# TLS handshake counts. The certificate is a throw-away self-signed one; the client pins it.
# Usage: bench/tls.sh [BUILD_DIR]   (default build; build it first with scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
MULTILANE_BOOTSTRAP_EXTRA="bc openssl" scripts/bootstrap.sh
bin="${1:-build}/app"
work=$(mktemp -d /tmp/multilane-tls-bench.XXXXXX)
receivers=()
stop_receivers() {
    for pid in "${receivers[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${receivers[@]}"; do wait "$pid" 2>/dev/null || true; done
    receivers=()
}
trap 'stop_receivers; rm -rf "$work"' EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
mkdir -p "$work/src/small" "$work/http" "$work/https" "$work/curl"
head -c $((1024 * 1024 * 1024)) /dev/urandom >"$work/src/big.bin"
for i in $(seq 1 400); do head -c $((256 * 1024)) /dev/urandom >"$work/src/small/f$i.bin"; done
head -c 4096 /dev/urandom >"$work/src/4k.bin"
sync

start_receiver() { # name extra-args...
    local name=$1; shift
    "$bin/multilane-receiver" --storage "$work/$name" --listen 127.0.0.1:0,0,0 "$@" >"$work/$name.out" \
        2>"$work/$name.log" &
    receivers+=($!)
    for _ in $(seq 1 100); do [ "$(grep -c '^listening' "$work/$name.out")" -ge 3 ] && break; sleep 0.1; done
}
start_receiver http
start_receiver https --tls-cert "$work/cert.pem" --tls-key "$work/key.pem"
# curl gets its own, so the first one's handshake count is multilane's alone.
start_receiver curl --tls-cert "$work/cert.pem" --tls-key "$work/key.pem"
mapfile -t http_urls < <(sed -n 's/^listening on //p' "$work/http.out")
mapfile -t https_urls < <(sed -n 's/^listening on //p' "$work/https.out")
mapfile -t curl_urls < <(sed -n 's/^listening on //p' "$work/curl.out")
pin=$(sed -n 's/^certificate sha256 //p' "$work/https.out")
http_endpoints=(); for u in "${http_urls[@]}"; do http_endpoints+=(--endpoint "$u"); done
https_endpoints=(--pin-sha256 "$pin"); for u in "${https_urls[@]}"; do https_endpoints+=(--endpoint "$u"); done

now() { date +%s.%N; }
row() { # name seconds figure unit
    printf '| %-56s | %7.2f | %6.0f %-7s |\n' "$1" "$2" "$3" "$4"
}
export XDG_STATE_HOME="$work/state"

echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| run | seconds | figure |"
echo "|---|---:|---:|"
big=$((1024 * 1024 * 1024))
verified=()
endpoints_for() { if [ "$1" = http ]; then endpoints=("${http_endpoints[@]}"); else endpoints=("${https_endpoints[@]}"); fi; }
# HTTP and HTTPS alternate, so a burst of load from elsewhere hits both alike.
for round in 1 2; do
    for scheme in http https; do
        endpoints_for $scheme
        t0=$(now)
        "$bin/multilane" upload "${endpoints[@]}" --quiet --chunk-size 8M --dest "big$round" "$work/src/big.bin" \
            >/dev/null 2>&1
        t1=$(now)
        s=$(echo "$t1 - $t0" | bc -l)
        row "multilane $scheme, 1 GiB file, 3 ports, 8M chunks (run $round)" "$s" "$(echo "$big / $s / 1000000" | bc -l)" MB/s
        cmp -s "$work/src/big.bin" "$work/$scheme/big$round/big.bin" && verified+=("$scheme/big$round")
        rm -rf "${work:?}/$scheme/big$round"
    done
done
for round in 1 2; do
    for scheme in http https; do
        endpoints_for $scheme
        t0=$(now)
        "$bin/multilane" upload "${endpoints[@]}" --quiet --dest "small$round" "$work/src/small/" >/dev/null 2>&1
        t1=$(now)
        s=$(echo "$t1 - $t0" | bc -l)
        row "multilane $scheme, 400 x 256 KiB, 3 ports (run $round)" "$s" "$(echo "400 / $s" | bc -l)" files/s
    done
done

# Small requests with curl: 400 PUTs of 4 KiB to /v1/discard on one port, best of three runs
# (small timings on a shared machine are noisy).
curl_row() { # name scheme-url curl-args...
    local name=$1 url=$2 best=""; shift 2
    for _ in 1 2 3; do
        t0=$(now)
        curl -s -o /dev/null --cacert "$work/cert.pem" -T "$work/src/4k.bin" "$@" "$url/v1/discard?n=[1-400]" >/dev/null
        t1=$(now)
        s=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$s < $best" | bc -l)" = 1 ]; then best=$s; fi
    done
    row "$name" "$best" "$(echo "400 / $best" | bc -l)" req/s
}
curl_row "curl http, 400 x 4 KiB PUT, one connection" "${http_urls[0]}"
curl_row "curl http, new connection each" "${http_urls[0]}" -H "Connection: close"
curl_row "curl https, one connection" "${curl_urls[0]}"
curl_row "curl https, new connection each, session resumed" "${curl_urls[0]}" -H "Connection: close"
curl_row "curl https, new connection each, full handshake" "${curl_urls[0]}" -H "Connection: close" --no-sessionid

stop_receivers
echo
echo "multilane's https receiver (2 x 1 GiB + 2 x 400 files): $(grep -o 'tls handshakes: .*' "$work/https.log")"
echo "curl's https receiver (9 x 400 requests): $(grep -o 'tls handshakes: .*' "$work/curl.log")"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores; figures are noisy above ~2)"
echo "1 GiB file byte-identical after: ${verified[*]:-none}"
