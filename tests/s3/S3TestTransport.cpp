#include "S3TestTransport.h"

#include <QFile>
#include <QNetworkReply>
#include <QSignalSpy>

namespace multilane {

namespace {

QByteArray readRange(const QString &path, S3FileRange range)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || !file.seek(range.offset))
        qFatal("cannot read %s", qPrintable(path));
    return file.read(range.length);
}

} // namespace

S3Reply S3TestTransport::send(const S3Request &request, const QString &sourceFile)
{
    QNetworkRequest networkRequest(request.url);
    networkRequest.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                                QNetworkRequest::ManualRedirectPolicy);
    for (const HttpHeader &header : request.headers)
        networkRequest.setRawHeader(header.name, header.value);
    const QByteArray body = request.fileRange ? readRange(sourceFile, *request.fileRange) : request.body;
    QNetworkReply *reply = nullptr;
    if (request.method == "HEAD")
        reply = m_manager.head(networkRequest); // a custom "HEAD" would wait for a body
    else
        reply = m_manager.sendCustomRequest(networkRequest, request.method, body);
    QSignalSpy finished(reply, &QNetworkReply::finished);
    if (!reply->isFinished() && !finished.wait(60000))
        reply->abort();
    S3Reply answer;
    answer.httpStatus = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    for (const auto &[name, value] : reply->rawHeaderPairs())
        answer.headers.append({name, value});
    answer.body = reply->readAll();
    answer.networkError = reply->error();
    answer.networkErrorText = reply->errorString();
    answer.receivedAt = QDateTime::currentDateTimeUtc();
    reply->deleteLater();
    return answer;
}

} // namespace multilane
