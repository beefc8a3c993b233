#!/usr/bin/env bash
# Issue #14's chaos benchmark: one 400 MiB file and 150 small files over three endpoints behind
# linksim, twelve kill -9 (alternately the client, then `multilane resume`, and the receiver,
# restarted 1 s later while the client goes on) at the endpoint check, a create, a last chunk, a
# complete and random moments. The first row is the issue's link (50 MB/s, 10 ms RTT), the others
# links drawn from the seed. Prints a Markdown table: wire bytes against the data plus what the
# kills caught in flight (target: within 1 %), and the time from each restart to its first data
# byte (target: 1 s + one round trip).
#
# Usage: bench/chaos.sh [BUILD_DIR]      (default: build)
#   SEED=N     the links' and the kills' seed (default: a new one each run; printed)
#   LINKS=3    rows (the issue's link, then drawn ones)
#   LOGS=DIR   keep every process's stderr and stdout below DIR/<row>
#   CLIENT=PATH  another build's `multilane` (a before-and-after comparison; the receiver is this one)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
[ -x "$build/tests/chaos/tst_chaos" ] && [ -x "$build/bench/linksim/linksim" ] ||
    { echo "build first: BUILD_DIR=$build scripts/build.sh" >&2; exit 2; }
seed="${SEED:-$(( (RANDOM << 15) | RANDOM ))}"
links="${LINKS:-3}"
echo "seed $seed"
# A link per row from the seed: 25-100 MB/s, 5-40 ms; the first is issue #14's.
mapfile -t rows < <(python3 - "$seed" "$links" <<'PY'
import random, sys
seed, count = int(sys.argv[1]), int(sys.argv[2])
draw = random.Random(seed)
print(50000000, 10, seed)
for i in range(1, count):
    print(int(draw.uniform(25e6, 100e6)), int(draw.uniform(5, 40)), draw.randrange(1 << 30))
PY
)
echo
echo "| link | kills | data | wire | wire/data | in flight at the kills | bound (data + in flight + 1 %) | restart to first byte: client, worst | receiver, worst | target 1 s + RTT | verdict |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
row=0
for spec in "${rows[@]}"; do
    read -r rate rtt kill_seed <<< "$spec"
    row=$((row + 1))
    logs=""
    [ -n "${LOGS:-}" ] && logs="$LOGS/$row"
    # QtTest ends a test function after 5 minutes by default; a slow row may need the profile's 10.
    output=$(QT_QPA_PLATFORM=offscreen QTEST_FUNCTION_TIMEOUT=660000 MULTILANE_CHAOS=bench MULTILANE_CHAOS_SEED="$kill_seed" \
        MULTILANE_CHAOS_RATE="$rate" MULTILANE_CHAOS_RTT_MS="$rtt" MULTILANE_CHAOS_LOGS="$logs" \
        MULTILANE_CHAOS_CLIENT="${CLIENT:-$PWD/$build/app/multilane}" \
        "$build/tests/chaos/tst_chaos" 2>&1) || true
    result=$(grep -o 'chaos-result .*' <<< "$output" | tail -1 || true)
    passed=$(grep -c '^PASS   : TestChaos::killCycle' <<< "$output" || true)
    if [ -z "$result" ]; then
        # The run ended before its figures (a failed start, a timeout): say so, with its end.
        echo "| $((rate / 1000000)) MB/s, $rtt ms (seed $kill_seed) | - | - | - | - | - | - | - | - | - | NO RESULT |"
        tail -n 15 <<< "$output" | sed 's/^/    /' >&2
        continue
    fi
    python3 - "$result" "$passed" <<'PY'
import sys
fields = dict(item.split('=', 1) for item in sys.argv[1].split()[1:])
mib = lambda b: f"{int(b) / 1048576:.1f} MiB"
data, wire, inflight = int(fields['data']), int(fields['wire']), int(fields['inflight'])
rtt = int(fields['rtt'])
bound = data + inflight + data // 100
client, receiver = int(fields['ttfb_client_max']), int(fields['ttfb_receiver_max'])
target = 1000 + rtt
ok = wire <= bound and client <= target and receiver <= target and sys.argv[2] == '1'
print(f"| {float(fields['rate']) / 1e6:.0f} MB/s, {rtt} ms (seed {fields['seed']}) | {fields['kills']} | {mib(data)} "
      f"| {mib(wire)} | {wire / data:.3f} | {mib(inflight)} | {mib(bound)} | {client} ms | {receiver} ms "
      f"| {target} ms | {'meets' if ok else 'MISSES'} |")
PY
done
