#!/usr/bin/env bash
# S3 beside the peers (issue #13): `aws s3 cp` (Debian awscli) and `rclone copy` (Debian rclone,
# its defaults) against the same Ceph gateways through the same emulated link as
# `multilane upload --s3`, self-tuned over both gateways. Two links: issue #13's (2 MB/s per
# connection, a 30 MB/s uplink, RTT 40 ms) and one drawn from SEED (a connection at most a tenth
# of the uplink). Two workloads: one big file and many small ones. Then each client's peak RSS
# sending one large file straight to the gateways (no link: memory, not speed).
# Prints Markdown tables (docs/performance.md, "S3: beside aws-cli and rclone", has the method).
#
# Usage: bench/s3-peers.sh [BUILD_DIR] [OUT_DIR]        (default: build, bench-out)
#   SEED=N            the second link's seed (default: a new one; printed)
#   LINKS="a seeded"  WORKLOADS="big small"  CLIENTS="aws rclone multilane"
#   BIG_MB=150  SMALL_COUNT=300  SMALL_KIB=200
#   LARGE_GIB=4       the memory rows' file (0 skips them); memstore holds ~2x the stored bytes in
#                     RAM, so each client gets a fresh cluster sized for it
set -euo pipefail
cd "$(dirname "$0")/.."
MULTILANE_BOOTSTRAP_EXTRA="time bc python3 rclone" scripts/bootstrap.sh
build="${1:-build}"
out="${2:-bench-out}"
multilane="$build/app/multilane"
linksim="$build/bench/linksim/linksim"
[ -x "$multilane" ] && [ -x "$linksim" ] || { echo "build first: BUILD_DIR=$build scripts/build.sh" >&2; exit 2; }
LINKS="${LINKS:-a seeded}"
WORKLOADS="${WORKLOADS:-big small}"
CLIENTS="${CLIENTS:-aws rclone multilane}"
BIG_MB="${BIG_MB:-150}"
SMALL_COUNT="${SMALL_COUNT:-300}"
SMALL_KIB="${SMALL_KIB:-200}"
LARGE_GIB="${LARGE_GIB:-4}"
SEED="${SEED:-$RANDOM$RANDOM}"
cluster_script=tests/s3/ceph-cluster.sh

mkdir -p "$out"
work=$(mktemp -d /tmp/multilane-s3-peers.XXXXXX)
linksim_pid=""
cleanup() {
    stop_link
    "$cluster_script" stop "$work/ceph" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# ---- links -----------------------------------------------------------------------------------
declare -A link_args link_uplink link_name
link_args[a]="--per-connection-rate 2000000 --total-rate 30000000 --rtt 40"
link_uplink[a]=30000000
link_name[a]="(a) issue #13's: 2 MB/s per connection, 30 MB/s uplink, RTT 40 ms"
# The seeded link: an uplink of 10-25 connections' worth, each connection 1-4 MB/s, RTT 10-200 ms.
read -r per uplink rtt < <(python3 - "$SEED" <<'EOF'
import math, random, sys
rng = random.Random(int(sys.argv[1]))
log_uniform = lambda low, high: math.exp(rng.uniform(math.log(low), math.log(high)))
per = log_uniform(1e6, 4e6)
print(round(per), round(per * rng.uniform(10, 25)), round(log_uniform(10, 200)))
EOF
)
link_args[seeded]="--per-connection-rate $per --total-rate $uplink --rtt $rtt"
link_uplink[seeded]=$uplink
link_name[seeded]=$(printf '(seeded, SEED=%s) %.2f MB/s per connection, %.1f MB/s uplink, RTT %d ms' \
    "$SEED" "$(bc -l <<<"$per / 1000000")" "$(bc -l <<<"$uplink / 1000000")" "$rtt")
echo "SEED=$SEED: ${link_name[seeded]}" >&2

start_link() { # link -> link_urls[] in front of every gateway, one shared uplink
    local listen=()
    for gateway in "${gateways[@]}"; do listen+=(--listen "127.0.0.1:0=${gateway#http://}"); done
    # shellcheck disable=SC2086
    "$linksim" "${listen[@]}" ${link_args[$1]} --quiet >"$work/linksim.log" 2>&1 &
    linksim_pid=$!
    for _ in $(seq 1 100); do
        [ "$(grep -c '^linksim' "$work/linksim.log")" -ge ${#gateways[@]} ] && break
        sleep 0.1
    done
    mapfile -t link_urls < <(sed -n 's/^linksim \([^ ]*\) .*/http:\/\/\1/p' "$work/linksim.log")
}
stop_link() {
    [ -n "$linksim_pid" ] && kill "$linksim_pid" 2>/dev/null && wait "$linksim_pid" 2>/dev/null || true
    linksim_pid=""
}

# ---- the cluster and the clients -------------------------------------------------------------
start_cluster() { # memstore bytes
    "$cluster_script" stop "$work/ceph" 2>/dev/null || true
    CEPH_MEMSTORE_BYTES=$1 "$cluster_script" start "$work/ceph" 2 >&2
    # shellcheck disable=SC1091
    source "$work/ceph/env"
    IFS=, read -r -a gateways <<<"$CEPH_S3_ENDPOINTS"
    export AWS_ACCESS_KEY_ID=$CEPH_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$CEPH_S3_SECRET_KEY
    export AWS_DEFAULT_REGION=$CEPH_S3_REGION
    unset AWS_PROFILE AWS_ENDPOINT_URL
    # A fresh cluster's first object creates the gateways' data pool and takes a second or more:
    # one object written here, so no client's row pays for the store's start.
    /usr/bin/aws --endpoint-url "${gateways[0]}" s3 mb s3://warm-up >/dev/null
    head -c 1000 /dev/urandom | /usr/bin/aws --endpoint-url "${gateways[0]}" s3 cp --only-show-errors - s3://warm-up/first
}
aws() { /usr/bin/aws "$@"; }
bucket_n=0
new_bucket() { # -> $bucket, a bucket of its own for the next row
    bucket_n=$((bucket_n + 1))
    bucket="peers-$bucket_n"
    aws --endpoint-url "${gateways[0]}" s3 mb "s3://$bucket" >/dev/null
}
stored_bytes() { # bucket -> total bytes stored under it
    aws --endpoint-url "${gateways[0]}" s3 ls --recursive --summarize "s3://$1/" | awk '/Total Size/ {print $3}'
}

run_client() { # client source bucket first-gateway all-gateways... -> /usr/bin/time into $work/time
    local client=$1 source=$2 bucket=$3
    shift 3
    local recursive=()
    [ -d "$source" ] && recursive=(--recursive)
    case $client in
    aws)
        # One endpoint per invocation: aws-cli has no way to spread over several gateways.
        /usr/bin/time -f "%e %M" -o "$work/time" /usr/bin/aws --endpoint-url "$1" \
            s3 cp --only-show-errors "${recursive[@]}" "$source" "s3://$bucket/" ;;
    rclone)
        # rclone 1.60 refuses AWS_CA_BUNDLE in this environment (/work/shared/PLATFORM.md).
        /usr/bin/time -f "%e %M" -o "$work/time" env -u AWS_CA_BUNDLE RCLONE_CONFIG_CEPH_TYPE=s3 \
            RCLONE_CONFIG_CEPH_PROVIDER=Ceph RCLONE_CONFIG_CEPH_ENDPOINT="$1" \
            RCLONE_CONFIG_CEPH_ACCESS_KEY_ID="$AWS_ACCESS_KEY_ID" \
            RCLONE_CONFIG_CEPH_SECRET_ACCESS_KEY="$AWS_SECRET_ACCESS_KEY" \
            rclone copy "$source" "ceph:$bucket/" ;;
    multilane)
        local endpoints=()
        for url in "$@"; do endpoints+=(--endpoint "$url"); done
        rm -rf "$work/state"
        /usr/bin/time -f "%e %M" -o "$work/time" "$multilane" upload --quiet --state-dir "$work/state" \
            --s3 "s3://$bucket/" "${endpoints[@]}" "$source" ;;
    esac
}

# ---- workloads -------------------------------------------------------------------------------
mkdir -p "$work/big" "$work/small"
head -c $((BIG_MB * 1000000)) /dev/urandom >"$work/big/big.bin"
for i in $(seq 1 "$SMALL_COUNT"); do head -c $((SMALL_KIB * 1024)) /dev/urandom >"$work/small/f$i.bin"; done
source_of() { [ "$1" = big ] && echo "$work/big/big.bin" || echo "$work/small"; }
bytes_of() { find "$(source_of "$1")" -type f -printf '%s\n' | awk '{ total += $1 } END { print total }'; }
describe_workload() {
    [ "$1" = big ] && echo "one $BIG_MB MB file" || echo "$SMALL_COUNT × $SMALL_KIB KiB"
}

# ---- rows over the links ---------------------------------------------------------------------
table="$out/s3-peers.md"
{
    echo "| link | workload | client | seconds | MB/s | of uplink | peak RSS MB |"
    echo "|---|---|---|---:|---:|---:|---:|"
} >"$table"
stored_total=$(( ($(bytes_of big) + $(bytes_of small)) * 3 * 2 ))
start_cluster $((stored_total * 3 + (1 << 30)))
for link in $LINKS; do
    start_link "$link"
    for workload in $WORKLOADS; do
        size=$(bytes_of "$workload")
        for client in $CLIENTS; do
            new_bucket
            if ! run_client "$client" "$(source_of "$workload")" "$bucket" "${link_urls[@]}"; then
                echo "| $link | $(describe_workload "$workload") | $client | failed | | | |" | tee -a "$table"
                continue
            fi
            read -r secs rss <"$work/time"
            stored=$(stored_bytes "$bucket")
            verdict=""
            [ "$stored" = "$size" ] || verdict=" (stored $stored of $size bytes)"
            printf '| %s | %s | %s | %.1f | %.1f | %.2f | %d |%s\n' "$link" "$(describe_workload "$workload")" \
                "$client" "$secs" "$(bc -l <<<"$size / $secs / 1000000")" \
                "$(bc -l <<<"$size / $secs / ${link_uplink[$link]}")" "$((rss / 1024))" "$verdict" | tee -a "$table"
        done
    done
    stop_link
done
{
    echo
    for link in $LINKS; do echo "- ${link_name[$link]}"; done
    echo "- aws and rclone send to gateway 1 (they take one endpoint); multilane to both, one uplink shared"
} >>"$table"

# ---- peak memory with one large file ---------------------------------------------------------
if [ "$LARGE_GIB" -gt 0 ]; then
    large="$work/large.bin"
    large_bytes=$((LARGE_GIB << 30))
    head -c "$large_bytes" /dev/urandom >"$large"
    {
        echo
        echo "| client | $LARGE_GIB GiB file, straight to the gateways | seconds | MB/s | peak RSS MB |"
        echo "|---|---|---:|---:|---:|"
    } >>"$table"
    for client in $CLIENTS; do
        # A fresh store per client: deleted objects stay in memstore until RGW's garbage collection.
        start_cluster $((large_bytes * 5 / 2 + (1 << 30)))
        new_bucket
        if ! run_client "$client" "$large" "$bucket" "${gateways[@]}"; then
            echo "| $client | failed | | | |" | tee -a "$table"
            continue
        fi
        read -r secs rss <"$work/time"
        stored=$(stored_bytes "$bucket")
        printf '| %s | %s | %.1f | %.1f | %d |\n' "$client" \
            "$([ "$stored" = "$large_bytes" ] && echo "stored whole" || echo "stored $stored bytes")" \
            "$secs" "$(bc -l <<<"$large_bytes / $secs / 1000000")" "$((rss / 1024))" | tee -a "$table"
    done
fi
echo
echo "table: $table"
