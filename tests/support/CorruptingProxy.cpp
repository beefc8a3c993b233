#include "CorruptingProxy.h"

#include <QTcpSocket>

CorruptingProxy::CorruptingProxy(const QUrl &target, qint64 corruptAtOffset, QObject *parent)
    : QObject(parent)
    , m_target(target)
    , m_corruptAt(corruptAtOffset)
{
    connect(&m_server, &QTcpServer::newConnection, this, &CorruptingProxy::onNewConnection);
    m_server.listen(QHostAddress::LocalHost, 0);
}

QUrl CorruptingProxy::url() const
{
    QUrl url(QStringLiteral("http://127.0.0.1"));
    url.setPort(m_server.serverPort());
    return url;
}

void CorruptingProxy::onNewConnection()
{
    while (QTcpSocket *client = m_server.nextPendingConnection()) {
        auto *upstream = new QTcpSocket(client);
        const bool corruptThis = m_firstConnection;
        m_firstConnection = false;
        auto *forwarded = new qint64(0);
        connect(client, &QObject::destroyed, upstream, [forwarded] { delete forwarded; });
        connect(client, &QTcpSocket::readyRead, upstream, [this, client, upstream, corruptThis, forwarded] {
            QByteArray data = client->readAll();
            if (corruptThis && !m_corrupted && *forwarded + data.size() > m_corruptAt) {
                data[m_corruptAt - *forwarded] = char(data.at(m_corruptAt - *forwarded) ^ 0xff);
                m_corrupted = true;
            }
            *forwarded += data.size();
            upstream->write(data);
        });
        connect(upstream, &QTcpSocket::readyRead, client, [client, upstream] { client->write(upstream->readAll()); });
        connect(client, &QTcpSocket::disconnected, upstream, &QTcpSocket::disconnectFromHost);
        connect(upstream, &QTcpSocket::disconnected, client, &QTcpSocket::disconnectFromHost);
        connect(client, &QTcpSocket::disconnected, client, &QObject::deleteLater);
        upstream->connectToHost(m_target.host(), quint16(m_target.port()));
    }
}
