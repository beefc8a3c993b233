#include "TcpChannel.h"

#include <QHostInfo>
#include <QSocketNotifier>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

namespace multilane {

namespace {

QString errnoText(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

bool wouldBlock(int error)
{
    return error == EAGAIN || error == EWOULDBLOCK;
}

// sendfile() has no MSG_NOSIGNAL: to a peer that closed, it raises SIGPIPE, which kills the
// process or runs whatever handler it has (QtTest's reports a crash). While it runs SIGPIPE is
// blocked in this thread, and one it raised is taken back, so a closed peer is only an error.
class BrokenPipeGuard {
public:
    BrokenPipeGuard()
    {
        sigemptyset(&m_pipe);
        sigaddset(&m_pipe, SIGPIPE);
        sigset_t pending;
        sigemptyset(&pending);
        m_wasPending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
        pthread_sigmask(SIG_BLOCK, &m_pipe, &m_before);
    }
    ~BrokenPipeGuard() { pthread_sigmask(SIG_SETMASK, &m_before, nullptr); }
    BrokenPipeGuard(const BrokenPipeGuard &) = delete;
    BrokenPipeGuard &operator=(const BrokenPipeGuard &) = delete;

    void takeBackSignal()
    {
        if (m_wasPending)
            return; // not ours to take
        const timespec now = {0, 0};
        while (sigtimedwait(&m_pipe, nullptr, &now) < 0 && errno == EINTR) {
        }
    }

private:
    sigset_t m_pipe;
    sigset_t m_before;
    bool m_wasPending = false;
};

} // namespace

TcpChannel::TcpChannel(QObject *parent)
    : ByteChannel(parent)
{}

TcpChannel::~TcpChannel()
{
    if (m_lookupId >= 0)
        QHostInfo::abortHostLookup(m_lookupId);
    close();
}

void TcpChannel::open(const QString &host, quint16 port)
{
    m_host = host;
    m_port = port;
    QHostAddress literal;
    if (literal.setAddress(host)) {
        m_addresses = {literal};
        connectNext();
        return;
    }
    m_lookupId = QHostInfo::lookupHost(host, this, &TcpChannel::resolved);
}

void TcpChannel::resolved(const QHostInfo &info)
{
    m_lookupId = -1;
    if (info.error() != QHostInfo::NoError || info.addresses().isEmpty()) {
        fail(QStringLiteral("Host %1 not found").arg(m_host));
        return;
    }
    m_addresses = info.addresses();
    connectNext();
}

void TcpChannel::connectNext()
{
    close();
    if (m_addresses.isEmpty()) {
        fail(m_lastError == ECONNREFUSED ? QStringLiteral("Connection refused") : errnoText(m_lastError),
             m_lastError == ECONNREFUSED);
        return;
    }
    const QHostAddress address = m_addresses.takeFirst();
    sockaddr_storage storage{};
    socklen_t length = 0;
    if (address.protocol() == QAbstractSocket::IPv6Protocol) {
        auto &in6 = reinterpret_cast<sockaddr_in6 &>(storage);
        in6.sin6_family = AF_INET6;
        in6.sin6_port = htons(m_port);
        const Q_IPV6ADDR bytes = address.toIPv6Address();
        std::memcpy(&in6.sin6_addr, &bytes, sizeof bytes);
        in6.sin6_scope_id = address.scopeId().toUInt();
        length = sizeof in6;
    } else {
        auto &in4 = reinterpret_cast<sockaddr_in &>(storage);
        in4.sin_family = AF_INET;
        in4.sin_port = htons(m_port);
        in4.sin_addr.s_addr = htonl(address.toIPv4Address());
        length = sizeof in4;
    }
    m_fd = ::socket(storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (m_fd < 0) {
        m_lastError = errno;
        connectNext();
        return;
    }
    const int on = 1;
    ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    if (::connect(m_fd, reinterpret_cast<sockaddr *>(&storage), length) != 0 && errno != EINPROGRESS) {
        m_lastError = errno;
        connectNext();
        return;
    }
    m_connecting = true;
    watch();
    m_writeNotifier->setEnabled(true);
}

void TcpChannel::watch()
{
    m_readNotifier = std::make_unique<QSocketNotifier>(m_fd, QSocketNotifier::Read);
    m_writeNotifier = std::make_unique<QSocketNotifier>(m_fd, QSocketNotifier::Write);
    m_readNotifier->setEnabled(false);
    m_writeNotifier->setEnabled(false);
    connect(m_readNotifier.get(), &QSocketNotifier::activated, this, [this] { Q_EMIT readable(); });
    connect(m_writeNotifier.get(), &QSocketNotifier::activated, this, &TcpChannel::onWritable);
}

void TcpChannel::onWritable()
{
    if (!m_connecting) {
        Q_EMIT writable();
        return;
    }
    int error = 0;
    socklen_t length = sizeof error;
    ::getsockopt(m_fd, SOL_SOCKET, SO_ERROR, &error, &length);
    if (error != 0) {
        m_lastError = error;
        connectNext();
        return;
    }
    m_connecting = false;
    m_writeNotifier->setEnabled(false);
    m_readNotifier->setEnabled(true);
    Q_EMIT ready();
}

qint64 TcpChannel::write(const char *data, qint64 size, bool more)
{
    ssize_t sent = 0;
    do {
        sent = ::send(m_fd, data, std::size_t(size), MSG_NOSIGNAL | MSG_DONTWAIT | (more ? MSG_MORE : 0));
    } while (sent < 0 && errno == EINTR);
    if (sent >= 0)
        return sent;
    if (wouldBlock(errno))
        return 0;
    setFailure({errnoText(errno), false, {}});
    return -1;
}

qint64 TcpChannel::sendFile(int fileFd, qint64 offset, qint64 length)
{
    off_t position = off_t(offset);
    ssize_t sent = 0;
    BrokenPipeGuard guard;
    do {
        sent = ::sendfile(m_fd, fileFd, &position, std::size_t(length));
    } while (sent < 0 && errno == EINTR);
    const int error = errno;
    guard.takeBackSignal(); // raised with EPIPE, or with a partial send to a peer that closed
    errno = error;
    if (sent > 0)
        return sent;
    if (sent == 0)
        return -2; // the file ends before the slice does
    if (wouldBlock(errno))
        return 0;
    setFailure({errnoText(errno), false, {}});
    return -1;
}

qint64 TcpChannel::read(char *data, qint64 size)
{
    ssize_t got = 0;
    do {
        got = ::recv(m_fd, data, std::size_t(size), MSG_DONTWAIT);
    } while (got < 0 && errno == EINTR);
    if (got > 0)
        return got;
    if (got < 0 && wouldBlock(errno))
        return 0;
    if (got < 0)
        setFailure({errnoText(errno), false, {}});
    return -1;
}

void TcpChannel::watchWritable(bool on)
{
    if (m_writeNotifier && !m_connecting)
        m_writeNotifier->setEnabled(on);
}

void TcpChannel::fail(const QString &message, bool refused)
{
    setFailure({message, refused, {}});
    close();
    // Never from inside open(): whoever called it sees the failure as it sees every other.
    QMetaObject::invokeMethod(this, &TcpChannel::failed, Qt::QueuedConnection);
}

void TcpChannel::close()
{
    m_readNotifier.reset();
    m_writeNotifier.reset();
    m_connecting = false;
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
}

} // namespace multilane
