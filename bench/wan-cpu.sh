#!/usr/bin/env bash
# What wanemu's designs cost at 100 MB/s of 1500-byte packets on this machine (issue #17).
# For each backend (veth + NFQUEUE verdicts, TUN devices), and for a bare veth pair without
# any emulator, iperf3 sends for SECONDS_PER_ROW seconds:
#   udp: 100 MB/s of 1472-byte datagrams (1500-byte IP packets), 10 ms each way, no rate cap;
#   tcp: one CUBIC flow through a 100 MB/s bottleneck (50 ms queue), 10 ms each way (the bare
#        veth: iperf3 paced at 95 MB/s instead).
# CPU in % of one core: the forwarder process; iperf3's sender + receiver processes; the
# machine's softirq time (network work done outside any process). Per-process figures hold on
# a machine busy with other work; the softirq column is machine-wide and includes others'.
# Usage: bench/wan-cpu.sh [BUILD_DIR]   (default: build). Needs root. REPEAT=3 for more rows.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/wan-lib.sh
wan_prepare wan-cpu "${1:-build}" iperf3 iptables time
seconds="${SECONDS_PER_ROW:-10}"
repeat="${REPEAT:-1}"
trap 'stop_path; ip netns delete wancpu-c 2>/dev/null; ip netns delete wancpu-r 2>/dev/null; rm -rf "$work"' EXIT
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # utime + stime
softirq() { awk '/^cpu / {print $8}' /proc/stat; }
pct() { awk -v t="$1" -v hz="$hz" -v s="$seconds" 'BEGIN {printf "%.0f", 100 * t / hz / s}'; }

# row DESIGN LOAD CLIENT_NS RECEIVER_NS FORWARDER_PID
row() {
    local design=$1 kind=$2 client=$3 receiver=$4 forwarder=$5
    ip netns exec "$receiver" iperf3 -s -D -I "$work/server.pid" >/dev/null 2>&1
    for _ in $(seq 1 50); do
        ip netns exec "$receiver" ss -Hltn "sport = :5201" | grep -q . && break
        sleep 0.1
    done
    local server fw_before=0 soft_before args
    server=$(cat "$work/server.pid")
    [ "$forwarder" != - ] && fw_before=$(ticks "$forwarder")
    local server_before
    server_before=$(ticks "$server")
    soft_before=$(softirq)
    if [ "$kind" = udp ]; then
        args=(-u -b 800M -l 1472 -w 4M)
    elif [ "$forwarder" = - ]; then
        args=(-C cubic -b 760M)
    else
        args=(-C cubic)
    fi
    /usr/bin/time -f '%U %S' -o "$work/client.time" \
        ip netns exec "$client" iperf3 -c 10.201.0.2 "${args[@]}" -t "$seconds" -J >"$work/out.json" 2>/dev/null
    local soft server_ticks fw_ticks=0
    soft=$(($(softirq) - soft_before))
    server_ticks=$(($(ticks "$server") - server_before))
    [ "$forwarder" != - ] && fw_ticks=$(($(ticks "$forwarder") - fw_before))
    kill "$server" && sleep 0.2
    local client_ticks
    client_ticks=$(awk -v hz="$hz" '{printf "%d", ($1 + $2) * hz}' "$work/client.time")
    local rate
    rate=$(python3 - "$work/out.json" <<'PY'
import json, sys
end = json.load(open(sys.argv[1]))["end"]
if "lost_percent" in end.get("sum", {}):
    s = end["sum"]
    print("%.1f (%.2f %% lost)" % (s["bytes"] / s["seconds"] * (1 - s["lost_percent"] / 100) / 1e6, s["lost_percent"]))
else:
    s = end["sum_received"]
    print("%.1f" % (s["bytes"] / s["seconds"] / 1e6))
PY
)
    local fw_pct="-"
    [ "$forwarder" != - ] && fw_pct=$(pct "$fw_ticks")
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$design" "$kind" "$rate" "$fw_pct" \
        "$(pct $((client_ticks + server_ticks)))" "$(pct "$soft")" "$(pct $((fw_ticks + client_ticks + server_ticks + soft)))"
}

echo "| design | load | delivered MB/s | forwarder CPU % | iperf3 sender + receiver CPU % | softirq CPU % (machine) | sum % |"
echo "|---|---|---:|---:|---:|---:|---:|"
for _ in $(seq 1 "$repeat"); do
    # The bare veth: what the same traffic costs with no queue, no delay, no forwarder.
    ip netns add wancpu-c && ip netns add wancpu-r
    ip link add wan0 netns wancpu-c type veth peer name wan0 netns wancpu-r
    ip -n wancpu-c addr add 10.201.0.1/24 dev wan0 && ip -n wancpu-c link set wan0 up
    ip -n wancpu-r addr add 10.201.0.2/24 dev wan0 && ip -n wancpu-r link set wan0 up
    for kind in udp tcp; do row "bare veth, no emulator" "$kind" wancpu-c wancpu-r -; done
    ip netns delete wancpu-c && ip netns delete wancpu-r
    for backend in nfqueue tun; do
        for kind in udp tcp; do
            rate_args=()
            [ "$kind" = tcp ] && rate_args=(--up-rate 100MB/s --up-queue 50ms)
            start_path --backend "$backend" --delay 10ms "${rate_args[@]}" --seed 1
            row "wanemu --backend $backend" "$kind" "$client_ns" "$receiver_ns" "$wan_pid"
            stop_path
            grep '^wanemu outside-model' "$work/wanemu.log" >&2 || true
        done
    done
done
echo
echo "$(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine)"
