#include "RgwAccessLog.h"

#include <QFile>
#include <QRegularExpression>

namespace multilane {

RgwAccessLog::RgwAccessLog(QStringList logFiles)
    : m_files(std::move(logFiles))
{}

QList<RgwAccessLog::Request> RgwAccessLog::read() const
{
    // 2026-12-01T18:38:29.762+0000 7f24.. 1 beast: 0x7f..: 127.0.0.1 - user [01/Dec/..] "PUT
    // /bucket/key?uploadId=..&partNumber=2 HTTP/1.1" 200 3611392 - "agent" - latency=0.5s
    static const QRegularExpression line(
        QStringLiteral("^(\\S+)([+-]\\d\\d)(\\d\\d) \\S+ +\\d+ beast: \\S+ \\S+ - \\S+ \\[[^\\]]*\\] "
                       "\"(\\S+) ([^ ?]*)[?]?(\\S*) "
                       "HTTP/[0-9.]+\" (\\d+) "));
    QList<Request> requests;
    for (int gateway = 0; gateway < m_files.size(); ++gateway) {
        QFile file(m_files.at(gateway));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray &text : file.readAll().split('\n')) {
            if (!text.contains(" beast: "))
                continue;
            const QRegularExpressionMatch match = line.match(QString::fromUtf8(text));
            if (!match.hasMatch())
                continue;
            Request request;
            request.gateway = gateway;
            // "2026-12-01T18:38:29.762+0000": local time and its offset.
            const QDateTime local = QDateTime::fromString(match.captured(1), Qt::ISODateWithMs);
            const int hours = match.captured(2).toInt();
            const int offset = hours * 3600 + (hours < 0 ? -1 : 1) * match.captured(3).toInt() * 60;
            request.finishedAt = QDateTime(local.date(), local.time(), Qt::OffsetFromUTC, offset);
            request.method = match.captured(4);
            request.path = match.captured(5);
            request.query = QUrlQuery(match.captured(6));
            request.status = match.captured(7).toInt();
            requests.append(request);
        }
    }
    return requests;
}

QList<RgwAccessLog::Request> RgwAccessLog::storedParts(const QString &encodedPath) const
{
    QList<Request> parts;
    for (const Request &request : read()) {
        if (request.path == encodedPath && request.isUploadPart() && request.status == 200)
            parts.append(request);
    }
    return parts;
}

QList<RgwAccessLog::Request> RgwAccessLog::creates(const QString &encodedPath) const
{
    QList<Request> found;
    for (const Request &request : read()) {
        if (request.path == encodedPath && request.isCreate())
            found.append(request);
    }
    return found;
}

} // namespace multilane
