#include "SigV4Signer.h"

#include "S3UriEncoding.h"
#include "Sha256.h"

#include <QMap>
#include <algorithm>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <utility>

namespace multilane {

namespace {

// SigV4 wants values trimmed and runs of spaces folded into one.
QByteArray canonicalHeaderValue(const QByteArray &value)
{
    return value.simplified();
}

// The headers to sign, keyed by lowercase name (QMap sorts them as SigV4 wants); repeated names
// are joined with ',' as the specification says.
QMap<QByteArray, QByteArray> headersToSign(const HttpHeaders &headers)
{
    QMap<QByteArray, QByteArray> byName;
    for (const HttpHeader &header : headers) {
        const QByteArray name = header.name.toLower().trimmed();
        const QByteArray value = canonicalHeaderValue(header.value);
        auto found = byName.find(name);
        if (found == byName.end())
            byName.insert(name, value);
        else
            found.value() += ',' + value;
    }
    return byName;
}

} // namespace

SigV4Signer::SigV4Signer(S3Credentials credentials, QString region, QString service)
    : m_credentials(std::move(credentials))
    , m_region(std::move(region))
    , m_service(std::move(service))
{}

QByteArray SigV4Signer::canonicalUri(const QUrl &url)
{
    const QByteArray path = url.path(QUrl::FullyEncoded).toLatin1();
    if (path.isEmpty())
        return QByteArrayLiteral("/");
    // Decoding then encoding makes any spelling of the same path (Qt leaves some characters
    // bare) come out in SigV4's single form.
    QList<QByteArray> segments = path.split('/');
    for (QByteArray &segment : segments)
        segment = S3UriEncoding::encode(QByteArray::fromPercentEncoding(segment), false);
    return segments.join('/');
}

QByteArray SigV4Signer::canonicalQuery(const QUrl &url)
{
    const QByteArray query = url.query(QUrl::FullyEncoded).toLatin1();
    if (query.isEmpty())
        return {};
    QList<std::pair<QByteArray, QByteArray>> pairs;
    for (const QByteArray &item : query.split('&')) {
        if (item.isEmpty())
            continue;
        const qsizetype equals = item.indexOf('=');
        const QByteArray name = equals < 0 ? item : item.left(equals);
        const QByteArray value = equals < 0 ? QByteArray() : item.mid(equals + 1);
        pairs.append({S3UriEncoding::encode(QByteArray::fromPercentEncoding(name), false),
                      S3UriEncoding::encode(QByteArray::fromPercentEncoding(value), false)});
    }
    std::sort(pairs.begin(), pairs.end());
    QByteArrayList joined;
    for (const auto &[name, value] : pairs)
        joined.append(name + '=' + value);
    return joined.join('&');
}

QByteArray SigV4Signer::hostHeader(const QUrl &url)
{
    QByteArray host = url.host(QUrl::FullyEncoded).toLatin1().toLower();
    if (host.contains(':'))
        host = '[' + host + ']';
    const int port = url.port();
    const bool defaultPort = port == -1 || (url.scheme() == QLatin1String("http") && port == 80) ||
                             (url.scheme() == QLatin1String("https") && port == 443);
    if (!defaultPort)
        host += ':' + QByteArray::number(port);
    return host;
}

QByteArray SigV4Signer::hmacSha256(const QByteArray &key, const QByteArray &data)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    HMAC(EVP_sha256(), key.constData(), int(key.size()),
         reinterpret_cast<const unsigned char *>(data.constData()), std::size_t(data.size()), digest,
         &length);
    return QByteArray(reinterpret_cast<const char *>(digest), int(length));
}

QByteArray SigV4Signer::signingKey(const QString &secretAccessKey, const QByteArray &date,
                                   const QString &region, const QString &service)
{
    const QByteArray dateKey = hmacSha256("AWS4" + secretAccessKey.toUtf8(), date);
    const QByteArray regionKey = hmacSha256(dateKey, region.toUtf8());
    const QByteArray serviceKey = hmacSha256(regionKey, service.toUtf8());
    return hmacSha256(serviceKey, QByteArrayLiteral("aws4_request"));
}

QByteArray SigV4Signer::payloadHash(const QByteArray &body)
{
    Sha256 hash;
    hash.addData(body);
    return hash.hexDigest();
}

QByteArray SigV4Signer::amzDate(const QDateTime &time)
{
    return time.toUTC().toString(QStringLiteral("yyyyMMdd'T'HHmmss'Z'")).toLatin1();
}

SigV4Signature SigV4Signer::sign(const QByteArray &method, const QUrl &url, const HttpHeaders &headers,
                                 const QByteArray &payloadHash, const QDateTime &time) const
{
    SigV4Signature result;
    const QByteArray timestamp = amzDate(time);
    const QByteArray date = timestamp.left(8);

    result.headersToAdd.append({QByteArrayLiteral("x-amz-date"), timestamp});
    result.headersToAdd.append({QByteArrayLiteral("x-amz-content-sha256"), payloadHash});
    if (!m_credentials.sessionToken.isEmpty())
        result.headersToAdd.append(
            {QByteArrayLiteral("x-amz-security-token"), m_credentials.sessionToken.toUtf8()});

    HttpHeaders signedSet;
    for (const HttpHeader &header : headers) {
        // Ours replace any the caller gave, so a header is never signed with two values.
        const bool ours = header.name.compare("host", Qt::CaseInsensitive) == 0 ||
                          !headerValue(result.headersToAdd, header.name).isNull();
        if (!ours)
            signedSet.append(header);
    }
    signedSet.append({QByteArrayLiteral("host"), hostHeader(url)});
    signedSet.append(result.headersToAdd);
    const QMap<QByteArray, QByteArray> byName = headersToSign(signedSet);

    QByteArray canonicalHeaders;
    for (auto it = byName.cbegin(); it != byName.cend(); ++it)
        canonicalHeaders += it.key() + ':' + it.value() + '\n';
    result.signedHeaders = byName.keys().join(';');

    result.canonicalRequest = method + '\n' + canonicalUri(url) + '\n' + canonicalQuery(url) + '\n' +
                              canonicalHeaders + '\n' + result.signedHeaders + '\n' + payloadHash;
    const QByteArray scope = date + '/' + m_region.toUtf8() + '/' + m_service.toUtf8() + "/aws4_request";
    result.stringToSign = "AWS4-HMAC-SHA256\n" + timestamp + '\n' + scope + '\n' +
                          SigV4Signer::payloadHash(result.canonicalRequest);
    result.signature =
        hmacSha256(signingKey(m_credentials.secretAccessKey, date, m_region, m_service), result.stringToSign)
            .toHex();
    result.authorization = "AWS4-HMAC-SHA256 Credential=" + m_credentials.accessKeyId.toUtf8() + '/' + scope +
                           ",SignedHeaders=" + result.signedHeaders + ",Signature=" + result.signature;
    result.headersToAdd.append({QByteArrayLiteral("Authorization"), result.authorization});
    return result;
}

} // namespace multilane
