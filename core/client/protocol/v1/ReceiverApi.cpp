#include "ReceiverApi.h"

#include "NetworkTransport.h"
#include "ProtocolNames.h"
#include "ReplyEnd.h"
#include "TlsTrust.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QUrl>

namespace multilane {

bool ApiError::isTlsFailure() const
{
    return code.startsWith(QLatin1String("tls_"));
}

bool ApiError::isRetriable() const
{
    if (isTlsFailure())
        return false; // the same certificate would be refused again: only the user can fix it
    return httpStatus == 0 || (httpStatus >= 500 && httpStatus != 507) || httpStatus == 408 ||
           httpStatus == 429 || is(ProtocolErrorCode::ChecksumMismatch);
}

bool ApiError::isWorthResumingLater() const
{
    return isRetriable() || httpStatus == 507;
}

namespace ReceiverApi {

static QString encodedPath(const QString &path)
{
    QStringList parts;
    for (const QString &part : path.split(QLatin1Char('/')))
        parts.append(QString::fromLatin1(QUrl::toPercentEncoding(part)));
    return parts.join(QLatin1Char('/'));
}

QNetworkRequest request(const Endpoint &endpoint, const QString &route, int transferTimeoutMs,
                        const QString &query)
{
    QUrl url = endpoint.url;
    url.setPath(url.path(QUrl::FullyEncoded) + route, QUrl::TolerantMode);
    if (!query.isEmpty())
        url.setQuery(query);
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::UserAgentHeader,
                      QStringLiteral("multilane/%1").arg(QCoreApplication::applicationVersion()));
    if (!endpoint.token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + endpoint.token);
    // A transfer with no bytes moving for this long is aborted and retried elsewhere.
    request.setTransferTimeout(transferTimeoutMs);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    // Answers are small JSON: compressing them costs the receiver far more CPU than the bytes are
    // worth (Qt would otherwise ask for br and gzip).
    request.setRawHeader("Accept-Encoding", "identity");
    TlsTrust::apply(request, endpoint);
    return request;
}

QNetworkRequest discardRequest(const Endpoint &endpoint, int transferTimeoutMs)
{
    QNetworkRequest discard =
        request(endpoint, QString::fromLatin1(Protocol::DiscardRoute), transferTimeoutMs);
    discard.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/octet-stream"));
    return discard;
}

QString filesRoute(const QString &destinationPath)
{
    return QLatin1String(Protocol::FilesRoute) + encodedPath(destinationPath);
}

QString uploadRoute(const QString &uploadId)
{
    return QLatin1String(Protocol::UploadsRoute) + u'/' + uploadId;
}

QString chunkRoute(const QString &uploadId, int index)
{
    return uploadRoute(uploadId) + u'/' + QLatin1String(Protocol::ChunksSegment) + u'/' +
           QString::number(index);
}

QString completeRoute(const QString &uploadId)
{
    return uploadRoute(uploadId) + u'/' + QLatin1String(Protocol::CompleteSegment);
}

ApiReply read(const WireReply &reply)
{
    ApiReply result;
    result.httpStatus = reply.httpStatus;
    result.body = QJsonDocument::fromJson(reply.body).object();
    if (reply.isSuccess())
        return result;
    ApiError error;
    if (reply.tlsFailure) {
        error.code = reply.tlsCode;
        error.message = *reply.tlsFailure;
        result.error = error;
        return result;
    }
    // An answer cut short (the receiver died or the connection reset mid-answer), even after a
    // success status: what happened to the request is unknown, so it is no answer at all, and
    // worth sending again (every request of the protocol may be repeated).
    error.httpStatus = reply.isWhole() ? reply.httpStatus : 0;
    const QJsonObject errorObject = result.body.value(QLatin1String("error")).toObject();
    error.code = errorObject.value(QLatin1String("code")).toString();
    error.message = errorObject.value(QLatin1String("message")).toString();
    error.details = errorObject;
    if (error.message.isEmpty()) {
        error.message = error.httpStatus != 0 ? QStringLiteral("HTTP %1 %2")
                                                    .arg(reply.httpStatus)
                                                    .arg(QString::fromLatin1(reply.reasonPhrase))
                                              : reply.networkError;
    }
    result.error = error;
    return result;
}

ApiReply read(QNetworkReply *reply)
{
    const WireReply wire = NetworkTransport::readReply(*reply);
    ReplyEnd::release(reply);
    return read(wire);
}

WireRequest wireRequest(const Endpoint &endpoint, const QByteArray &method, const QString &route,
                        const QString &query)
{
    WireRequest request;
    request.method = method;
    request.url = endpoint.url;
    request.url.setPath(request.url.path(QUrl::FullyEncoded) + route, QUrl::TolerantMode);
    if (!query.isEmpty())
        request.url.setQuery(query);
    if (!endpoint.token.isEmpty())
        request.setHeader(Protocol::AuthorizationHeader,
                          QByteArray(Protocol::BearerScheme) + ' ' + endpoint.token);
    return request;
}

} // namespace ReceiverApi
} // namespace multilane
