#!/usr/bin/env bash
# A throwaway single-node Ceph cluster with S3 gateways, for tests and measurements.
#
#   ceph-cluster.sh start DIR [GATEWAYS]   one monitor, one memstore OSD, GATEWAYS (default 2)
#                                          radosgw on free loopback ports, an S3 user; writes DIR/env
#   ceph-cluster.sh restart-gateway DIR N  kills gateway N (SIGKILL) and starts it again on its port
#   ceph-cluster.sh stop DIR               stops every daemon by pid and removes DIR
#
# DIR/env holds KEY=value lines (no quoting needed) a shell can source or a test can parse:
# CEPH_S3_ENDPOINTS (comma-separated), CEPH_S3_ENDPOINT_1.., CEPH_S3_ACCESS_KEY,
# CEPH_S3_SECRET_KEY, CEPH_S3_REGION, CEPH_S3_GATEWAYS, CEPH_CONF.
# Missing packages are installed from Debian (root, or sudo). Settings and timings:
# /work/shared/PLATFORM.md and docs/s3.md. CEPH_MEMSTORE_BYTES overrides the OSD's RAM store size.
set -Eeuo pipefail
# set -e ends the script at a failed command without a word: say which one, so a start that
# fails is told apart from one that was lost.
trap 'echo "ceph-cluster.sh: line $LINENO: \"$BASH_COMMAND\" failed with exit code $?" >&2' ERR

readonly PACKAGES=(ceph-mon ceph-osd radosgw ceph-common awscli)
readonly ACCESS_KEY=MULTILANETESTKEY0001
readonly SECRET_KEY=multilane-test-secret-0000000000000000000
readonly REGION=us-east-1
readonly READY_TIMEOUT_S=${CEPH_READY_TIMEOUT_S:-180}

die() {
    echo "ceph-cluster.sh: $*" >&2
    exit 1
}

as_root() {
    if [[ $(id -u) -eq 0 ]]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        die "need root (or sudo) to run: $*"
    fi
}

ensure_packages() {
    local missing=0
    for tool in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph; do
        command -v "$tool" >/dev/null || missing=1
    done
    [[ -x /usr/bin/aws ]] || missing=1
    [[ $missing -eq 0 ]] && return 0
    echo "ceph-cluster.sh: installing ${PACKAGES[*]} from Debian" >&2
    # Several suites may start a cluster at once (ctest -j): each waits for the others' dpkg lock.
    local install=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y
        --no-install-recommends "${PACKAGES[@]}")
    # The package lists are only fetched when the install fails for want of them: an update
    # costs tens of seconds and is usually not needed on a machine set up by the bootstrap.
    if ! as_root "${install[@]}" >"${TMPDIR:-/tmp}/ceph-cluster-apt.log" 2>&1; then
        as_root apt-get -o DPkg::Lock::Timeout=600 update >>"${TMPDIR:-/tmp}/ceph-cluster-apt.log" 2>&1 || true
        as_root "${install[@]}" >>"${TMPDIR:-/tmp}/ceph-cluster-apt.log" 2>&1 ||
            die "could not install ${PACKAGES[*]} (see ${TMPDIR:-/tmp}/ceph-cluster-apt.log)"
    fi
}

port_is_free() {
    [[ -z $(ss -Hltn "sport = :$1" 2>/dev/null) ]]
}

# A free loopback port not already handed out by this run (the gateways bind a moment later).
declare -a TAKEN_PORTS=()
free_port() {
    local port
    for _ in $(seq 1 200); do
        port=$((20000 + RANDOM % 30000))
        if port_is_free "$port" && [[ " ${TAKEN_PORTS[*]} " != *" $port "* ]]; then
            TAKEN_PORTS+=("$port")
            echo "$port"
            return 0
        fi
    done
    die "no free loopback port found"
}

# Kills the daemons a previous run (or this one) left in DIR, by the pids in their pid files;
# a pid is only killed while its command line still names DIR's ceph.conf (pids get reused).
kill_daemons() {
    local dir=$1 signal=${2:-TERM}
    local pids=()
    for pidfile in "$dir"/run/*.pid; do
        [[ -e $pidfile ]] || continue
        local pid
        pid=$(cat "$pidfile" 2>/dev/null || true)
        [[ $pid =~ ^[0-9]+$ ]] || continue
        if { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | grep -qF -- "$dir/ceph.conf"; then
            kill "-$signal" "$pid" 2>/dev/null || true
            pids+=("$pid")
        fi
    done
    for pid in "${pids[@]}"; do
        for _ in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
    done
}

write_config() {
    local dir=$1 mon_port=$2
    cat >"$dir/ceph.conf" <<EOF
[global]
fsid = $(cat /proc/sys/kernel/random/uuid)
mon host = v2:127.0.0.1:$mon_port
public addr = 127.0.0.1
auth allow insecure global id reclaim = false
mon warn on insecure global id reclaim allowed = false
rgw init timeout = 60
run dir = $dir/run
pid file = $dir/run/\$name.pid
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
mon data = $dir/mon/\$name
osd data = $dir/osd/\$name
keyring = $dir/keyring
# One node, one copy: no replication, no waiting for peers.
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
osd pool default pg num = 8
osd pool default pgp num = 8
mon max pg per osd = 1000
# Monitor commits every 0.1 s instead of 1 s: the cluster is ready in ~3 s instead of ~13 s.
paxos propose interval = 0.1
mon data avail crit = 1
mon data avail warn = 2
osd objectstore = memstore
# memstore keeps about twice the stored bytes in RAM; a full one hangs requests (no 507).
memstore device bytes = ${CEPH_MEMSTORE_BYTES:-4294967296}
rgw data = $dir/rgw/\$name
EOF
}

# One keyring with every daemon's key; the monitor's mkfs imports them all into its auth
# database, so nothing has to be registered later.
write_keyring() {
    local dir=$1 gateways=$2
    local all=(--cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *')
    ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
    ceph-authtool "$dir/keyring" --gen-key -n client.admin "${all[@]}" --cap mds 'allow *' >/dev/null
    ceph-authtool "$dir/keyring" --gen-key -n osd.0 "${all[@]}" >/dev/null
    for i in $(seq 1 "$gateways"); do
        ceph-authtool "$dir/keyring" --gen-key -n "client.rgw.gw$i" "${all[@]}" >/dev/null
    done
}

start_monitor() {
    local dir=$1 mon_port=$2
    monmaptool --create --clobber --fsid "$(awk '/^fsid/ {print $3}' "$dir/ceph.conf")" \
        --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap" >/dev/null
    mkdir -p "$dir/mon/mon.a"
    ceph-mon -c "$dir/ceph.conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/keyring" >>"$dir/log/setup.log" 2>&1
    ceph-mon -c "$dir/ceph.conf" -i a >>"$dir/log/setup.log" 2>&1
}

start_osd() {
    local dir=$1 uuid id
    uuid=$(cat /proc/sys/kernel/random/uuid)
    id=$(timeout 60 ceph -c "$dir/ceph.conf" osd new "$uuid") || die "the monitor did not answer (see $dir/log)"
    mkdir -p "$dir/osd/osd.$id"
    ceph-osd -c "$dir/ceph.conf" -i "$id" --mkfs --osd-uuid "$uuid" >>"$dir/log/setup.log" 2>&1
    ceph-osd -c "$dir/ceph.conf" -i "$id" >>"$dir/log/setup.log" 2>&1
}

create_user() {
    local dir=$1
    # Before any gateway runs: two gateways racing to create the default zone fail.
    timeout 120 radosgw-admin -c "$dir/ceph.conf" user create --uid=multilane-test \
        --display-name="Multilane test" --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" \
        >>"$dir/log/setup.log" 2>&1 || die "radosgw-admin user create failed (see $dir/log/setup.log)"
}

start_gateway() {
    local dir=$1 index=$2 port=$3
    mkdir -p "$dir/rgw/client.rgw.gw$index"
    radosgw -c "$dir/ceph.conf" -n "client.rgw.gw$index" \
        --rgw-frontends "beast endpoint=127.0.0.1:$port" >>"$dir/log/setup.log" 2>&1
}

# A signed ListBuckets answering 200 means the gateway serves S3 with our user.
gateway_answers() {
    local port=$1
    [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --aws-sigv4 "aws:amz:$REGION:s3" \
        --user "$ACCESS_KEY:$SECRET_KEY" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
        "http://127.0.0.1:$port/" 2>/dev/null) == 200 ]]
}

# Sets GATEWAY_PORT to the port gateway $index serves on: $port, or another one when a process
# started since free_port took $port first (suites side by side under ctest -j), which radosgw
# reports as "failed to bind" in its log before it exits.
wait_for_gateway() {
    local dir=$1 port=$2 index=$3 deadline=$((SECONDS + READY_TIMEOUT_S)) log
    log="$dir/log/client.rgw.gw$index.log"
    until gateway_answers "$port"; do
        if grep -q "failed to bind address" "$log" 2>/dev/null; then
            pkill -KILL -f -- "-n client.rgw.gw$index --rgw-frontends beast endpoint=127.0.0.1:$port\$" || true
            mv "$log" "$log.port-$port"
            port=$(free_port)
            echo "ceph-cluster.sh: gateway $index's port was taken meanwhile; now on $port" >&2
            start_gateway "$dir" "$index" "$port"
        fi
        if ((SECONDS >= deadline)); then
            # The log goes with the cluster's folder: its end goes into the message.
            echo "ceph-cluster.sh: the end of gateway $index's log:" >&2
            tail -n 15 "$log" >&2 2>/dev/null || true
            die "gateway $index on port $port did not answer in ${READY_TIMEOUT_S} s (see $dir/log)"
        fi
        sleep 0.1
    done
    GATEWAY_PORT=$port
}

write_env() {
    local dir=$1
    shift
    local endpoints=() i=1
    {
        for port in "$@"; do
            echo "CEPH_S3_ENDPOINT_$i=http://127.0.0.1:$port"
            endpoints+=("http://127.0.0.1:$port")
            i=$((i + 1))
        done
        echo "CEPH_S3_ENDPOINTS=$(IFS=,; echo "${endpoints[*]}")"
        echo "CEPH_S3_GATEWAYS=$#"
        echo "CEPH_S3_ACCESS_KEY=$ACCESS_KEY"
        echo "CEPH_S3_SECRET_KEY=$SECRET_KEY"
        echo "CEPH_S3_REGION=$REGION"
        echo "CEPH_CONF=$dir/ceph.conf"
    } >"$dir/env.tmp"
    mv "$dir/env.tmp" "$dir/env"
}

cmd_start() {
    local dir=$1 gateways=${2:-2}
    [[ $gateways =~ ^[1-9]$ ]] || die "GATEWAYS must be 1-9, not '$gateways'"
    local started=$SECONDS
    ensure_packages
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    kill_daemons "$dir" KILL
    rm -rf "${dir:?}"/{run,log,mon,osd,rgw,ceph.conf,monmap,env,env.tmp}
    mkdir -p "$dir/run" "$dir/log"
    # A start that fails half-way leaves no daemons behind (the logs stay for a look).
    trap 'kill_daemons "'"$dir"'" KILL' EXIT
    local mon_port
    write_keyring "$dir" "$gateways"
    # Between free_port and the bind another suite's daemon may take the port (ctest -j): the
    # monitor then exits at once, and a new port is tried.
    local attempt
    for attempt in 1 2 3 4 5; do
        mon_port=$(free_port)
        write_config "$dir" "$mon_port"
        rm -rf "$dir/mon"
        if start_monitor "$dir" "$mon_port"; then
            break
        fi
        ((attempt < 5)) || die "the monitor did not start on five ports (see $dir/log/setup.log)"
        echo "ceph-cluster.sh: the monitor did not start on port $mon_port; trying another" >&2
    done
    start_osd "$dir"
    create_user "$dir"
    local ports=()
    for i in $(seq 1 "$gateways"); do
        ports+=("$(free_port)")
        start_gateway "$dir" "$i" "${ports[-1]}"
    done
    for i in $(seq 1 "$gateways"); do
        wait_for_gateway "$dir" "${ports[$((i - 1))]}" "$i"
        ports[$((i - 1))]=$GATEWAY_PORT
    done
    write_env "$dir" "${ports[@]}"
    trap - EXIT
    echo "ceph-cluster.sh: $gateways gateway(s) ready in $((SECONDS - started)) s: $(grep ENDPOINTS= "$dir/env" | cut -d= -f2)" >&2
}

cmd_restart_gateway() {
    local dir=$1 index=$2
    [[ -f $dir/env ]] || die "no cluster in $dir"
    local endpoint port pid
    endpoint=$(grep "^CEPH_S3_ENDPOINT_$index=" "$dir/env" | cut -d= -f2-) || die "no gateway $index"
    port=${endpoint##*:}
    pid=$(cat "$dir/run/client.rgw.gw$index.pid" 2>/dev/null || true)
    if [[ -n $pid ]]; then
        kill -KILL "$pid" 2>/dev/null || true
        while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    fi
    local before=$EPOCHREALTIME
    start_gateway "$dir" "$index" "$port"
    wait_for_gateway "$dir" "$port" "$index"
    echo "ceph-cluster.sh: gateway $index answers again $(awk -v a="$before" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }') s after its restart" >&2
}

cmd_stop() {
    local dir=$1
    [[ -d $dir ]] || return 0
    dir=$(cd "$dir" && pwd)
    # The store is thrown away, so nothing needs a clean shutdown; a TERMed OSD whose monitor
    # is gone waits ~7 s for it.
    kill_daemons "$dir" KILL
    rm -rf "${dir:?}"
}

case "${1:-}" in
start)
    [[ $# -ge 2 ]] || die "usage: ceph-cluster.sh start DIR [GATEWAYS]"
    cmd_start "$2" "${3:-2}"
    ;;
restart-gateway)
    [[ $# -eq 3 ]] || die "usage: ceph-cluster.sh restart-gateway DIR N"
    cmd_restart_gateway "$2" "$3"
    ;;
stop)
    [[ $# -eq 2 ]] || die "usage: ceph-cluster.sh stop DIR"
    cmd_stop "$2"
    ;;
*)
    die "usage: ceph-cluster.sh start DIR [GATEWAYS] | restart-gateway DIR N | stop DIR"
    ;;
esac
