#include "LedgerConnection.h"

#include "WireLedger.h"

#include <QHostAddress>

namespace {

constexpr qint64 HeldPerDirection = 256 * 1024;
constexpr qint64 ReadPiece = 64 * 1024;

} // namespace

LedgerConnection::LedgerConnection(WireLedger &ledger, int endpoint, QTcpSocket *client, quint16 targetPort,
                                   QObject *parent)
    : QObject(parent)
    , m_ledger(ledger)
    , m_endpoint(endpoint)
    , m_connection(ledger.connectionOpened())
    , m_client(client)
{
    m_client->setParent(this);
    // Bounded socket buffers: what is not read stays in the kernel, which slows the sender.
    m_client->setReadBufferSize(HeldPerDirection);
    m_upstream.setReadBufferSize(HeldPerDirection);
    connect(m_client, &QTcpSocket::readyRead, this, &LedgerConnection::pumpUp);
    connect(&m_upstream, &QTcpSocket::bytesWritten, this, &LedgerConnection::pumpUp);
    connect(&m_upstream, &QTcpSocket::connected, this, [this] {
        m_upstreamConnected = true;
        pumpUp();
    });
    connect(&m_upstream, &QTcpSocket::readyRead, this, &LedgerConnection::pumpDown);
    connect(m_client, &QTcpSocket::bytesWritten, this, &LedgerConnection::pumpDown);
    connect(m_client, &QTcpSocket::disconnected, this, &LedgerConnection::onClientGone);
    connect(m_client, &QTcpSocket::stateChanged, this, &LedgerConnection::finishIfDone);
    connect(&m_upstream, &QTcpSocket::stateChanged, this, &LedgerConnection::finishIfDone);
    connect(&m_upstream, &QTcpSocket::disconnected, this, &LedgerConnection::onUpstreamGone);
    connect(&m_upstream, &QTcpSocket::errorOccurred, this, [this] {
        if (m_upstream.state() != QAbstractSocket::ConnectedState)
            onUpstreamGone();
    });
    m_upstream.connectToHost(QHostAddress::LocalHost, targetPort);
}

void LedgerConnection::pumpUp()
{
    while (m_upstream.state() == QAbstractSocket::ConnectedState && m_client->bytesAvailable() > 0 &&
           (m_upstream.bytesToWrite() < HeldPerDirection || m_clientGone)) {
        const QByteArray bytes = m_client->read(ReadPiece);
        recordRequests(bytes);
        m_upstream.write(bytes);
    }
}

void LedgerConnection::pumpDown()
{
    while (m_upstream.bytesAvailable() > 0 && m_client->state() == QAbstractSocket::ConnectedState &&
           (m_client->bytesToWrite() < HeldPerDirection || m_upstreamGone)) {
        const QByteArray bytes = m_upstream.read(ReadPiece);
        recordAnswers(bytes);
        m_client->write(bytes);
    }
}

void LedgerConnection::recordRequests(const QByteArray &bytes)
{
    for (const HttpFramer::Event &event : m_requests.feed(bytes)) {
        switch (event.kind) {
        case HttpFramer::Event::Kind::Head: {
            const QList<QByteArray> parts = event.head.startLine.split(' ');
            const QByteArray method = parts.value(0);
            if (method == "HEAD")
                m_answers.expectNoBody();
            m_sending = m_ledger.open(m_connection, m_endpoint, method, parts.value(1), event.head.headBytes,
                                      event.head.contentLength);
            m_awaiting.append(m_sending);
            break;
        }
        case HttpFramer::Event::Kind::Body:
            if (m_sending >= 0)
                m_ledger.addBody(m_sending, event.body.size());
            break;
        case HttpFramer::Event::Kind::End:
            m_sending = -1;
            break;
        }
    }
}

void LedgerConnection::recordAnswers(const QByteArray &bytes)
{
    for (const HttpFramer::Event &event : m_answers.feed(bytes)) {
        if (m_awaiting.isEmpty())
            return; // an answer to nothing we saw: not ours to count
        const int id = m_awaiting.first();
        switch (event.kind) {
        case HttpFramer::Event::Kind::Head:
            m_ledger.answer(id, event.head.startLine.split(' ').value(1).toInt());
            break;
        case HttpFramer::Event::Kind::Body:
            m_ledger.addAnswerBody(id, event.body);
            break;
        case HttpFramer::Event::Kind::End:
            m_ledger.answerPassedOn(id);
            m_awaiting.removeFirst();
            break;
        }
    }
}

void LedgerConnection::onClientGone()
{
    if (m_clientGone)
        return;
    m_clientGone = true;
    pumpUp(); // what the client had sent still crosses
    if (m_upstream.state() == QAbstractSocket::ConnectedState)
        m_upstream.disconnectFromHost();
    else
        m_upstream.abort();
    finishIfDone();
}

void LedgerConnection::onUpstreamGone()
{
    if (m_upstreamGone)
        return;
    m_upstreamGone = true;
    if (!m_upstreamConnected) {
        m_client->abort(); // nobody there: the client sees a reset, as from a closed port
    } else {
        pumpDown(); // the answers that came before the end still reach the client
        m_client->disconnectFromHost();
    }
    finishIfDone();
}

void LedgerConnection::finishIfDone()
{
    if (m_client->state() == QAbstractSocket::UnconnectedState &&
        m_upstream.state() == QAbstractSocket::UnconnectedState)
        deleteLater();
}
