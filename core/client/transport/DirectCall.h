#pragma once

#include "DirectConnection.h"
#include "Endpoint.h"
#include "WireTransport.h"

#include <QPointer>

namespace multilane {

class ConnectionPool;

// One request of DirectTransport: what it sends, where (the endpoint, for TLS trust, and the
// origin its connections are pooled by), its open file body, and the answer once it came.
class DirectCall final : public WireCall {
    Q_OBJECT
public:
    DirectCall(ConnectionPool &pool, const Endpoint &endpoint, const QString &origin, const QUrl &url,
               const OutgoingRequest &request);
    ~DirectCall() override;

    void abort() override;
    // The pool is going: this call is deleted with it and must not call back.
    void detachFromPool() { m_pool = nullptr; }
    const WireReply &reply() const override { return m_reply; }

    const Endpoint &endpoint() const { return m_endpoint; }
    const QString &origin() const { return m_origin; }
    const QUrl &url() const { return m_url; }
    const OutgoingRequest &request() const { return m_request; }
    bool isDone() const { return m_done; }
    // A retry on a new connection was spent (a kept-alive connection had gone stale).
    bool retried = false;
    // The connection carrying it now (ConnectionPool's to set), null while queued.
    DirectConnection *connection = nullptr;
    // Asked to go behind the request this connection carries (WireTransport::sendBehind); where
    // that is no longer possible when it starts, it goes as any other call.
    QPointer<DirectConnection> behind;

    // ConnectionPool's side: the call ends with this reply (once).
    void finish(const WireReply &reply);

private:
    QPointer<ConnectionPool> m_pool;
    Endpoint m_endpoint;
    QString m_origin;
    QUrl m_url;
    OutgoingRequest m_request;
    WireReply m_reply;
    bool m_done = false;
};

} // namespace multilane
