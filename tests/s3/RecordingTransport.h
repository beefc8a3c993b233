#pragma once

#include "WireTransport.h"

#include <QList>
#include <QObject>
#include <QSet>
#include <functional>
#include <memory>

namespace multilane {

// The real transport (the one the client uses: WireTransports::make), recording every request the engine
// sends through it as the S3 operation it is, and to which endpoint: what a test counts ("only the missing
// parts were sent") and watches (a hook runs before each request goes out; answered() follows its answer).
class RecordingTransport final : public QObject, public WireTransport {
    Q_OBJECT
public:
    struct Sent {
        int endpoint = -1;
        QString operation; // HeadObject, ListMultipartUploads, ListParts, CreateMultipartUpload, …
        QString key;       // the object key the request names; empty for the bucket
        int partNumber = 0;
        bool withSha256 = false; // carries x-amz-meta-sha256
        int httpStatus = -1;     // -1 until answered; 0: no answer
    };

    RecordingTransport(const EndpointPool &pool, int transferTimeoutMs);

    WireCall *send(const EndpointLease &lease, const WireRequest &request) override;
    void closeIdleConnections() override { m_real->closeIdleConnections(); }
    Delivery delivery() override { return m_real->delivery(); }

    // Runs before a request is handed to the network (a test may kill a gateway there).
    std::function<void(const Sent &)> beforeSend;
    const QList<Sent> &sent() const { return m_sent; }
    QList<Sent> sent(const QString &operation) const;
    // The part numbers sent for `key`, in order; and the endpoints they went to.
    QList<int> partsSent(const QString &key) const;
    QSet<int> endpointsOfParts(const QString &key) const;

    static QString operationOf(const WireRequest &request);

Q_SIGNALS:
    void answered(const multilane::RecordingTransport::Sent &request);

private:
    std::unique_ptr<WireTransport> m_real;
    QList<Sent> m_sent;
};

} // namespace multilane
