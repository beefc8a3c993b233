#include "TcpProxy.h"

#include <QTcpSocket>

TcpProxy::TcpProxy(const QUrl &target, qint64 corruptAtOffset, QObject *parent)
    : QObject(parent)
    , m_target(target)
    , m_corruptAt(corruptAtOffset)
{
    connect(&m_server, &QTcpServer::newConnection, this, &TcpProxy::onNewConnection);
    m_server.listen(QHostAddress::LocalHost, 0);
}

QUrl TcpProxy::url() const
{
    QUrl url(QStringLiteral("http://127.0.0.1"));
    url.setPort(m_server.serverPort());
    return url;
}

void TcpProxy::onNewConnection()
{
    while (QTcpSocket *client = m_server.nextPendingConnection()) {
        auto *upstream = new QTcpSocket(client);
        const bool corruptThis = m_firstConnection;
        m_firstConnection = false;
        auto *forwarded = new qint64(0);
        ++m_openConnections;
        connect(client, &QObject::destroyed, this, [this, forwarded] {
            delete forwarded;
            --m_openConnections;
        });
        connect(client, &QTcpSocket::readyRead, upstream, [this, client, upstream, corruptThis, forwarded] {
            QByteArray data = client->readAll();
            m_bytesUpstream += data.size();
            if (corruptThis && m_corruptAt >= 0 && !m_corrupted && *forwarded + data.size() > m_corruptAt) {
                data[m_corruptAt - *forwarded] = char(data.at(m_corruptAt - *forwarded) ^ 0xff);
                m_corrupted = true;
            }
            *forwarded += data.size();
            upstream->write(data);
            Q_EMIT forwardedUpstream(m_bytesUpstream);
        });
        connect(upstream, &QTcpSocket::readyRead, client,
                [client, upstream] { client->write(upstream->readAll()); });
        connect(client, &QTcpSocket::disconnected, upstream, &QTcpSocket::disconnectFromHost);
        connect(upstream, &QTcpSocket::disconnected, client, &QTcpSocket::disconnectFromHost);
        connect(client, &QTcpSocket::disconnected, client, &QObject::deleteLater);
        upstream->connectToHost(m_target.host(), quint16(m_target.port()));
    }
}
