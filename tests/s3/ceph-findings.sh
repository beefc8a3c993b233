#!/usr/bin/env bash
# Measures what docs/s3.md reports about Ceph RGW: the answer to each S3 error case, what
# attaching a SHA-256 after the upload costs (CopyObject onto itself, or hashing first), and
# how a killed gateway comes back.
#   tests/s3/ceph-findings.sh BUILD_DIR [SIZE_MIB...]     (default sizes: 100 1024)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: ceph-findings.sh BUILD_DIR [SIZE_MIB...]}
shift
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(100 1024)
work=$(mktemp -d)
trap '"$here/ceph-cluster.sh" stop "$work/cluster"; rm -rf "$work"' EXIT

# A 1 GiB object and its copy take ~2 GiB in the store, ~4 GiB of memstore RAM.
CEPH_MEMSTORE_BYTES=$((10 << 30)) "$here/ceph-cluster.sh" start "$work/cluster" 2
# shellcheck disable=SC1091
source "$work/cluster/env"
radosgw-admin -c "$CEPH_CONF" user create --uid=stranger --display-name=Stranger \
    --access-key=STRANGERKEY000000001 --secret-key=stranger-secret >/dev/null
export STRANGER_ACCESS_KEY=STRANGERKEY000000001 STRANGER_SECRET_KEY=stranger-secret
aws() {
    env -u AWS_CA_BUNDLE -u AWS_PROFILE AWS_ACCESS_KEY_ID="$CEPH_S3_ACCESS_KEY" \
        AWS_SECRET_ACCESS_KEY="$CEPH_S3_SECRET_KEY" AWS_DEFAULT_REGION="$CEPH_S3_REGION" \
        AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_PAGER= \
        /usr/bin/aws --endpoint-url "$CEPH_S3_ENDPOINT_1" "$@"
}
aws s3api create-bucket --bucket findings >/dev/null

"$build/tests/s3/s3_ceph_findings" "$work/cluster/env" "$work" "${sizes[@]}" | tee "$work/out" | grep -v '^COPIED_KEY'

echo
echo "Bytes after CopyObject (read back with aws s3api get-object):"
grep '^COPIED_KEY' "$work/out" | while read -r _ key sha; do
    aws s3api get-object --bucket findings --key "$key" "$work/back" >/dev/null
    got=$(sha256sum "$work/back" | cut -d' ' -f1)
    echo "  $key: $([[ $got == "$sha" ]] && echo "identical" || echo "DIFFERENT ($got)")"
    rm -f "$work/back"
done

echo
echo "A killed gateway (SIGKILL):"
pid=$(cat "$work/cluster/run/client.rgw.gw2.pid")
kill -KILL "$pid"
while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
status() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 5 --aws-sigv4 "aws:amz:$CEPH_S3_REGION:s3" \
        --user "$CEPH_S3_ACCESS_KEY:$CEPH_S3_SECRET_KEY" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$1/" || true
}
echo "  while it is down: gateway 1 answers $(status "$CEPH_S3_ENDPOINT_1"), gateway 2 answers $(status "$CEPH_S3_ENDPOINT_2") (000: connection refused)"
for _ in 1 2 3; do
    "$here/ceph-cluster.sh" restart-gateway "$work/cluster" 2 2>&1 | sed 's/^/  /'
done
