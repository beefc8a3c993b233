#include "LedgerProxy.h"

#include "LedgerConnection.h"

LedgerProxy::LedgerProxy(WireLedger &ledger, int endpoint, quint16 targetPort, QObject *parent)
    : QObject(parent)
    , m_ledger(ledger)
    , m_endpoint(endpoint)
    , m_targetPort(targetPort)
{
    connect(&m_server, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *client = m_server.nextPendingConnection())
            new LedgerConnection(m_ledger, m_endpoint, client, m_targetPort, this);
    });
    if (m_server.listen(QHostAddress::LocalHost, 0))
        m_port = m_server.serverPort();
}

QUrl LedgerProxy::url() const
{
    QUrl url(QStringLiteral("http://127.0.0.1"));
    url.setPort(m_port);
    return url;
}

bool LedgerProxy::setTargetUp(bool up)
{
    if (!up) {
        m_server.close();
        return true;
    }
    // The same port again: the client's journal names it.
    return m_server.isListening() || m_server.listen(QHostAddress::LocalHost, m_port);
}
