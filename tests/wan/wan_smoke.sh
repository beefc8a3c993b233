#!/usr/bin/env bash
# wanemu smoke test: brings the two namespaces up and down, sends for 2 s through a path with
# a known delay and loss, and checks that the round trip and the loss counter are roughly what
# was configured (broad bands: the machine is shared and noisy; the check is that delay and
# loss are applied at all and about right), that the namespaces are gone afterwards, and that
# a wanemu killed with SIGKILL still leaves none behind.
# Usage: wan_smoke.sh WANEMU_BIN RECEIVER_BIN. Exit 77 (ctest SKIP) when namespaces are not
# allowed here.
set -uo pipefail
wanemu=$1
receiver=$2
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "not root: network namespaces need root"
command -v ip >/dev/null || skip "iproute2 (ip) is missing"
probe="wanemu-probe-$$"
ip netns add "$probe" 2>/dev/null || skip "'ip netns add' is not allowed here (container without CAP_SYS_ADMIN?)"
ip netns delete "$probe"
command -v curl >/dev/null || skip "curl is missing"

work=$(mktemp -d /tmp/wan-smoke.XXXXXX)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

one_way_ms=20
loss_percent=3
wait_ready() { # log -> 0 once wanemu printed "wanemu ready"
    for _ in $(seq 1 100); do
        grep -q '^wanemu ready' "$1" && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
namespaces_of() { ip netns list | grep -o "wanemu-$1-[a-z]*" || true; }

run_backend() { # backend
    local backend=$1 log="$work/$1.log"
    mkdir -p "$work/storage"
    "$wanemu" --backend "$backend" --delay ${one_way_ms}ms --rate 20MB/s --queue 50ms --up-loss ${loss_percent}% \
        --seed 1 --receiver-run "exec '$receiver' --quiet --storage '$work/storage' --listen 10.201.0.2:9101" \
        >"$log" 2>&1 &
    pid=$!
    wait_ready "$log" || { cat "$log"; fail "$backend: wanemu did not get ready"; }
    local client
    client=$(awk '/^wanemu client netns/ {print $4}' "$log")
    local url=http://10.201.0.2:9101
    for _ in $(seq 1 100); do
        ip netns exec "$client" curl -sf -o /dev/null "$url/v1/health" && break
        sleep 0.1
    done
    # A TCP handshake takes one round trip: curl's time_connect, the median of five.
    local rtts rtt_ms
    rtts=$(for _ in 1 2 3 4 5; do ip netns exec "$client" curl -s -o /dev/null -w '%{time_connect}\n' "$url/v1/health"; done)
    rtt_ms=$(echo "$rtts" | sort -n | sed -n 3p | awk '{printf "%.1f", $1 * 1000}')
    # The 2 s transfer, then enough UDP datagrams that the loss count means something
    # whatever rate TCP reached under loss.
    truncate -s 1G "$work/body"
    local sent
    sent=$(ip netns exec "$client" curl -s -o /dev/null --max-time 2 -w '%{size_upload}' -T "$work/body" \
        -H 'Content-Type: application/octet-stream' "$url/v1/discard")
    ip netns exec "$client" bash -c 'exec 3>/dev/udp/10.201.0.2/9; for i in $(seq 1 3000); do echo x >&3; done' 2>/dev/null
    kill -TERM "$pid"
    wait "$pid"
    local status=$?
    pid=""
    local up
    up=$(grep '^wanemu stats total up' "$log")
    local packets lost
    packets=$(echo "$up" | sed -n 's/.* packets=\([0-9]*\) .*/\1/p')
    lost=$(echo "$up" | sed -n 's/.* drop_loss=\([0-9]*\) .*/\1/p')
    echo "$backend: RTT $rtt_ms ms (configured $((2 * one_way_ms))), sent ${sent%.*} bytes in 2 s," \
        "up packets $packets, lost $lost (configured $loss_percent %), exit $status"
    [ "$status" -eq 0 ] || { cat "$log"; fail "$backend: wanemu exited with $status after SIGTERM"; }
    awk -v r="$rtt_ms" -v c=$((2 * one_way_ms)) 'BEGIN { exit !(r >= 0.8 * c && r <= 3 * c) }' ||
        fail "$backend: round trip $rtt_ms ms is outside 0.8x..3x of $((2 * one_way_ms)) ms"
    [ "${sent%.*}" -gt 100000 ] || fail "$backend: only ${sent} bytes went through in 2 s"
    # Binomial: expected n*p, standard deviation sqrt(n*p*(1-p)); 5 sigma either way.
    awk -v n="$packets" -v k="$lost" -v p="$loss_percent" 'BEGIN {
        p /= 100; mean = n * p; sigma = sqrt(n * p * (1 - p));
        exit !(n >= 3000 && k >= mean - 5 * sigma && k <= mean + 5 * sigma) }' ||
        fail "$backend: $lost of $packets packets lost, configured $loss_percent %"
    [ -z "$(namespaces_of "$(sed -n 's/^wanemu client netns wanemu-\([0-9]*\)-.*/\1/p' "$log")")" ] ||
        fail "$backend: namespaces left behind after exit: $(ip netns list)"
}

run_backend tun
if command -v iptables >/dev/null; then
    run_backend nfqueue
else
    echo "nfqueue: not tried, iptables is missing (scripts/bootstrap.sh installs it)"
fi

# A wanemu killed with SIGKILL cannot clean up itself: its guardian does.
"$wanemu" --delay 5ms >"$work/killed.log" 2>&1 &
pid=$!
wait_ready "$work/killed.log" || fail "wanemu did not get ready"
killed=$pid
kill -KILL "$pid"
wait "$pid" 2>/dev/null
pid=""
for _ in $(seq 1 100); do
    [ -z "$(namespaces_of "$killed")" ] && break
    sleep 0.1
done
[ -z "$(namespaces_of "$killed")" ] || fail "namespaces of a SIGKILLed wanemu remain: $(namespaces_of "$killed")"
echo "SIGKILL: the guardian removed the namespaces"
echo PASS
