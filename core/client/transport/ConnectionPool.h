#pragma once

#include "TcpInfo.h"
#include "WireTransport.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>

namespace multilane {

class DirectCall;
class DirectConnection;

// DirectTransport's connections: kept alive per origin (and endpoint, whose TLS trust they
// carry), handed to calls as they start, opened when none is idle — with no cap of its own,
// the engine's EndpointPool decides how many requests run. Each connection's socket is its own,
// so what the peers acknowledged is read from the connections it holds, not from a walk over
// the process's descriptors.
class ConnectionPool : public QObject {
    Q_OBJECT
public:
    explicit ConnectionPool(QObject *parent = nullptr);
    ~ConnectionPool() override;

    // Starts the call on the next turn of the event loop (with the others queued meanwhile), so
    // whoever got it from send() has connected to its signals by then.
    void enqueue(DirectCall *call);
    // Ends a call now, with no answer (and the other call sharing its connection, if any, ends
    // unanswered and goes again on a new one).
    void cancel(DirectCall *call, const QString &why);
    // A call is going away unfinished: its connection (if any) is closed, nothing is emitted.
    void forget(DirectCall *call);
    void closeIdle();
    // Opens connections to `url` (under `key`, as a call's origin) until this many are open or
    // opening; a call for that origin takes one of them when none is idle.
    void warmUp(const Endpoint &endpoint, const QString &key, const QUrl &url, int connections);
    WireTransport::Delivery delivery();
    int openConnections() const { return int(m_connections.size()); }

private:
    void startQueued();
    void begin(DirectCall *call, bool fresh);
    DirectConnection *idleFor(const QString &key);
    DirectConnection *open(const DirectCall &call);
    DirectConnection *open(const Endpoint &endpoint, const QString &key, const QUrl &url);
    DirectConnection *warmingFor(const QString &key);
    void onWarmed(DirectConnection *connection);
    void onFinished(DirectConnection *connection, const WireReply &reply, bool retryable);
    void retire(DirectConnection *connection);
    void count(const DirectConnection *connection, const TcpInfo::Reading &reading, double *rttSum,
               int *busy);
    static QString keyOf(const DirectCall &call);

    QList<QPointer<DirectCall>> m_queued;
    bool m_startPosted = false;
    QSet<DirectConnection *> m_connections;
    QHash<QString, QList<DirectConnection *>> m_idle;
    QHash<QString, QList<DirectConnection *>> m_warming; // opened for calls still to come
    QHash<DirectConnection *, DirectCall *> m_running;   // the call whose answer comes next
    // The calls written behind it, in the order of their answers (nullptr: one forgotten, whose
    // answer, the connection's end, is still to come).
    QHash<DirectConnection *, QList<DirectCall *>> m_behind;
    QHash<DirectConnection *, QString> m_keys;
    QHash<QString, QByteArray> m_sessionTickets; // by origin, for TLS resumption
    // Delivery: per connection the bytes acknowledged at the last sample; a connection counts
    // from its first sample on (the burst into a new connection's buffers says nothing of the rate).
    QHash<const DirectConnection *, quint64> m_ackedAtSample;
    qint64 m_delivered = 0;
    double m_minRttMs = 0;
};

} // namespace multilane
