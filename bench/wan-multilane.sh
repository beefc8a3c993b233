#!/usr/bin/env bash
# Multilane on emulated WAN paths (issue #17): the real receiver (three ports, one storage
# folder) in wanemu's receiver namespace, the real client in its client namespace, real kernel
# TCP (CUBIC on both ends) through paths drawn from a seed: RTT 20-300 ms, loss 0-1 %,
# bottleneck 10-100 MB/s, shallow and deep drop-tail queues. Beside Multilane (self-tuned):
# one curl -T, and 8 curl processes at once over the three ports.
# Each row: the fraction of the bottleneck reached (bytes / wall time of the whole process /
# bottleneck rate), the TCP connections used, the round trip the transfer added (ping during
# it minus idle), and the emulator's drop counters.
# Builds nothing: BUILD_DIR must hold app/multilane, app/multilane-receiver and
# bench/wanemu/wanemu.
# Usage: bench/wan-multilane.sh [BUILD_DIR] [OUT_DIR]   (default: build, bench-out). Needs root.
#   SEED=N redraws the same paths (a new seed each run otherwise; always printed)
#   PATHS=6  ONLY="1 3" (only these of the drawn paths)
#   WORKLOADS="big small"  CLIENTS="multilane curl curl8" (also: multilane-unpipelined,
#   the same client with nothing sent behind another request, for an A/B of pipelining)
#   BIG_SECONDS=20 (the big file is this long at the bottleneck rate, at least 100 MB)
#   CAP=60 (a run still going after CAP seconds is stopped; its fraction counts what it moved)
#   TUNER_LOGS=DIR  each Multilane run's tuner log (its decisions, window by window) into DIR
#   WARM=1 Multilane uploads the same workload once, unmeasured, before each measured run: a
#   returning user, who starts from the level the link settled at before (link memory)
#   TICKS=1 (with TUNER_LOGS) also each progress tick: bytes delivered, level, requests out, RTT
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/wan-lib.sh
build="${1:-build}"
out="${2:-bench-out}"
[ -n "${TUNER_LOGS:-}" ] && export QT_LOGGING_RULES="multilane.tuner.debug=true${TICKS:+;multilane.ticks.debug=true}"
wan_prepare wan-multilane "$build" iputils-ping curl time
client_bin="$build/app/multilane"
receiver_bin="$build/app/multilane-receiver"
wan_require "$client_bin" "$receiver_bin"
client_bin=$(realpath "$client_bin")
receiver_bin=$(realpath "$receiver_bin")
seed="${SEED:-$((RANDOM * 32768 + RANDOM))}"
path_count="${PATHS:-6}"
WORKLOADS="${WORKLOADS:-big small}"
CLIENTS="${CLIENTS:-multilane curl curl8}"
big_seconds="${BIG_SECONDS:-20}"
cap="${CAP:-60}"
mkdir -p "$out"
background=()
stop_background() { for p in "${background[@]}"; do kill "$p" 2>/dev/null || true; done; background=(); }
trap 'stop_background; stop_path; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
ports=(9101 9102 9103)

# ---- the paths: drawn from the seed -------------------------------------------------------
# One line per path: RTT_MS LOSS_PERCENT RATE_MBPS QUEUE_MS QUEUE_KIND. Queues alternate
# between shallow (5-25 ms) and deep (100-250 ms) so both kinds appear whatever the seed.
python3 - "$seed" "$path_count" >"$work/paths" <<'PY'
import math, random, sys
rng = random.Random(int(sys.argv[1]))
def log_uniform(low, high):
    return math.exp(rng.uniform(math.log(low), math.log(high)))
for i in range(int(sys.argv[2])):
    rtt = round(log_uniform(20, 300))
    loss = 0.0 if rng.random() < 0.3 else round(log_uniform(0.01, 1.0), 3)
    rate = round(log_uniform(10, 100))
    kind = "shallow" if i % 2 == 0 else "deep"
    queue = round(rng.uniform(5, 25) if kind == "shallow" else rng.uniform(100, 250))
    print(rtt, loss, rate, queue, kind)
PY

table="$out/wan-multilane.md"
{
    echo "# Multilane on emulated WAN paths ($(date -u +%Y-%m-%dT%H:%MZ), seed $seed, $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
    echo
    echo "| path | RTT ms | loss % | bottleneck MB/s | queue ms | workload | client | seconds | MB moved | of bottleneck | TCP connections (max at once / opened) | RTT added ms | drops: loss / queue | queue max ms | client CPU s | emulator late p99 ms |"
    echo "|---|---:|---:|---:|---:|---|---|---:|---:|---:|---|---:|---|---:|---:|---:|"
} | tee "$table"

# ---- workloads ---------------------------------------------------------------------------
mkdir -p "$work/small"
for i in $(seq -w 1 300); do head -c $((200 * 1024)) /dev/urandom >"$work/small/f$i.bin"; done
make_big() { # MB/s -> $work/big/big.bin of max(100 MB, BIG_SECONDS x rate)
    rm -rf "$work/big" && mkdir -p "$work/big"
    local bytes=$(($1 * 1000000 * big_seconds))
    [ "$bytes" -lt 100000000 ] && bytes=100000000
    head -c "$bytes" /dev/urandom >"$work/big/big.bin"
}
bytes_of() { du -sb "$1" | cut -f1; }

# ---- one run ----------------------------------------------------------------------------
# sample_connections: TCP connections from the client namespace to the receiver ports, twice
# a second, one count per line.
sample_connections() {
    while :; do
        ip netns exec "$client_ns" ss -Htn state established \
            "( dport = :${ports[0]} or dport = :${ports[1]} or dport = :${ports[2]} )" | wc -l
        sleep 0.5
    done
}

# client workload dest -> runs it under a CAP-second limit; leaves "seconds bytes status" in
# $work/result, status "done", "cap" (stopped after CAP seconds) or "failed-N" (exit status N)
run_client() {
    local client=$1 src="$work/$2" dest=$3 started ended status=0
    local urls=() u
    for u in "${ports[@]}"; do urls+=("http://$receiver_addr:$u"); done
    : >"$work/curl.out"
    # The client's CPU (user + system, its children included): on a fast path the 2 cores may
    # be what limits it rather than the network.
    local timed="/usr/bin/time -f %U+%S -o $work/cpu"
    started=$(date +%s.%N)
    case $client in
    multilane | multilane-unpipelined)
        local endpoints=()
        for u in "${urls[@]}"; do endpoints+=(--endpoint "$u"); done
        local pipelining=on
        [ "$client" = multilane-unpipelined ] && pipelining=off
        MULTILANE_PIPELINING=$pipelining $timed timeout "$cap" ip netns exec "$client_ns" "$client_bin" upload --json --quiet --state-dir "$work/state" \
            "${endpoints[@]}" --dest "$dest" "$src/" >"$work/multilane.jsonl" 2>"$work/multilane.err" || status=$? ;;
    curl)
        # One curl process, one connection, the files one after another (curl's {a,b} list).
        local list
        list=$(cd "$src" && ls | paste -sd, -)
        # --max-time so a big file cut at the cap still prints what it sent; the outer limit
        # stops a list of small files (each printed when done: stdbuf, or a kill loses them).
        (cd "$src" && $timed timeout $((cap + 2)) ip netns exec "$client_ns" stdbuf -oL curl -sS -o /dev/null --max-time "$cap" 2>>"$work/curl.err" \
            -w '%{size_upload}\n' -T "{$list}" "${urls[0]}/v1/files/$dest/" >>"$work/curl.out") || status=$?
        [ "$status" -eq 28 ] && status=124 ;;
    curl8)
        # 8 curl processes at once, the files spread over the three ports.
        (cd "$src" && ls | awk -v a="${urls[0]}" -v b="${urls[1]}" -v c="${urls[2]}" \
            '{ u[0] = a; u[1] = b; u[2] = c; print $0, u[NR % 3] }' |
            $timed timeout "$cap" xargs -P 8 -n 2 sh -c 'exec ip netns exec "$0" curl -s -o /dev/null -w "%{size_upload}\n" -T "$2" "$3/v1/files/$1/"' \
                "$client_ns" "$dest" >>"$work/curl.out") || status=$? ;;
    esac
    ended=$(date +%s.%N)
    local bytes outcome=done
    if [ "$status" -eq 0 ]; then
        bytes=$(bytes_of "$src")
    else
        outcome=$([ "$status" -eq 124 ] && echo cap || echo "failed-$status")
        if [ "${client#multilane}" != "$client" ]; then
            bytes=$(grep -o '"bytesDone":[0-9]*' "$work/multilane.jsonl" | tail -1 | cut -d: -f2)
        else
            bytes=$(awk '{ s += $1 } END { printf "%d", s }' "$work/curl.out")
        fi
    fi
    local cpu
    cpu=$(tail -1 "$work/cpu" | bc -l 2>/dev/null || echo 0)
    echo "$(awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.2f", b - a }') ${bytes:-0} $outcome $cpu" >"$work/result"
}

# path_no rtt loss rate queue workload client -> one table row
measure() {
    local number=$1 rtt=$2 loss=$3 rate=$4 queue=$5 workload=$6 client=$7
    [ "$workload" = big ] && [ "$client" = curl8 ] && {
        printf '| %s | %s | %s | %s | %s | %s | %s | n/a: one file | | | | | | | | |\n' "$@" | tee -a "$table"; return; }
    # The receiver may still be finishing a chunk of a run stopped at the cap.
    rm -rf "$work/state" "$work/storage/"* 2>/dev/null || true
    if [ -n "${WARM:-}" ] && [ "${client#multilane}" != "$client" ]; then
        # A returning user: the same upload once before, unmeasured, so the measured one starts
        # from the level that one settled at (the journal's link memory).
        run_client "$client" "$workload" "warm$number-$client"
        rm -rf "$work/storage/"* 2>/dev/null || true
    fi
    local idle
    idle=$(ping_samples "$client_ns" "$receiver_addr" 10 0.2 | percentile 50)
    interval_stats
    ip netns exec "$client_ns" ping -n -U -i 0.2 "$receiver_addr" 2>/dev/null | sed -u -n 's/.*time=\([0-9.]*\) ms/\1/p' >"$work/ping" &
    background+=($!)
    sample_connections >"$work/connections" &
    background+=($!)
    run_client "$client" "$workload" "r$number-$client"
    stop_background
    if [ -n "${TUNER_LOGS:-}" ] && [ -f "$work/multilane.err" ]; then
        mkdir -p "$TUNER_LOGS"
        cp "$work/multilane.err" "$TUNER_LOGS/path$number-$workload-$client.log"
        rm -f "$work/multilane.err"
    fi
    interval_stats
    read -r seconds bytes outcome cpu <"$work/result"
    local fraction loaded added most opened
    fraction=$(awk -v b="$bytes" -v s="$seconds" -v r="$rate" 'BEGIN { printf "%.2f", b / s / (r * 1e6) }')
    loaded=$(percentile 50 <"$work/ping")
    added=$(awk -v l="$loaded" -v i="$idle" 'BEGIN { v = l - i; if (l == "nan") print "-"; else printf "%d", v < 0 ? -int(-v + 0.5) : int(v + 0.5) }')
    most=$(sort -n "$work/connections" | tail -1)
    opened=$(($(wan_stat interval up flows) - 1)) # the ping is one flow too
    [ "$outcome" = done ] || seconds="$seconds ($outcome)"
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %.1f | %s | %s / %s | %s | %s / %s | %s | %.1f | %s |\n' \
        "$number" "$rtt" "$loss" "$rate" "$queue" "$workload" "$client" "$seconds" \
        "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" "$fraction" "${most:-0}" "$opened" "$added" \
        "$(wan_stat interval up drop_loss)" "$(wan_stat interval up drop_queue)" "$(wan_stat interval up queue_max_ms)" \
        "$cpu" "$(wan_stat interval up late_p99_ms)" | tee -a "$table"
    echo "$number $workload $client $fraction" >>"$work/fractions"
}

number=0
while read -r rtt loss rate queue kind <&3; do
    number=$((number + 1))
    if [ -n "${ONLY:-}" ] && ! [[ " ${ONLY//,/ } " == *" $number "* ]]; then continue; fi
    half=$(awk -v r="$rtt" 'BEGIN { printf "%.1f", r / 2 }')
    start_path --delay "${half}ms" --up-rate "${rate}MB/s" --up-queue "${queue}ms" --up-loss "${loss}%" \
        --seed $((seed + number)) --sysctl net.ipv4.tcp_congestion_control=cubic \
        --receiver-run "exec '$receiver_bin' --quiet --storage '$work/storage' --listen 0.0.0.0:$(IFS=,; echo "${ports[*]}")"
    for _ in $(seq 1 100); do
        ip netns exec "$client_ns" curl -sf -o /dev/null "http://$receiver_addr:${ports[2]}/v1/health" && break
        sleep 0.1
    done
    for workload in $WORKLOADS; do
        [ "$workload" = big ] && make_big "$rate"
        for client in $CLIENTS; do
            measure "$number" "$rtt" "$loss" "$rate" "$queue ($kind)" "$workload" "$client"
        done
    done
    stop_path
done 3<"$work/paths"

# ---- the targets the tuner will have to meet --------------------------------------------
# >= 0.90 of the bottleneck where one CUBIC flow (one curl -T of the big file) gets at most a
# third of it; never below one curl where one flow fills it (>= 0.80 here).
{
    echo
    echo "Targets (one curl -T of the big file is one CUBIC flow):"
    echo
    echo "| path | one flow | class | workload | multilane | curl | target | met today |"
    echo "|---|---:|---|---|---:|---:|---|---|"
    python3 - "$work/fractions" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    number, workload, client, fraction = line.split()
    rows[(number, workload, client)] = float(fraction)
for number in sorted({k[0] for k in rows}, key=int):
    one = rows.get((number, "big", "curl"))
    for workload in ("big", "small"):
        ml, curl = rows.get((number, workload, "multilane")), rows.get((number, workload, "curl"))
        if ml is None or one is None:
            continue
        if one <= 1 / 3:
            klass, target, met = "one flow <= 1/3", ">= 0.90", ml >= 0.90
        elif one >= 0.80:
            klass, target, met = "one flow fills it", f">= curl ({curl:.2f})" if curl is not None else "-", \
                curl is not None and ml >= curl
        else:
            klass, target, met = "in between", "-", None
        shown = "-" if met is None else ("yes" if met else "NO")
        print(f"| {number} | {one:.2f} | {klass} | {workload} | {ml:.2f} | "
              f"{'-' if curl is None else f'{curl:.2f}'} | {target} | {shown} |")
PY
    echo
    echo "- Paths drawn from seed $seed (SEED=$seed $0 draws them again): RTT log-uniform 20-300 ms (half each way)," \
        "loss 0 (30 %) or log-uniform 0.01-1 % (uplink), bottleneck log-uniform 10-100 MB/s (uplink)," \
        "queues alternately shallow 5-25 ms and deep 100-250 ms (drain time at the bottleneck)."
    echo "- CUBIC on both ends; the other sysctls as printed by wanemu: $(grep '^wanemu sysctl' "$work/wanemu.log" | sed 's/^wanemu sysctl //; s/ (both namespaces)//' | paste -sd ';' | sed 's/;/; /g')."
    echo "- Workloads: big = one file of max(100 MB, ${big_seconds} s x bottleneck); small = 300 x 200 KiB. A run still going after ${cap} s is stopped (cap) and counts the bytes it moved."
    echo "- Fraction = bytes / wall time of the whole process (start to exit, probe and verification included) / bottleneck rate; 0.965 is every IP byte at MSS 1448."
    echo "- TCP connections: most established at once (ss, every 0.5 s) / distinct uplink flows the emulator saw during the run, the ping's excluded."
    echo "- RTT added: ping -U every 0.2 s during the run, median, minus the idle median before it."
    echo "- Client CPU: user + system seconds of the client process(es); emulator late p99: how much later than computed the forwarder released the uplink's packets (its own timing error)."
    echo "- multilane: \`multilane upload --json --endpoint http://ADDR:9101 --endpoint …:9102 --endpoint …:9103 DIR/\` (self-tuned);" \
        "its --json summary does not say how many connections it used, so the emulator's and ss's counts stand in."
    echo "- tus-js-client: skipped; the receiver has no tus endpoint to send to."
    echo "- $(grep '^wanemu backend' "$work/wanemu.log" | sed 's/^wanemu //'); machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee -a "$table"
echo
echo "table: $table"
