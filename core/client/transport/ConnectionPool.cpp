#include "ConnectionPool.h"

#include "DirectCall.h"
#include "DirectConnection.h"
#include "TcpChannel.h"
#include "TlsChannel.h"

#include <QTimer>
#include <algorithm>

namespace multilane {

ConnectionPool::ConnectionPool(QObject *parent)
    : QObject(parent)
{}

ConnectionPool::~ConnectionPool()
{
    // Calls still running never finish (as with Qt's manager gone); their connections go. Calls
    // their senders left behind (gone before their answer) go too, telling the pool nothing.
    const QList<DirectCall *> calls = findChildren<DirectCall *>(QString(), Qt::FindDirectChildrenOnly);
    for (DirectCall *call : calls) {
        call->detachFromPool();
        delete call;
    }
    for (DirectConnection *connection : std::as_const(m_connections)) {
        connection->disconnect(this);
        delete connection;
    }
}

QString ConnectionPool::keyOf(const DirectCall &call)
{
    return call.origin();
}

void ConnectionPool::enqueue(DirectCall *call)
{
    m_queued.append(call);
    if (m_startPosted)
        return;
    m_startPosted = true;
    QTimer::singleShot(0, this, &ConnectionPool::startQueued);
}

void ConnectionPool::startQueued()
{
    m_startPosted = false;
    const QList<QPointer<DirectCall>> queued = std::exchange(m_queued, {});
    for (const QPointer<DirectCall> &call : queued) {
        if (call && !call->isDone())
            begin(call, false);
    }
}

DirectConnection *ConnectionPool::idleFor(const QString &key)
{
    auto idle = m_idle.find(key);
    if (idle == m_idle.end() || idle->isEmpty())
        return nullptr;
    // The most recently used: the others may idle out on the server, which is fine.
    return idle->takeLast();
}

DirectConnection *ConnectionPool::warmingFor(const QString &key)
{
    auto warming = m_warming.find(key);
    if (warming == m_warming.end() || warming->isEmpty())
        return nullptr;
    return warming->takeFirst(); // the longest on its way
}

void ConnectionPool::warmUp(const Endpoint &endpoint, const QString &key, const QUrl &url, int connections)
{
    for (auto open = std::count(m_keys.cbegin(), m_keys.cend(), key); open < connections; ++open) {
        DirectConnection *connection = this->open(endpoint, key, url);
        m_warming[key].append(connection);
        connect(connection, &DirectConnection::warmed, this, [this, connection] { onWarmed(connection); });
        connection->warm();
    }
}

void ConnectionPool::onWarmed(DirectConnection *connection)
{
    const QString key = m_keys.value(connection);
    if (auto warming = m_warming.find(key); warming != m_warming.end() && warming->removeOne(connection))
        m_idle[key].append(connection);
}

DirectConnection *ConnectionPool::open(const DirectCall &call)
{
    return open(call.endpoint(), keyOf(call), call.url());
}

DirectConnection *ConnectionPool::open(const Endpoint &endpoint, const QString &key, const QUrl &url)
{
    const bool tls = url.scheme() == QLatin1String("https");
    std::unique_ptr<ByteChannel> channel;
    if (tls)
        channel = std::make_unique<TlsChannel>(endpoint, m_sessionTickets.value(key));
    else
        channel = std::make_unique<TcpChannel>();
    auto *connection =
        new DirectConnection(std::move(channel), url.host(), quint16(url.port(tls ? 443 : 80)), this);
    m_connections.insert(connection);
    m_keys.insert(connection, key);
    // The pool hears of an ending before the call does (connected first), so a call that
    // sends again from its finished() finds the connection back among the idle ones.
    connect(connection, &DirectConnection::finished, this,
            [this, connection](const WireReply &reply, bool retryable) {
                onFinished(connection, reply, retryable);
            });
    connect(connection, &DirectConnection::closed, this, [this, connection] { retire(connection); });
    connect(connection, &DirectConnection::bytesSent, this, [this, connection](qint64 total) {
        const QList<DirectCall *> behind = m_behind.value(connection);
        DirectCall *writing = behind.isEmpty() ? m_running.value(connection) : behind.last();
        if (writing)
            Q_EMIT writing->bytesSent(total);
    });
    return connection;
}

void ConnectionPool::begin(DirectCall *call, bool fresh)
{
    DirectConnection *ahead = call->behind;
    call->behind = nullptr;
    if (ahead && !fresh && ahead->takesRequestBehind() && m_running.contains(ahead)) {
        m_behind[ahead].append(call);
        call->connection = ahead;
        ahead->startBehind(call->request());
        return;
    }
    DirectConnection *connection = fresh ? nullptr : idleFor(keyOf(*call));
    if (!connection && !fresh)
        connection = warmingFor(keyOf(*call));
    if (!connection)
        connection = open(*call);
    m_running.insert(connection, call);
    call->connection = connection;
    connection->start(call->request());
}

void ConnectionPool::onFinished(DirectConnection *connection, const WireReply &reply, bool retryable)
{
    DirectCall *call = m_running.take(connection);
    if (call)
        call->connection = nullptr;
    if (auto behind = m_behind.find(connection); behind != m_behind.end()) {
        // The first call behind is the next to be answered: the connection carries it on, or
        // (closed) reports its end right after this one's, and is retired after the last's.
        if (DirectCall *next = behind->takeFirst())
            m_running.insert(connection, next);
        if (behind->isEmpty())
            m_behind.erase(behind);
    } else if (connection->state() == DirectConnection::State::Idle) {
        if (auto *tls = qobject_cast<TlsChannel *>(&connection->channel())) {
            const QByteArray ticket = tls->sessionTicket();
            if (!ticket.isEmpty())
                m_sessionTickets.insert(m_keys.value(connection), ticket);
        }
        m_idle[m_keys.value(connection)].append(connection);
    } else {
        retire(connection);
    }
    if (!call)
        return;
    if (retryable && !call->retried) {
        // The server closed the kept-alive connection before it saw this request, or the request
        // sharing the connection ended it: send it again on a new one (what browsers and Qt do
        // too), once.
        call->retried = true;
        begin(call, true);
        return;
    }
    call->finish(reply);
}

void ConnectionPool::retire(DirectConnection *connection)
{
    if (!m_connections.remove(connection))
        return;
    if (const std::optional<TcpInfo::Reading> last = connection->tcpReading()) {
        double ignored = 0;
        int busy = 0;
        count(connection, *last, &ignored, &busy);
    }
    m_ackedAtSample.remove(connection);
    m_running.remove(connection);
    m_behind.remove(connection);
    const QString key = m_keys.take(connection);
    for (QHash<QString, QList<DirectConnection *>> *lists : {&m_idle, &m_warming}) {
        auto list = lists->find(key);
        if (list != lists->end()) {
            list->removeOne(connection);
            if (list->isEmpty())
                lists->erase(list);
        }
    }
    connection->disconnect(this);
    connection->deleteLater(); // we may be inside one of its signals
}

void ConnectionPool::cancel(DirectCall *call, const QString &why)
{
    if (m_queued.removeAll(call) > 0) {
        WireReply reply;
        reply.networkError = why;
        call->finish(reply);
        return;
    }
    if (!call->connection)
        return;
    // finished() comes back through onFinished
    if (const qsizetype index = m_behind.value(call->connection).indexOf(call); index >= 0)
        call->connection->abortBehind(int(index), why);
    else
        call->connection->abort(why);
}

void ConnectionPool::forget(DirectCall *call)
{
    m_queued.removeAll(call);
    DirectConnection *connection = std::exchange(call->connection, nullptr);
    if (!connection)
        return;
    if (const qsizetype index = m_behind.value(connection).indexOf(call); index >= 0) {
        m_behind[connection][index] = nullptr; // its end still comes, in its turn, to nobody
        connection->abortBehind(int(index), QStringLiteral("Operation canceled"));
        return;
    }
    m_running.remove(connection);
    connection->abort(QStringLiteral("Operation canceled")); // closes it; the pool retires it
}

void ConnectionPool::closeIdle()
{
    for (QHash<QString, QList<DirectConnection *>> *lists : {&m_idle, &m_warming}) {
        const auto unused = std::exchange(*lists, {});
        for (const QList<DirectConnection *> &connections : unused) {
            for (DirectConnection *connection : connections)
                retire(connection);
        }
    }
}

void ConnectionPool::count(const DirectConnection *connection, const TcpInfo::Reading &reading,
                           double *rttSum, int *busy)
{
    const auto before = m_ackedAtSample.find(connection);
    if (before != m_ackedAtSample.end() && reading.bytesAcked > *before) {
        m_delivered += qint64(reading.bytesAcked - *before);
        *rttSum += reading.rttMs;
        ++*busy;
    }
    m_ackedAtSample.insert(connection, reading.bytesAcked);
    if (reading.minRttMs > 0 && (m_minRttMs <= 0 || reading.minRttMs < m_minRttMs))
        m_minRttMs = reading.minRttMs;
}

WireTransport::Delivery ConnectionPool::delivery()
{
    if (!TcpInfo::isSupported())
        return {};
    double rttSum = 0;
    int busy = 0;
    for (const DirectConnection *connection : std::as_const(m_connections)) {
        if (const std::optional<TcpInfo::Reading> reading = connection->tcpReading())
            count(connection, *reading, &rttSum, &busy);
    }
    return {m_delivered, busy > 0 ? rttSum / busy : 0, m_minRttMs};
}

} // namespace multilane
