#!/usr/bin/env bash
# wanemu against physics (issue #17): real kernel TCP (iperf3) through the emulator, checked
# against what theory says, with PASS/FAIL and the figures:
#   1. one Reno flow, RTT 100 ms, 0.1 % loss: within +-30 % of the Mathis rate
#      MSS / RTT x 1.22 / sqrt(p); CUBIC and BBR beside it;
#   2. no loss: one CUBIC flow comes close to filling the bottleneck (>= 0.90);
#   3. a full 200 ms drop-tail queue adds about 200 ms to the round trip (ping, loaded - idle);
#   4. 8 Reno flows share the bottleneck within +-20 % of their mean (CUBIC beside them);
#   and, on the lossy path of 1, the totals of 1, 8, 18 and 60 CUBIC flows.
# Usage: bench/wan-check.sh [BUILD_DIR] [OUT_DIR]   (default: build, bench-out). Needs root.
#   SEED=N fixes the loss draws (printed either way); SCALE=0.5 halves every run's length;
#   CHECKS="mathis fill bloat fair parallel" runs only some.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/wan-lib.sh
out="${2:-bench-out}"
wan_prepare wan-check "${1:-build}" iperf3 iputils-ping
trap 'stop_path; rm -rf "$work"' EXIT
seed="${SEED:-$((RANDOM * 32768 + RANDOM))}"
scale="${SCALE:-1}"
checks="${CHECKS:-mathis fill bloat fair parallel}"
wanted() { [[ " $checks " == *" $1 "* ]]; }
mkdir -p "$out"

secs() { awk -v s="$1" -v k="$scale" 'BEGIN { v = int(s * k + 0.5); print (v < 3 ? 3 : v) }'; }
run=0
failures=0
table="$out/wan-check.md"

# iperf CC STREAMS SECONDS OMIT : runs iperf3 from the client namespace; leaves its JSON in
# $work/iperf.json and prints "TOTAL_MB/s MIN_STREAM MAX_STREAM MEAN_STREAM RETRANSMITS".
iperf() {
    start_iperf_server
    ip netns exec "$client_ns" iperf3 -c "$receiver_addr" -C "$1" -P "$2" -t "$3" -O "$4" -J >"$work/iperf.json"
    python3 - "$work/iperf.json" <<'PY'
import json, sys
end = json.load(open(sys.argv[1]))["end"]
total = end["sum_received"]["bytes"] / end["sum_received"]["seconds"] / 1e6
streams = [s["receiver"]["bytes"] / s["receiver"]["seconds"] / 1e6 for s in end["streams"]]
print(f"{total:.3f} {min(streams):.3f} {max(streams):.3f} {sum(streams) / len(streams):.3f} "
      f"{end['sum_sent'].get('retransmits', 0)}")
PY
}

# start ONE_WAY_MS RATE QUEUE LOSS: a path with loss and the queue on the uplink; each run
# draws its losses from the next seed.
start() {
    run=$((run + 1))
    start_path --delay "$1ms" --up-rate "$2" --up-queue "$3" --up-loss "$4" --seed $((seed + run)) \
        --sysctl net.ipv4.tcp_congestion_control=cubic
}
drops() { echo "loss $(wan_stat total up drop_loss), queue $(wan_stat total up drop_queue), queue max $(wan_stat total up queue_max_ms) ms"; }
judge() { # AWK_CONDITION NAME=VALUE... -> result=PASS or FAIL (and counts failures)
    local condition=$1
    shift
    if awk "$@" "BEGIN { exit !($condition) }"; then result=PASS; else result=FAIL; failures=$((failures + 1)); fi
}
row() { printf '| %s | %s | %s | %s | %s | %s |\n' "$@" | tee -a "$table"; }

{
    echo "# wanemu checked against physics ($(date -u +%Y-%m-%dT%H:%MZ), seed $seed, scale $scale)"
    echo
    echo "| check | path (RTT, uplink bottleneck, queue, loss) | flows | measured | expected | result |"
    echo "|---|---|---|---|---|---|"
} | tee "$table"

# ---- 1. Mathis: RTT 100 ms, 0.1 % loss, a 20 MB/s bottleneck far above the loss-limited rate
lossy="100 ms, 20 MB/s, 50 ms, 0.1 %"
mss=1448 # 1500 - 20 (IP) - 20 (TCP) - 12 (timestamps)
mathis=$(awk -v m=$mss 'BEGIN { printf "%.3f", m / 0.1 * 1.22 / sqrt(0.001) / 1e6 }')
if wanted mathis; then
    for cc in reno cubic bbr; do
        start 50 20MB/s 50ms 0.1%
        read -r total _ <<<"$(iperf "$cc" 1 "$(secs 40)" 5)"
        stop_path
        if [ "$cc" = reno ]; then
            judge 't >= 0.7 * m && t <= 1.3 * m' -v t="$total" -v m="$mathis"
            row "Mathis rate" "$lossy" "1 $cc" "$total MB/s ($(drops))" "$mathis MB/s +-30 %" "$result"
        else
            row "(beside it)" "$lossy" "1 $cc" "$total MB/s, $(awk -v t="$total" -v m="$mathis" 'BEGIN { printf "%.1f", t / m }') x Mathis ($(drops))" "-" "-"
        fi
    done
fi

# ---- 2. No loss: one CUBIC flow fills a bottleneck with a queue of half the BDP
if wanted fill; then
    start 50 20MB/s 50ms 0
    read -r total _ <<<"$(iperf cubic 1 "$(secs 20)" 5)"
    stop_path
    fraction=$(awk -v t="$total" 'BEGIN { printf "%.3f", t / 20 }')
    judge 'f >= 0.90' -v f="$fraction"
    row "fills the bottleneck" "100 ms, 20 MB/s, 50 ms, 0" "1 cubic" "$total MB/s = $fraction of 20 MB/s ($(drops))" ">= 0.90 (0.965 = all IP bytes)" "$result"
fi

# ---- 3. Bufferbloat: 8 CUBIC flows keep a 200 ms drop-tail queue full
if wanted bloat; then
    start 20 10MB/s 200ms 0
    idle=$(ping_samples "$client_ns" "$receiver_addr" 10 0.2 | percentile 50)
    start_iperf_server
    load_secs=$(secs 25)
    ip netns exec "$client_ns" iperf3 -c "$receiver_addr" -C cubic -P 8 -t "$load_secs" -J >"$work/iperf.json" &
    load=$!
    sleep 8 # past slow start: the queue is full from then on
    ping_samples "$client_ns" "$receiver_addr" $(((load_secs - 10) * 5)) 0.2 >"$work/ping"
    wait "$load"
    stop_path
    loaded=$(percentile 50 <"$work/ping")
    added=$(awk -v l="$loaded" -v i="$idle" 'BEGIN { printf "%.1f", l - i }')
    judge 'a >= 150 && a <= 250' -v a="$added"
    row "bufferbloat" "40 ms, 10 MB/s, 200 ms, 0" "8 cubic" \
        "ping idle $idle ms, loaded median $loaded (p10 $(percentile 10 <"$work/ping"), p90 $(percentile 90 <"$work/ping")): +$added ms ($(drops))" \
        "+200 ms +-25 %" "$result"
fi

# ---- 4. Fairness: 8 flows of one RTT through one drop-tail queue of one BDP. The check is
# on Reno with a trace of random loss: without any randomness a drop-tail queue drops from
# all flows at once and they keep their ratios (phase effects), and CUBIC's congestion epochs
# last seconds here, too few in 30 s to converge; both are shown beside it as measured.
if wanted fair; then
    for variant in "reno 0.01%" "cubic 0.01%" "reno 0"; do
        read -r cc loss <<<"$variant"
        start 20 20MB/s 40ms "$loss"
        read -r total low high mean _ <<<"$(iperf "$cc" 8 "$(secs 40)" 10)"
        stop_path
        shares=$(awk -v l="$low" -v h="$high" -v m="$mean" 'BEGIN { printf "%.0f..%.0f %%", 100 * l / m, 100 * h / m }')
        measured="per flow $low..$high MB/s, mean $mean ($shares), total $total ($(drops))"
        if [ "$variant" = "reno 0.01%" ]; then
            judge 'l >= 0.8 * m && h <= 1.2 * m' -v l="$low" -v h="$high" -v m="$mean"
            row "fair share" "40 ms, 20 MB/s, 40 ms, $loss" "8 $cc" "$measured" "each within +-20 % of the mean" "$result"
        else
            row "(beside it)" "40 ms, 20 MB/s, 40 ms, $loss" "8 $cc" "$measured" "-" "-"
        fi
    done
fi

# ---- 5. Where parallel connections pay: CUBIC totals on the lossy path of check 1
if wanted parallel; then
    for flows in 1 8 18 60; do
        start 50 20MB/s 50ms 0.1%
        read -r total _ <<<"$(iperf cubic "$flows" "$(secs 30)" 5)"
        stop_path
        row "parallel flows" "$lossy" "$flows cubic" \
            "$total MB/s = $(awk -v t="$total" 'BEGIN { printf "%.2f", t / 20 }') of the bottleneck ($(drops))" "-" "-"
    done
fi

{
    echo
    echo "- Both namespaces: $(grep '^wanemu sysctl' "$work/wanemu.log" | sed 's/^wanemu sysctl //; s/ (both namespaces)//' | paste -sd ';' | sed 's/;/; /g')."
    grep '^wanemu host sysctl' "$work/wanemu.log" | sed 's/^wanemu host sysctl /- Host: /' || true
    echo "- Loss and the queue are on the uplink (client -> receiver); the downlink (ACKs) has the delay only."
    echo "- Measured: iperf3 3.12 receiver bytes after the first seconds (-O: slow start left out); MSS $mss."
    echo "- Mathis: MSS / RTT x 1.22 / sqrt(p) = $mathis MB/s at 100 ms and 0.1 %."
    echo "- $(grep '^wanemu backend' "$work/wanemu.log" | sed 's/^wanemu //'); machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee -a "$table"
echo
echo "table: $table   checks failed: $failures"
[ "$failures" -eq 0 ]
