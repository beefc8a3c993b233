#pragma once

#include "S3Result.h"

#include <QList>
#include <QString>
#include <QUrl>

namespace multilane {

// How a bucket is named in a URL: https://gw/bucket/key (path) or https://bucket.gw/key
// (virtual host). Auto picks virtual host for *.amazonaws.com and path style everywhere else
// (an IP, a host with a port, a Ceph or MinIO gateway: they need DNS set up for the other).
enum class S3Addressing { Auto, Path, VirtualHost };

// Where an upload goes: s3://bucket/prefix/ on one or more gateways of one store. Turns a
// destination path ("photos/a.jpg") into the object key and each gateway's URL for it.
class S3Target {
public:
    static constexpr int MaxKeyBytes = 1024;
    static constexpr char DefaultRegion[] = "us-east-1";

    // `s3Url` is s3://bucket or s3://bucket/prefix (the prefix is a folder: a '/' is added).
    // No endpoints means AWS's for the region. An empty region means us-east-1.
    static S3Result<S3Target> parse(const QString &s3Url, const QList<QUrl> &endpoints, const QString &region,
                                    S3Addressing addressing = S3Addressing::Auto);

    const QString &bucket() const { return m_bucket; }
    const QString &prefix() const { return m_prefix; } // "" or "folder/sub/"
    const QString &region() const { return m_region; }
    const QList<QUrl> &endpoints() const { return m_endpoints; }
    QString displayName() const; // s3://bucket/prefix/

    // prefix + the '/'-separated destination path; refused when longer than S3 allows.
    S3Result<QString> objectKey(const QString &destinationPath) const;
    bool usesVirtualHost(const QUrl &endpoint) const;
    // Every gateway is AWS's own (*.amazonaws.com), not a Ceph, MinIO or other S3 server.
    bool isAws() const;
    QUrl bucketUrl(const QUrl &endpoint) const;
    // The key's URL: each segment SigV4-encoded, '/' kept, exactly as it is sent and signed.
    QUrl objectUrl(const QUrl &endpoint, const QString &key) const;

    static QString endpointName(const QUrl &endpoint); // "gw1:7480", as people read it
    static QUrl awsEndpoint(const QString &region);
    // Lowercase letters, digits, '-' and '.', 3-63 long: a name that works as a DNS label.
    static bool isDnsCompatibleBucket(const QString &bucket);

private:
    QString m_bucket;
    QString m_prefix;
    QString m_region;
    QList<QUrl> m_endpoints;
    S3Addressing m_addressing = S3Addressing::Auto;
};

} // namespace multilane
