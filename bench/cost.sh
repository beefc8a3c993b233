#!/usr/bin/env bash
# What a byte and a file cost, not only how fast they go (issue #16). For one big file and for
# many 1 KiB files, each sent by `multilane upload` (self-tuned, three receiver ports) and by
# `curl -T` into the same receiver (it stores and hashes what curl sends too), with
# OpenSSL's SHA-256 of the same data beside them: wall time, client and receiver CPU seconds (per GiB, per 1,000
# files), peak RSS of both, and the ratios issue #16 sets as targets. Then instructions
# (callgrind) on smaller samples, which a loaded machine does not blur.
#
# Two set-ups: "shared" is loopback, client and receiver sharing the machine's cores; "split"
# pins the client to core 0 and the receiver to core 1, each in its own network namespace
# joined by a veth pair, so a figure stands for two one-core machines on a fast LAN.
#
# Usage: bench/cost.sh [BUILD_DIR]          (default build)
# Environment:
#   COST_MODES="shared split"   which set-ups (split needs root and two cores; "" for none)
#   COST_BIG_MIB=1024           the big file
#   COST_SMALL="20000 200000"   small-file counts (1 KiB each; "" for none)
#   COST_MILLION=1              also 1,000,000 small files, multilane only, shared set-up
#   COST_CALLGRIND=0            skip the instruction counts
#   COST_CALLGRIND_MIB=128 COST_CALLGRIND_FILES=2000   their samples
#   COST_SEED=N                 seed of the data (printed)
set -euo pipefail
cd "$(dirname "$0")/.."
MULTILANE_BOOTSTRAP_EXTRA="time bc curl valgrind iproute2 util-linux" scripts/bootstrap.sh
build="${1:-build}"
bin="$build/app"
[ -x "$bin/multilane" ] && [ -x "$bin/multilane-receiver" ] || { echo "build first: scripts/build.sh" >&2; exit 2; }
modes="${COST_MODES-shared split}"
big_mib="${COST_BIG_MIB:-1024}"
small_counts="${COST_SMALL-20000 200000}"
seed="${COST_SEED:-$RANDOM}"
work=$(mktemp -d /tmp/multilane-cost.XXXXXX)
suffix=$$
client_ns="mlcost-c$suffix"
receiver_ns="mlcost-r$suffix"

receiver_pid=""
cleanup() {
    [ -n "$receiver_pid" ] && kill "$receiver_pid" 2>/dev/null && wait "$receiver_pid" 2>/dev/null
    ip netns del "$client_ns" 2>/dev/null || true
    ip netns del "$receiver_ns" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

echo "seed $seed; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- data -------------------------------------------------------------------------------------
# Pseudo-random bytes from the seed (openssl's counter-mode stream): the same seed, the same data.
# (openssl dies of SIGPIPE when head has enough: not a failure.)
random_bytes() (
    set +o pipefail
    openssl enc -aes-128-ctr -nosalt -pass "pass:$seed-$2" -pbkdf2 -in /dev/zero 2>/dev/null | head -c "$1"
)
mkdir -p "$work/src"
random_bytes $((big_mib * 1024 * 1024)) big >"$work/src/big.bin"
make_small() { # COUNT FOLDER
    mkdir -p "$2"
    random_bytes $(($1 * 1024)) "small$1" | (cd "$2" && split -b 1024 -a 7 -d - f)
    [ "$(find "$2" -type f | wc -l)" -eq "$1" ] || { echo "could not make $1 files in $2" >&2; exit 1; }
}
for count in $small_counts; do make_small "$count" "$work/src/small$count"; done

# ---- where things run -------------------------------------------------------------------------
on_client=()
on_receiver=()
receiver_host=127.0.0.1
setup_mode() {
    case "$1" in
    shared)
        on_client=()
        on_receiver=()
        receiver_host=127.0.0.1
        ;;
    split)
        [ "$(id -u)" -eq 0 ] || { echo "the split set-up needs root (network namespaces)" >&2; return 1; }
        [ "$(nproc)" -ge 2 ] || { echo "the split set-up needs two cores" >&2; return 1; }
        ip netns add "$client_ns"
        ip netns add "$receiver_ns"
        ip link add "mlc$suffix" type veth peer name "mlr$suffix"
        ip link set "mlc$suffix" netns "$client_ns"
        ip link set "mlr$suffix" netns "$receiver_ns"
        ip -n "$client_ns" addr add 10.250.0.1/24 dev "mlc$suffix"
        ip -n "$receiver_ns" addr add 10.250.0.2/24 dev "mlr$suffix"
        for ns in "$client_ns" "$receiver_ns"; do ip -n "$ns" link set lo up; done
        ip -n "$client_ns" link set "mlc$suffix" up
        ip -n "$receiver_ns" link set "mlr$suffix" up
        on_client=(ip netns exec "$client_ns" taskset -c 0)
        on_receiver=(ip netns exec "$receiver_ns" taskset -c 1)
        receiver_host=10.250.0.2
        ;;
    esac
}
teardown_mode() {
    ip netns del "$client_ns" 2>/dev/null || true
    ip netns del "$receiver_ns" 2>/dev/null || true
}

urls=()
start_receiver() { # STORAGE [VALGRIND...]
    local storage=$1
    shift
    : >"$work/receiver.log"
    "${on_receiver[@]}" "$@" "$bin/multilane-receiver" --quiet --storage "$storage" \
        --listen "$receiver_host:0,0,0" >"$work/receiver.log" 2>&1 &
    receiver_pid=$!
    local _
    for _ in $(seq 1 600); do
        [ "$(grep -c '^listening' "$work/receiver.log")" -ge 3 ] && break
        sleep 0.1
    done
    mapfile -t urls < <(sed -n 's/^listening on //p' "$work/receiver.log")
    [ ${#urls[@]} -eq 3 ] || { cat "$work/receiver.log" >&2; echo "the receiver did not start" >&2; exit 1; }
    # ip netns exec and taskset exec the receiver: the pid is the receiver's own.
}
stop_receiver() {
    kill -TERM "$receiver_pid" 2>/dev/null || true
    wait "$receiver_pid" 2>/dev/null || true
    receiver_pid=""
}
receiver_cpu() { awk '{printf "%.2f", ($14 + $15) / 100}' "/proc/$receiver_pid/stat"; }
reset_receiver_peak() { echo 5 >"/proc/$receiver_pid/clear_refs" 2>/dev/null || true; }
receiver_peak_mb() { awk '/^VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$receiver_pid/status"; }

# ---- one measured run -------------------------------------------------------------------------
declare -A wall cpu rss rcpu rrss
# run KEY COMMAND...: the command on the client side under /usr/bin/time, the receiver watched.
run() {
    local key=$1
    shift
    # What the row before it wrote is on disk first: its writeback is not charged to this row.
    sync
    reset_receiver_peak
    local r0 r1
    r0=$(receiver_cpu)
    "${on_client[@]}" /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/stderr" ||
        { cat "$work/stderr" >&2; echo "failed: $*" >&2; }
    r1=$(receiver_cpu)
    local e u s m
    read -r e u s m <"$work/time"
    wall[$key]=$e
    cpu[$key]=$(printf '%.2f' "$(echo "$u + $s" | bc)")
    rss[$key]=$((m / 1024))
    rcpu[$key]=$(printf '%.2f' "$(echo "$r1 - $r0" | bc)")
    rrss[$key]=$(receiver_peak_mb)
}
# The commands, as arrays (they run under ip netns exec, taskset and time: no shell functions).
multilane_command() { # DEST SOURCE
    command=("$bin/multilane" upload --endpoint "${urls[0]}" --endpoint "${urls[1]}" --endpoint "${urls[2]}"
        --quiet --state-dir "$work/state" --dest "$1" "$2")
}
curl_many_command() { # DEST FOLDER: one curl, one kept-alive connection, every file of the folder
    local config="$work/curl-$1.config"
    find "$2" -type f -printf '%f\n' | sort | awk -v dir="$2" -v url="${urls[0]}/v1/files/$1" \
        '{ printf "upload-file = \"%s/%s\"\nurl = \"%s/%s\"\noutput = \"/dev/null\"\n", dir, $1, url, $1 }' >"$config"
    command=(curl -s -K "$config")
}
# SHA-256 as both ends compute it (OpenSSL, with the CPU's SHA instructions where it has them;
# coreutils' sha256sum has none and takes three times as long).
sha_many_command() { command=(sh -c "find '$1' -type f -print0 | xargs -0 -n 2000 openssl dgst -sha256 >/dev/null"); }

per() { echo "scale=3; $1 / $2" | bc | sed 's/^\./0./'; }
row() { # LABEL KEY UNITS (GiB or thousands of files)
    local k=$2 receiver_per=-
    [ -n "${rcpu[$k]:-}" ] && receiver_per=$(per "${rcpu[$k]}" "$3")
    printf '| %-24s | %7s | %7s | %6s | %7s | %7s | %7s | %6s |\n' "$1" "${wall[$k]}" "${cpu[$k]}" \
        "${rss[$k]:--}" "$(per "${cpu[$k]}" "$3")" "${rcpu[$k]:--}" "$receiver_per" "${rrss[$k]:--}"
}
header() {
    echo "| $1 | wall s | client CPU s | client RSS MB | client CPU $2 | receiver CPU s | receiver CPU $2 | receiver peak RSS MB |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
}
verdict() { # NAME VALUE TARGET(<= or >=) LIMIT
    local ok
    if [ "$3" = "<=" ]; then ok=$(echo "$2 <= $4" | bc); else ok=$(echo "$2 >= $4" | bc); fi
    printf '  %-58s %8s  (target %s %s: %s)\n' "$1" "$2" "$3" "$4" "$([ "$ok" = 1 ] && echo met || echo MISSED)"
}

# ---- the workloads ----------------------------------------------------------------------------
measure_mode() {
    local mode=$1
    setup_mode "$mode" || return 0
    local storage="$work/storage-$mode"
    mkdir -p "$storage"
    start_receiver "$storage"
    echo
    echo "## $mode: $([ "$mode" = shared ] && echo "loopback, client and receiver share $(nproc) cores" ||
        echo "client on core 0, receiver on core 1, namespaces joined by veth")"
    local gib
    gib=$(echo "scale=6; $big_mib / 1024" | bc)
    echo
    header "big file, $big_mib MiB" "per GiB"
    sync
    run sha openssl dgst -sha256 "$work/src/big.bin"
    unset 'rcpu[sha]' 'rrss[sha]'
    run curl curl -s -o /dev/null -T "$work/src/big.bin" "${urls[0]}/v1/files/curl/big.bin"
    # A fresh receiver for the second row: one receiver process has been seen to pay far more for
    # its second GiB than for its first (docs/performance.md, "Cost"), which would charge
    # whichever client goes second.
    stop_receiver
    start_receiver "$storage"
    multilane_command ml "$work/src/big.bin"
    run ml "${command[@]}"
    cmp -s "$work/src/big.bin" "$storage/ml/big.bin" || echo "  !! the big file arrived different" >&2
    row "SHA-256 (openssl)" sha "$gib"
    row "curl -T" curl "$gib"
    row "multilane" ml "$gib"
    verdict "client CPU / (SHA-256 + curl's)" "$(per "${cpu[ml]}" "$(echo "${cpu[sha]} + ${cpu[curl]}" | bc)")" "<=" 1.5
    verdict "receiver CPU / receiver CPU for curl" "$(per "${rcpu[ml]}" "${rcpu[curl]}")" "<=" 1.3
    verdict "wall time / curl's" "$(per "${wall[ml]}" "${wall[curl]}")" "<=" 1.1
    # Every row's files stay until the end: on an ext4 without a journal, creating files soon after
    # many were deleted makes the kernel skip recently freed inodes (recently_deleted()), which
    # cost the receiver twice its CPU for small files when rows removed the row before's
    # (docs/performance.md, "Cost").
    local count
    for count in $small_counts; do
        local thousands
        thousands=$(echo "scale=3; $count / 1000" | bc)
        echo
        header "$count × 1 KiB" "per 1,000 files"
        sha_many_command "$work/src/small$count"
        run sha "${command[@]}"
        unset 'rcpu[sha]' 'rrss[sha]'
        curl_many_command "curl$count" "$work/src/small$count"
        run curl "${command[@]}"
        multilane_command "ml$count" "$work/src/small$count"
        run ml "${command[@]}"
        row "SHA-256 (openssl)" sha "$thousands"
        row "curl -T (one connection)" curl "$thousands"
        row "multilane" ml "$thousands"
        local arrived
        arrived=$(find "$storage/ml$count" -type f | wc -l)
        [ "$arrived" -eq "$count" ] || echo "  !! $arrived of $count files arrived" >&2
        verdict "multilane files per second" "$(echo "$count / ${wall[ml]}" | bc)" ">=" 3000
        verdict "client CPU / (SHA-256 + curl's)" "$(per "${cpu[ml]}" "$(echo "${cpu[sha]} + ${cpu[curl]}" | bc)")" "<=" 1.5
        verdict "receiver CPU / receiver CPU for curl" "$(per "${rcpu[ml]}" "${rcpu[curl]}")" "<=" 1.3
        if [ "$count" -ge 200000 ]; then
            verdict "client peak RSS MB" "${rss[ml]}" "<=" 150
            verdict "receiver peak RSS MB" "${rrss[ml]}" "<=" 100
        fi
        rm -rf "$work/state"
    done
    stop_receiver
    teardown_mode
}

# A million files, last: their inodes and writeback would weigh on every row after them.
million() {
    setup_mode shared
    local storage="$work/storage-million"
    mkdir -p "$storage"
    start_receiver "$storage"
    echo
    make_small 1000000 "$work/src/small1000000"
    header "1,000,000 × 1 KiB, multilane only, shared" "per 1,000 files"
    multilane_command ml1m "$work/src/small1000000"
    run ml "${command[@]}"
    row "multilane" ml "1000"
    echo "  arrived: $(find "$storage/ml1m" -type f | wc -l) of 1000000"
    rm -rf "$storage" "$work/src/small1000000" "$work/state"
    stop_receiver
}

# ---- instructions -----------------------------------------------------------------------------
# callgrind_total OUT: the instructions of every thread in a callgrind output (user space only).
# As an integer: awk prints a large sum as 4.25e+09, which bc cannot read.
callgrind_total() { awk '/^summary:/ {s += $2} END {printf "%.0f\n", s}' "$@"; }
instructions() {
    local mib="${COST_CALLGRIND_MIB:-128}" files="${COST_CALLGRIND_FILES:-2000}"
    setup_mode shared
    echo
    echo "## instructions (callgrind, user space; loopback; $mib MiB file, $files × 1 KiB)"
    head -c $((mib * 1024 * 1024)) "$work/src/big.bin" >"$work/src/sample.bin"
    make_small "$files" "$work/src/sample-small"
    echo
    echo "| what | client Ginstr | receiver Ginstr | client per GiB / per 1,000 files | receiver per GiB / per 1,000 files |"
    echo "|---|---:|---:|---:|---:|"
    local vg=(valgrind --tool=callgrind --max-threads=2000 --dump-instr=no)
    local label what client_out receiver_out
    for what in big-curl big-ml small-curl small-ml; do
        rm -rf "$work/cg" "$work/cg-storage" "$work/state"
        mkdir -p "$work/cg" "$work/cg-storage"
        start_receiver "$work/cg-storage" "${vg[@]}" --callgrind-out-file="$work/cg/receiver.%p"
        case $what in
        big-curl) command=(curl -s -o /dev/null -T "$work/src/sample.bin" "${urls[0]}/v1/files/c/sample.bin") ;;
        big-ml) multilane_command m "$work/src/sample.bin" ;;
        small-curl) curl_many_command c "$work/src/sample-small" ;;
        small-ml) multilane_command m "$work/src/sample-small" ;;
        esac
        "${vg[@]}" --callgrind-out-file="$work/cg/client.%p" "${command[@]}" >/dev/null 2>"$work/cg/stderr" ||
            { cat "$work/cg/stderr" >&2; echo "failed under callgrind: $what" >&2; }
        stop_receiver
        client_out=$(callgrind_total "$work"/cg/client.*)
        receiver_out=$(callgrind_total "$work"/cg/receiver.*)
        local scale
        case $what in big-*) scale=$(echo "scale=6; $mib / 1024" | bc) ;; *) scale=$(echo "scale=6; $files / 1000" | bc) ;; esac
        printf '| %s | %.2f | %.2f | %.2f G | %.2f G |\n' "$what" "$(echo "$client_out / 10^9" | bc -l)" \
            "$(echo "$receiver_out / 10^9" | bc -l)" "$(echo "$client_out / $scale / 10^9" | bc -l)" \
            "$(echo "$receiver_out / $scale / 10^9" | bc -l)"
    done
    echo "(valgrind hides SHA-NI, so SHA-256 counts as its portable code on both ends)"
}

for mode in $modes; do measure_mode "$mode"; done
[ "${COST_CALLGRIND:-1}" = 1 ] && instructions
[ "${COST_MILLION:-0}" = 1 ] && million
echo
echo "done; load average $(cut -d' ' -f1-3 /proc/loadavg)"
