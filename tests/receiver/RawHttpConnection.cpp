#include "RawHttpConnection.h"

#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QList>

#include <sys/socket.h>

QJsonObject RawHttpConnection::Reply::json() const
{
    return QJsonDocument::fromJson(body).object();
}

QByteArray RawHttpConnection::Reply::errorCode() const
{
    return json()
        .value(QStringLiteral("error"))
        .toObject()
        .value(QStringLiteral("code"))
        .toString()
        .toLatin1();
}

QByteArray RawHttpConnection::Reply::header(const QByteArray &name) const
{
    const QList<QByteArray> lines = head.split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray &line = lines.at(i);
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().compare(name, Qt::CaseInsensitive) == 0)
            return line.mid(colon + 1).trimmed();
    }
    return {};
}

RawHttpConnection::RawHttpConnection(const QUrl &endpoint)
{
    if (endpoint.scheme() == QLatin1String("https")) {
        m_socket.setPeerVerifyMode(QSslSocket::VerifyNone);
        m_socket.connectToHostEncrypted(endpoint.host(), quint16(endpoint.port()));
        m_socket.waitForEncrypted(5000);
        return;
    }
    m_socket.connectToHost(endpoint.host(), quint16(endpoint.port()));
    m_socket.waitForConnected(5000);
}

bool RawHttpConnection::send(const QByteArray &bytes)
{
    if (!isConnected())
        return false;
    m_socket.write(bytes);
    while (m_socket.bytesToWrite() > 0) {
        if (!m_socket.waitForBytesWritten(10000))
            return false;
    }
    return true;
}

bool RawHttpConnection::stopSending()
{
    return isConnected() && ::shutdown(int(m_socket.socketDescriptor()), SHUT_WR) == 0;
}

bool RawHttpConnection::readMore(qint64 deadlineMs)
{
    if (m_socket.bytesAvailable() == 0) {
        if (m_peerClosed || m_socket.state() != QAbstractSocket::ConnectedState) {
            m_peerClosed = true;
            return false;
        }
        if (!m_socket.waitForReadyRead(int(qMax<qint64>(1, deadlineMs)))) {
            // A timeout leaves the socket connected; a close does not.
            m_peerClosed = m_socket.state() != QAbstractSocket::ConnectedState;
            return false;
        }
    }
    m_buffer.append(m_socket.readAll());
    return true;
}

RawHttpConnection::Reply RawHttpConnection::readReply(int timeoutMs)
{
    Reply reply;
    const QDeadlineTimer deadline(timeoutMs);
    qsizetype headEnd = -1;
    while ((headEnd = m_buffer.indexOf("\r\n\r\n")) < 0) {
        if (deadline.hasExpired() || !readMore(deadline.remainingTime())) {
            reply.closed = m_peerClosed;
            return reply;
        }
    }
    reply.head = m_buffer.left(headEnd);
    const QList<QByteArray> statusLine = reply.head.left(reply.head.indexOf('\r')).split(' ');
    const qint64 length = reply.header("Content-Length").toLongLong();
    while (m_buffer.size() < headEnd + 4 + length) {
        if (deadline.hasExpired() || !readMore(deadline.remainingTime())) {
            reply.closed = m_peerClosed;
            return reply;
        }
    }
    reply.body = m_buffer.mid(headEnd + 4, length);
    m_buffer.remove(0, headEnd + 4 + length);
    reply.status = statusLine.size() > 1 ? statusLine.at(1).toInt() : 0;
    reply.closed = m_peerClosed;
    return reply;
}

bool RawHttpConnection::waitClosed(int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    while (!m_peerClosed && !deadline.hasExpired()) {
        if (!readMore(deadline.remainingTime()))
            continue;
    }
    return m_peerClosed;
}

RawHttpConnection::Reply RawHttpConnection::exchange(const QUrl &endpoint, const QByteArray &request,
                                                     int timeoutMs)
{
    RawHttpConnection connection(endpoint);
    if (!connection.send(request))
        return Reply{0, true, {}, {}};
    return connection.readReply(timeoutMs);
}

QByteArray RawHttpConnection::request(const QByteArray &method, const QByteArray &target,
                                      const QByteArray &body, const QByteArray &extraHeaders)
{
    QByteArray text = method + ' ' + target + " HTTP/1.1\r\nHost: hostile.test\r\n" + extraHeaders;
    if (!body.isNull())
        text += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    return text + "\r\n" + body;
}
