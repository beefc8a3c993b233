#pragma once

#include <QDateTime>
#include <QList>
#include <QString>
#include <QUrlQuery>

namespace multilane {

// The requests Ceph's gateways logged (radosgw's beast frontend writes one access line per
// request at the default debug level), read from the cluster's log files: what reached which
// gateway, whoever sent it, with no proxy in the way.
class RgwAccessLog {
public:
    struct Request {
        int gateway = 0;      // from 0
        QDateTime finishedAt; // when the gateway logged it (the request's end)
        QString method;
        QString path; // as sent: "/bucket/key%20name"
        QUrlQuery query;
        int status = 0;

        bool isUploadPart() const
        {
            return method == QLatin1String("PUT") && query.hasQueryItem(QStringLiteral("partNumber"));
        }
        bool isCreate() const
        {
            return method == QLatin1String("POST") && query.hasQueryItem(QStringLiteral("uploads"));
        }
        int partNumber() const { return query.queryItemValue(QStringLiteral("partNumber")).toInt(); }
    };

    // logFiles: one per gateway, in gateway order.
    explicit RgwAccessLog(QStringList logFiles);

    // Every request logged so far, in log order per gateway.
    QList<Request> read() const;
    // The stored (200) UploadPart requests of one object, "/bucket/" + key as it is sent.
    QList<Request> storedParts(const QString &encodedPath) const;
    // Its CreateMultipartUpload requests, whatever they answered.
    QList<Request> creates(const QString &encodedPath) const;

private:
    QStringList m_files;
};

} // namespace multilane
