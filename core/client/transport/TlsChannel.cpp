#include "TlsChannel.h"

#include "TlsTrust.h"

#include <QSslConfiguration>
#include <QSslSocket>

#include <cerrno>
#include <unistd.h>

namespace multilane {

namespace {

// Plain bytes waiting in the socket (before and after encryption) beyond which write() takes
// nothing: enough to keep a fast link busy between two turns of the event loop.
constexpr qint64 MaxBuffered = 1 << 20;
constexpr qint64 FilePiece = 256 * 1024;

} // namespace

TlsChannel::TlsChannel(const Endpoint &endpoint, const QByteArray &sessionTicket, QObject *parent)
    : ByteChannel(parent)
    , m_endpoint(endpoint)
    , m_socket(std::make_unique<QSslSocket>())
{
    QSslConfiguration configuration = TlsTrust::configurationFor(endpoint);
    if (!sessionTicket.isEmpty())
        configuration.setSessionTicket(sessionTicket);
    m_socket->setSslConfiguration(configuration);
    // Only a connected socket takes options.
    connect(m_socket.get(), &QAbstractSocket::connected, this,
            [this] { m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1); });
    connect(m_socket.get(), &QSslSocket::sslErrors, this, &TlsChannel::onSslErrors);
    connect(m_socket.get(), &QSslSocket::encrypted, this, &TlsChannel::onEncrypted);
    connect(m_socket.get(), &QAbstractSocket::errorOccurred, this, &TlsChannel::onError);
    connect(m_socket.get(), &QIODevice::readyRead, this, [this] {
        if (m_ready)
            Q_EMIT readable();
    });
    connect(m_socket.get(), &QAbstractSocket::disconnected, this, [this] {
        if (m_ready)
            Q_EMIT readable(); // read() reports the end
    });
    const auto drained = [this] {
        if (m_ready && m_watchWritable && room() > 0)
            Q_EMIT writable();
    };
    connect(m_socket.get(), &QIODevice::bytesWritten, this, drained);
    connect(m_socket.get(), &QSslSocket::encryptedBytesWritten, this, drained);
}

TlsChannel::~TlsChannel()
{
    close();
}

QString TlsChannel::endpointName() const
{
    return m_endpoint.url.adjusted(QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveUserInfo)
        .toDisplayString();
}

void TlsChannel::open(const QString &host, quint16 port)
{
    m_socket->connectToHostEncrypted(host, port);
}

void TlsChannel::onSslErrors(const QList<QSslError> &errors)
{
    if (m_endpoint.pinSha256.isEmpty())
        return; // not ignored: the handshake fails and onError() says why
    QSslCertificate peer = m_socket->peerCertificate();
    for (qsizetype i = 0; peer.isNull() && i < errors.size(); ++i)
        peer = errors.at(i).certificate();
    const QByteArray actual = TlsTrust::sha256(peer);
    if (actual == m_endpoint.pinSha256) {
        m_socket->ignoreSslErrors();
        return;
    }
    const TlsTrust::TlsFailure failure = TlsTrust::pinMismatch(endpointName(), actual, m_endpoint.pinSha256);
    setFailure({failure.message, false, failure.code});
}

void TlsChannel::onEncrypted()
{
    if (!m_endpoint.pinSha256.isEmpty()) {
        const QByteArray actual = TlsTrust::sha256(m_socket->peerCertificate());
        if (actual != m_endpoint.pinSha256) {
            const TlsTrust::TlsFailure failure =
                TlsTrust::pinMismatch(endpointName(), actual, m_endpoint.pinSha256);
            setFailure({failure.message, false, failure.code});
            close();
            Q_EMIT failed();
            return;
        }
    }
    m_ready = true;
    Q_EMIT ready();
}

void TlsChannel::onError()
{
    if (m_closed)
        return;
    if (m_ready && m_socket->error() == QAbstractSocket::RemoteHostClosedError) {
        Q_EMIT readable(); // the peer ended the connection: read() says so once it is empty
        return;
    }
    if (m_socket->error() == QAbstractSocket::SslHandshakeFailedError) {
        const TlsTrust::TlsFailure failure = TlsTrust::handshakeFailed(
            endpointName(), !m_socket->peerCertificate().isNull(), m_socket->errorString());
        setFailure({failure.message, false, failure.code});
    } else {
        setFailure(
            {m_socket->errorString(), m_socket->error() == QAbstractSocket::ConnectionRefusedError, {}});
    }
    const bool wasReady = m_ready;
    m_ready = false;
    if (wasReady)
        Q_EMIT readable(); // what arrived before the error is still read, then read() fails
    else
        Q_EMIT failed();
}

qint64 TlsChannel::room() const
{
    return MaxBuffered - m_socket->bytesToWrite() - m_socket->encryptedBytesToWrite();
}

qint64 TlsChannel::write(const char *data, qint64 size, bool)
{
    if (m_closed || m_socket->state() != QAbstractSocket::ConnectedState)
        return -1;
    const qint64 take = std::min(size, room());
    if (take <= 0)
        return 0;
    return m_socket->write(data, take);
}

qint64 TlsChannel::sendFile(int fileFd, qint64 offset, qint64 length)
{
    const qint64 take = std::min({length, room(), FilePiece});
    if (m_closed || m_socket->state() != QAbstractSocket::ConnectedState)
        return -1;
    if (take <= 0)
        return 0;
    if (m_buffer.size() < take)
        m_buffer.resize(take);
    ssize_t got = 0;
    do {
        got = ::pread(fileFd, m_buffer.data(), std::size_t(take), off_t(offset));
    } while (got < 0 && errno == EINTR);
    if (got <= 0)
        return -2;
    return m_socket->write(m_buffer.constData(), got);
}

qint64 TlsChannel::read(char *data, qint64 size)
{
    const qint64 got = m_socket->read(data, size);
    if (got > 0)
        return got;
    if (got == 0 && m_socket->state() == QAbstractSocket::ConnectedState && !failure())
        return 0;
    return -1;
}

int TlsChannel::descriptor() const
{
    return m_closed ? -1 : int(m_socket->socketDescriptor());
}

QByteArray TlsChannel::sessionTicket() const
{
    return m_socket->sslConfiguration().sessionTicket();
}

void TlsChannel::close()
{
    if (m_closed)
        return;
    m_closed = true;
    m_ready = false;
    m_socket->disconnect(this);
    m_socket->abort();
}

} // namespace multilane
