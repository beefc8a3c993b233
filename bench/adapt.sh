#!/usr/bin/env bash
# The speed-up benchmark (issue #4): three workloads over three emulated links, sent by a plain
# uploader (curl -T, one file after another), curl with 8 files at once, and multilane with 1 and
# 3 endpoints, fixed and self-tuned. Prints a Markdown table (seconds, MB/s, fraction of the
# link's total rate, client and receiver CPU seconds, peak RSS) and writes a PNG chart.
#
# Usage: bench/adapt.sh [BUILD_DIR] [OUT_DIR]    (default: build, bench-out)
#   LINKS="a b c" WORKLOADS="big small mixed" CLIENTS="curl curl8 ml1-fixed ml1-auto ml3-fixed ml3-auto"
#   narrow the matrix.
set -euo pipefail
cd "$(dirname "$0")/.."
MULTILANE_BOOTSTRAP_EXTRA="time bc gnuplot-nox" scripts/bootstrap.sh
build="${1:-build}"
out="${2:-bench-out}"
bin="$build/app"
linksim_bin="$build/bench/linksim/linksim"
[ -x "$bin/multilane" ] && [ -x "$linksim_bin" ] || { echo "build first: BUILD_DIR=$build scripts/build.sh" >&2; exit 2; }
LINKS="${LINKS:-a b c}"
WORKLOADS="${WORKLOADS:-big small mixed}"
CLIENTS="${CLIENTS:-curl curl8 ml1-fixed ml1-auto ml3-fixed ml3-auto}"

mkdir -p "$out"
work=$(mktemp -d /tmp/multilane-adapt.XXXXXX)
cleanup() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# ---- workloads -------------------------------------------------------------------------------
mkdir -p "$work/big" "$work/small" "$work/mixed"
head -c $((200 * 1024 * 1024)) /dev/urandom >"$work/big/video.bin"
for i in $(seq 1 400); do head -c $((256 * 1024)) /dev/urandom >"$work/small/f$i.bin"; done
# The original idea's case: 59 files, 109 MB in all, sizes from 20 kB to ~12 MB.
python3 - "$work/mixed" <<'EOF'
import os, sys
folder = sys.argv[1]
sizes = [int(20000 * 1.118 ** i) for i in range(59)]
scale = 109_000_000 / sum(sizes)
for i, size in enumerate(sizes):
    with open(os.path.join(folder, f"file{i:02}.dat"), "wb") as f:
        f.write(os.urandom(int(size * scale)))
EOF
bytes_of() { du -sb "$1" | cut -f1; }

# ---- receiver --------------------------------------------------------------------------------
mkdir -p "$work/storage"
"$bin/multilane-receiver" --quiet --storage "$work/storage" --listen 127.0.0.1:0,0,0 >"$work/receiver.log" 2>&1 &
receiver_pid=$!
for _ in $(seq 1 100); do [ "$(grep -c '^listening' "$work/receiver.log")" -ge 3 ] && break; sleep 0.1; done
mapfile -t receiver_urls < <(sed -n 's/^listening on //p' "$work/receiver.log")
receiver_cpu() { awk '{printf "%.2f", ($14 + $15) / 100}' "/proc/$receiver_pid/stat"; }
receiver_rss_mb() { awk '/VmHWM/ {printf "%d", $2 / 1024}' "/proc/$receiver_pid/status"; }

declare -A link_args link_rate
link_args[a]="--per-connection-rate 2MB/s --total-rate 24MB/s --rtt 40"
link_args[b]="--per-connection-rate 24MB/s --total-rate 24MB/s --rtt 40"
link_args[c]=""
link_rate[a]=24000000
link_rate[b]=24000000
link_rate[c]=0
declare -A link_name
link_name[a]="(a) 2 MB/s per connection, 24 MB/s total, RTT 40 ms"
link_name[b]="(b) 24 MB/s per connection and total, RTT 40 ms"
link_name[c]="(c) loopback, no shaping"

start_link() { # link -> fills urls[]
    urls=()
    if [ "$1" = c ]; then urls=("${receiver_urls[@]}"); return; fi
    local listen=()
    for u in "${receiver_urls[@]}"; do listen+=(--listen "127.0.0.1:0=${u#http://}"); done
    # shellcheck disable=SC2086
    "$linksim_bin" "${listen[@]}" ${link_args[$1]} --quiet >"$work/linksim.log" 2>&1 &
    linksim_pid=$!
    for _ in $(seq 1 100); do [ "$(grep -c '^linksim' "$work/linksim.log")" -ge 3 ] && break; sleep 0.1; done
    mapfile -t urls < <(sed -n 's/^linksim \([^ ]*\) .*/http:\/\/\1/p' "$work/linksim.log")
}
stop_link() { [ -n "${linksim_pid:-}" ] && kill "$linksim_pid" 2>/dev/null && wait "$linksim_pid" 2>/dev/null || true; linksim_pid=""; }

endpoints_file() { # count -> path of a JSON endpoints file allowing 16 connections each
    local file="$work/endpoints-$1.json" list=""
    for u in "${urls[@]:0:$1}"; do list+="${list:+,}{\"url\":\"$u\",\"maxConnections\":16}"; done
    echo "{\"endpoints\":[$list]}" >"$file"
    echo "$file"
}

run_client() { # client workload dest -> runs it under /usr/bin/time into $work/time
    local client=$1 workload=$2 dest=$3 src="$work/$2"
    case $client in
    curl)
        /usr/bin/time -f "%e %U %S %M" -o "$work/time" bash -c '
            for f in "$1"/*; do curl -sf -o /dev/null -T "$f" "$2/v1/files/$3/" || exit 1; done' _ "$src" "${urls[0]}" "$dest" ;;
    curl8)
        /usr/bin/time -f "%e %U %S %M" -o "$work/time" bash -c '
            ls "$1" | xargs -P 8 -I{} curl -sf -o /dev/null -T "$1/{}" "$2/v1/files/$3/"' _ "$src" "${urls[0]}" "$dest" ;;
    ml1-fixed | ml3-fixed)
        local n=${client:2:1}
        /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$bin/multilane" upload --quiet --state-dir "$work/state" \
            --endpoints-file "$(endpoints_file "$n")" --connections $((n * 4)) --chunk-size 8M --dest "$dest" "$src/" ;;
    ml1-auto | ml3-auto)
        local n=${client:2:1}
        /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$bin/multilane" upload --quiet --state-dir "$work/state" \
            --endpoints-file "$(endpoints_file "$n")" --dest "$dest" "$src/" ;;
    esac
}

table="$out/adapt.md"
data="$out/adapt.dat"
{
    echo "| link | workload | client | seconds | MB/s | of link | client CPU s | client RSS MB | receiver CPU s |"
    echo "|---|---|---|---:|---:|---:|---:|---:|---:|"
} >"$table"
: >"$data"
run=0
for link in $LINKS; do
    start_link "$link"
    for workload in $WORKLOADS; do
        size=$(bytes_of "$work/$workload")
        for client in $CLIENTS; do
            run=$((run + 1))
            cpu_before=$(receiver_cpu)
            if ! run_client "$client" "$workload" "r$run"; then
                echo "| ${link} | $workload | $client | failed | | | | | |" >>"$table"
                continue
            fi
            read -r secs user sys rss <"$work/time"
            cpu_after=$(receiver_cpu)
            rate=$(echo "$size / $secs / 1000000" | bc -l)
            fraction="-"
            [ "${link_rate[$link]}" -gt 0 ] && fraction=$(printf '%.0f%%' "$(echo "100 * $size / $secs / ${link_rate[$link]}" | bc -l)")
            printf '| %s | %s | %s | %.2f | %.1f | %s | %.2f | %d | %.2f |\n' "$link" "$workload" "$client" "$secs" \
                "$rate" "$fraction" "$(echo "$user + $sys" | bc -l)" "$((rss / 1024))" \
                "$(echo "$cpu_after - $cpu_before" | bc -l)" | tee -a "$table"
            echo "$link-$workload $client $rate" >>"$data"
            rm -rf "$work/storage/r$run"
        done
    done
    stop_link
done
{
    echo
    for link in $LINKS; do echo "- ${link_name[$link]}"; done
    echo "- receiver peak RSS over the whole run: $(receiver_rss_mb) MB"
} >>"$table"

# ---- chart -----------------------------------------------------------------------------------
python3 - "$data" "$work/chart.dat" <<'EOF'
import sys
rows = [line.split() for line in open(sys.argv[1])]
groups = list(dict.fromkeys(r[0] for r in rows))
clients = list(dict.fromkeys(r[1] for r in rows))
value = {(r[0], r[1]): r[2] for r in rows}
with open(sys.argv[2], "w") as out:
    out.write("group " + " ".join(clients) + "\n")
    for g in groups:
        out.write(g + " " + " ".join(value.get((g, c), "0") for c in clients) + "\n")
EOF
gnuplot <<EOF
set terminal pngcairo size 1400,600 font "DejaVu Sans,10"
set output "$out/adapt.png"
set title "Multilane vs curl: MB/s by link and workload (higher is better)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y
set ylabel "MB/s (log scale)"
set xtics rotate by -30
set key outside right
plot for [i=2:$(($(echo "$CLIENTS" | wc -w) + 1))] "$work/chart.dat" using i:xtic(1) title columnheader(i)
EOF
echo
echo "table: $table   chart: $out/adapt.png"
