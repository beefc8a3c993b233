#include "S3Target.h"

#include "S3UriEncoding.h"
#include "UploadPath.h"

#include <QHostAddress>
#include <algorithm>

namespace multilane {

namespace {

std::optional<QString> bucketProblem(const QString &bucket)
{
    if (bucket.isEmpty())
        return QStringLiteral("names no bucket (write s3://BUCKET/folder/)");
    if (bucket.size() < 3 || bucket.size() > 255)
        return QStringLiteral("has a bucket name of %1 characters (S3 allows 3 to 63)").arg(bucket.size());
    for (const QChar c : bucket) {
        const bool allowed = (c >= QLatin1Char('a') && c <= QLatin1Char('z')) ||
                             (c >= QLatin1Char('A') && c <= QLatin1Char('Z')) ||
                             (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || c == QLatin1Char('-') ||
                             c == QLatin1Char('.') || c == QLatin1Char('_');
        if (!allowed)
            return QStringLiteral("has a bucket name with '%1' (S3 allows a-z, 0-9, '-' and '.')").arg(c);
    }
    return std::nullopt;
}

std::optional<QString> endpointProblem(const QUrl &endpoint)
{
    const QString shown = endpoint.toDisplayString();
    if (!endpoint.isValid() || endpoint.host().isEmpty())
        return QStringLiteral("the S3 endpoint '%1' is not a URL like https://gw1:7480").arg(shown);
    if (endpoint.scheme() != QLatin1String("http") && endpoint.scheme() != QLatin1String("https"))
        return QStringLiteral("the S3 endpoint '%1' must start with http:// or https://").arg(shown);
    if (!endpoint.userInfo().isEmpty())
        return QStringLiteral("the S3 endpoint '%1' holds a user name; keys belong in AWS_ACCESS_KEY_ID or a "
                              "profile")
            .arg(endpoint.host());
    if ((!endpoint.path().isEmpty() && endpoint.path() != QLatin1String("/")) || endpoint.hasQuery() ||
        endpoint.hasFragment())
        return QStringLiteral("the S3 endpoint '%1' must be a gateway's address only (no path or query)")
            .arg(shown);
    return std::nullopt;
}

bool isAwsHost(const QString &host)
{
    return host == QLatin1String("amazonaws.com") || host.endsWith(QLatin1String(".amazonaws.com"));
}

} // namespace

S3Result<S3Target> S3Target::parse(const QString &s3Url, const QList<QUrl> &endpoints, const QString &region,
                                   S3Addressing addressing)
{
    static const QString scheme = QStringLiteral("s3://");
    if (!s3Url.startsWith(scheme, Qt::CaseInsensitive))
        return S3Failure::invalidInput(
            QStringLiteral("'%1' is not an S3 target: write s3://bucket/folder/").arg(s3Url));
    // Not through QUrl: it would lowercase the bucket as if it were a host name.
    const QString rest = s3Url.mid(scheme.size());
    const qsizetype slash = rest.indexOf(QLatin1Char('/'));
    S3Target target;
    target.m_bucket = slash < 0 ? rest : rest.left(slash);
    if (const auto problem = bucketProblem(target.m_bucket))
        return S3Failure::invalidInput(QStringLiteral("'%1' %2").arg(s3Url, *problem));
    target.m_prefix = UploadPath::join(QString(), slash < 0 ? QString() : rest.mid(slash + 1));
    if (!target.m_prefix.isEmpty())
        target.m_prefix += QLatin1Char('/');
    target.m_region = region.isEmpty() ? QString::fromLatin1(DefaultRegion) : region;
    target.m_addressing = addressing;
    target.m_endpoints = endpoints.isEmpty() ? QList<QUrl>{awsEndpoint(target.m_region)} : endpoints;
    if (addressing == S3Addressing::VirtualHost && !isDnsCompatibleBucket(target.m_bucket))
        return S3Failure::invalidInput(QStringLiteral("bucket '%1' cannot be addressed as a host name "
                                                      "(virtual-host style): use path-style addressing")
                                           .arg(target.m_bucket));
    for (const QUrl &endpoint : std::as_const(target.m_endpoints)) {
        if (const auto problem = endpointProblem(endpoint))
            return S3Failure::invalidInput(*problem);
    }
    return target;
}

QString S3Target::displayName() const
{
    return QStringLiteral("s3://") + m_bucket + QLatin1Char('/') + m_prefix;
}

S3Result<QString> S3Target::objectKey(const QString &destinationPath) const
{
    const QString path = UploadPath::join(QString(), destinationPath);
    if (path.isEmpty())
        return S3Failure::invalidInput(QStringLiteral("an empty destination path has no object key"));
    const QString key = m_prefix + path;
    if (key.toUtf8().size() > MaxKeyBytes)
        return S3Failure::invalidInput(
            QStringLiteral("the object key '%1' is longer than S3's %2 bytes: pick a "
                           "shorter folder or file name")
                .arg(key)
                .arg(MaxKeyBytes));
    return key;
}

bool S3Target::isDnsCompatibleBucket(const QString &bucket)
{
    if (bucket.size() < 3 || bucket.size() > 63 || bucket.startsWith(QLatin1Char('-')) ||
        bucket.startsWith(QLatin1Char('.')) || bucket.endsWith(QLatin1Char('-')) ||
        bucket.endsWith(QLatin1Char('.')) || bucket.contains(QLatin1String("..")))
        return false;
    for (const QChar c : bucket) {
        const bool allowed = (c >= QLatin1Char('a') && c <= QLatin1Char('z')) ||
                             (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || c == QLatin1Char('-') ||
                             c == QLatin1Char('.');
        if (!allowed)
            return false;
    }
    return true;
}

bool S3Target::isAws() const
{
    return std::all_of(m_endpoints.cbegin(), m_endpoints.cend(),
                       [](const QUrl &endpoint) { return isAwsHost(endpoint.host()); });
}

bool S3Target::usesVirtualHost(const QUrl &endpoint) const
{
    switch (m_addressing) {
    case S3Addressing::Path:
        return false;
    case S3Addressing::VirtualHost:
        return true;
    case S3Addressing::Auto:
        break;
    }
    // A dotted bucket under https would not match the *.s3.amazonaws.com certificate.
    const bool dotsBreakTls =
        endpoint.scheme() == QLatin1String("https") && m_bucket.contains(QLatin1Char('.'));
    return isAwsHost(endpoint.host()) && isDnsCompatibleBucket(m_bucket) && !dotsBreakTls;
}

QUrl S3Target::bucketUrl(const QUrl &endpoint) const
{
    return objectUrl(endpoint, QString());
}

QUrl S3Target::objectUrl(const QUrl &endpoint, const QString &key) const
{
    QUrl url;
    url.setScheme(endpoint.scheme());
    url.setPort(endpoint.port());
    QByteArray path = "/";
    if (usesVirtualHost(endpoint)) {
        url.setHost(m_bucket + QLatin1Char('.') + endpoint.host());
    } else {
        url.setHost(endpoint.host());
        path += S3UriEncoding::encode(m_bucket.toUtf8(), false) + '/';
    }
    path += S3UriEncoding::encodeKey(key);
    url.setPath(QString::fromLatin1(path), QUrl::StrictMode);
    return url;
}

QString S3Target::endpointName(const QUrl &endpoint)
{
    const QString host = QHostAddress(endpoint.host()).protocol() == QAbstractSocket::IPv6Protocol
                             ? QLatin1Char('[') + endpoint.host() + QLatin1Char(']')
                             : endpoint.host();
    return endpoint.port() == -1 ? host : host + QLatin1Char(':') + QString::number(endpoint.port());
}

QUrl S3Target::awsEndpoint(const QString &region)
{
    return QUrl(QStringLiteral("https://s3.%1.amazonaws.com").arg(region));
}

} // namespace multilane
