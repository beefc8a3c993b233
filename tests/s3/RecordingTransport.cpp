#include "RecordingTransport.h"

#include "WireTransports.h"

#include <QUrlQuery>

namespace multilane {

RecordingTransport::RecordingTransport(const EndpointPool &pool, int transferTimeoutMs)
    : m_real(WireTransports::make(pool, transferTimeoutMs))
{}

QString RecordingTransport::operationOf(const WireRequest &request)
{
    const QUrlQuery query(request.url);
    const bool uploads = query.hasQueryItem(QStringLiteral("uploads"));
    const bool uploadId = query.hasQueryItem(QStringLiteral("uploadId"));
    if (request.method == "HEAD")
        return QStringLiteral("HeadObject");
    if (request.method == "GET")
        return uploads    ? QStringLiteral("ListMultipartUploads")
               : uploadId ? QStringLiteral("ListParts")
                          : QStringLiteral("GetObject");
    if (request.method == "POST")
        return uploads ? QStringLiteral("CreateMultipartUpload") : QStringLiteral("CompleteMultipartUpload");
    if (request.method == "DELETE")
        return QStringLiteral("AbortMultipartUpload");
    if (query.hasQueryItem(QStringLiteral("partNumber")))
        return QStringLiteral("UploadPart");
    return request.header("x-amz-copy-source").isEmpty() ? QStringLiteral("PutObject")
                                                         : QStringLiteral("CopyObject");
}

WireCall *RecordingTransport::send(const EndpointLease &lease, const WireRequest &request)
{
    Sent sent;
    sent.endpoint = lease.endpoint;
    sent.operation = operationOf(request);
    // Path style: /bucket/key.
    const QString path = request.url.path(QUrl::FullyDecoded);
    const qsizetype keyStart = path.indexOf(QLatin1Char('/'), 1);
    sent.key = keyStart < 0 ? QString() : path.mid(keyStart + 1);
    sent.partNumber = QUrlQuery(request.url).queryItemValue(QStringLiteral("partNumber")).toInt();
    sent.withSha256 = !request.header("x-amz-meta-sha256").isEmpty();
    if (beforeSend)
        beforeSend(sent);
    const qsizetype index = m_sent.size();
    m_sent.append(sent);
    WireCall *call = m_real->send(lease, request);
    // Connected before the engine connects: this runs first, while the call is still alive.
    connect(call, &WireCall::finished, this, [this, call, index] {
        m_sent[index].httpStatus = call->reply().isWhole() ? call->reply().httpStatus : 0;
        Q_EMIT answered(m_sent.at(index));
    });
    return call;
}

QList<RecordingTransport::Sent> RecordingTransport::sent(const QString &operation) const
{
    QList<Sent> matching;
    for (const Sent &sent : m_sent) {
        if (sent.operation == operation)
            matching.append(sent);
    }
    return matching;
}

QList<int> RecordingTransport::partsSent(const QString &key) const
{
    QList<int> parts;
    for (const Sent &sent : sent(QStringLiteral("UploadPart"))) {
        if (sent.key == key)
            parts.append(sent.partNumber);
    }
    return parts;
}

QSet<int> RecordingTransport::endpointsOfParts(const QString &key) const
{
    QSet<int> endpoints;
    for (const Sent &sent : sent(QStringLiteral("UploadPart"))) {
        if (sent.key == key && sent.httpStatus == 200)
            endpoints.insert(sent.endpoint);
    }
    return endpoints;
}

} // namespace multilane
