#include "HttpRequestHead.h"

#include <QUrl>

namespace multilane::HttpRequestHead {

QByteArray hostField(const QUrl &url)
{
    QUrl origin = url;
    // As S3 signs it (SigV4Signer::hostHeader): the scheme's own port is not named.
    if (origin.port() == (url.scheme() == QLatin1String("https") ? 443 : 80))
        origin.setPort(-1);
    return origin.authority(QUrl::FullyEncoded | QUrl::RemoveUserInfo).toLatin1();
}

QByteArray build(const WireRequest &request, const QByteArray &userAgent)
{
    QUrl target = request.url;
    QUrl::FormattingOptions format =
        QUrl::RemoveScheme | QUrl::RemoveAuthority | QUrl::RemoveFragment | QUrl::FullyEncoded;
    if (target.path().isEmpty())
        target.setPath(QStringLiteral("/"));
    else
        format |= QUrl::NormalizePathSegments;
    QByteArray head;
    head.reserve(256 + 64 * request.headers.size());
    head += request.method + ' ' + target.toEncoded(format) + " HTTP/1.1\r\n";
    const auto add = [&head](QByteArrayView name, QByteArrayView value) {
        // A line break inside a field would end it and start another (header injection).
        for (const QByteArrayView part : {name, QByteArrayView(": "), value}) {
            for (const char c : part)
                head.append(c == '\r' || c == '\n' ? ' ' : c);
        }
        head.append("\r\n");
    };
    if (request.header("Host").isEmpty())
        add("Host", hostField(request.url));
    if (request.header("User-Agent").isEmpty())
        add("User-Agent", userAgent);
    // Answers are small: compressing them costs the server far more CPU than the bytes are worth.
    if (request.header("Accept-Encoding").isEmpty())
        add("Accept-Encoding", "identity");
    for (const WireHeader &field : request.headers) {
        if (field.name.compare("Content-Length", Qt::CaseInsensitive) != 0)
            add(field.name, field.value);
    }
    if (request.file || !request.body.isEmpty() || request.method == "PUT" || request.method == "POST")
        add("Content-Length", QByteArray::number(request.bodyLength()));
    head += "\r\n";
    return head;
}

} // namespace multilane::HttpRequestHead
