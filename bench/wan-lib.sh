# Shared by bench/wan-check.sh, bench/wan-cpu.sh and bench/wan-multilane.sh (sourced, not
# run, from the top of the tree): set-up, starting and stopping wanemu, its counters, ping
# statistics.

wanemu=""
work=""

# wan_prepare NAME BUILD_DIR PACKAGE... : installs the Debian packages that are missing,
# checks for root and for wanemu in BUILD_DIR, sets $wanemu and a scratch folder $work.
wan_prepare() {
    local name=$1 build=$2
    shift 2
    MULTILANE_BOOTSTRAP_EXTRA="$*" scripts/bootstrap.sh
    [ "$(id -u)" -eq 0 ] || { echo "$name needs root (network namespaces)" >&2; exit 2; }
    wanemu="$build/bench/wanemu/wanemu"
    wan_require "$wanemu"
    work=$(mktemp -d "/tmp/$name.XXXXXX")
}

# wan_require FILE... : each must be an executable, or the script stops saying what to build.
wan_require() {
    local binary
    for binary in "$@"; do
        [ -x "$binary" ] || { echo "missing $binary: build first (BUILD_DIR=... scripts/build.sh)" >&2; exit 2; }
    done
}

wan_pid=""
client_ns=""
receiver_ns=""
client_addr=""
receiver_addr=""

# start_path WANEMU_ARGS... : starts wanemu, waits until it is ready, sets client_ns,
# receiver_ns, client_addr and receiver_addr.
start_path() {
    : >"$work/wanemu.log" # here, not in the background: a wait must not see the last run's log
    "$wanemu" "$@" >>"$work/wanemu.log" 2>&1 &
    wan_pid=$!
    local _
    for _ in $(seq 1 100); do
        grep -q '^wanemu ready' "$work/wanemu.log" && break
        kill -0 "$wan_pid" 2>/dev/null || break
        sleep 0.1
    done
    if ! grep -q '^wanemu ready' "$work/wanemu.log"; then
        local status=0
        kill -0 "$wan_pid" 2>/dev/null || wait "$wan_pid" || status=$?
        cat "$work/wanemu.log" >&2
        echo "wanemu did not start (exit status $status): $wanemu $*" >&2
        exit 1
    fi
    client_ns=$(awk '/^wanemu client netns/ {print $4}' "$work/wanemu.log")
    receiver_ns=$(awk '/^wanemu receiver netns/ {print $4}' "$work/wanemu.log")
    client_addr=$(awk '/^wanemu client netns/ {print $6}' "$work/wanemu.log")
    receiver_addr=$(awk '/^wanemu receiver netns/ {print $6}' "$work/wanemu.log")
}

# stop_path: ends wanemu (it removes both namespaces and everything running in them).
stop_path() {
    [ -n "$wan_pid" ] || return 0
    kill "$wan_pid" 2>/dev/null || true
    wait "$wan_pid" 2>/dev/null || true
    wan_pid=""
}

# interval_stats: asks wanemu for the counters since the previous call; they land in
# $work/wanemu.log as "wanemu stats interval up|down ...".
interval_stats() {
    local before
    before=$(grep -c '^wanemu stats interval down' "$work/wanemu.log" || true)
    kill -USR1 "$wan_pid"
    local _
    for _ in $(seq 1 50); do
        [ "$(grep -c '^wanemu stats interval down' "$work/wanemu.log" || true)" -gt "$before" ] && return 0
        sleep 0.05
    done
}

# wan_stat LABEL DIRECTION KEY: one counter from the last "wanemu stats LABEL DIRECTION" line.
wan_stat() {
    grep "^wanemu stats $1 $2 " "$work/wanemu.log" | tail -1 | tr ' ' '\n' | sed -n "s/^$3=//p"
}

# ping_samples NETNS ADDRESS COUNT INTERVAL: one round trip in ms per line.
ping_samples() {
    ip netns exec "$1" ping -n -i "$4" -c "$3" -U -W 5 "$2" 2>/dev/null | sed -n 's/.*time=\([0-9.]*\) ms/\1/p'
}

# percentile P < numbers: the P-th percentile (nearest rank) of the numbers on stdin.
percentile() {
    sort -n | awk -v p="$1" '{ v[NR] = $1 } END { if (NR == 0) { print "nan"; exit }
        i = int(p / 100 * NR + 0.999999); if (i < 1) i = 1; if (i > NR) i = NR; print v[i] }'
}

# start_iperf_server: iperf3 -s for one test in the receiver namespace, once it listens.
start_iperf_server() {
    ip netns exec "$receiver_ns" iperf3 -s -1 -D >/dev/null 2>&1
    local _
    for _ in $(seq 1 50); do
        ip netns exec "$receiver_ns" ss -Hltn "sport = :5201" | grep -q . && return 0
        sleep 0.1
    done
}
