#include "HeaderLimitedServer.h"

#include "ReloadableTlsContext.h"
#include "ServiceMessages.h"
#include "TlsSession.h"

#include <algorithm>
#include <arpa/inet.h>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <netdb.h>
#include <poll.h>
#include <string_view>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace multilane {

namespace {

thread_local bool t_headBudgetExceeded = false;
thread_local bool t_headTimedOut = false;
thread_local bool t_closeAfterResponse = false;
thread_local bool t_bodyLeftUnread = false;

constexpr int IdlePollMs = 50; // how often an idle connection looks at stop()
// Before closing a connection the client is still sending on (a refused head, or a refused body
// beyond HttpBridge's drain): read and drop this much, so the close does not reset the
// connection and take the answer with it. A client that stops sending ends it at once.
constexpr int LingerMs = 5000; // long enough for a 64 MiB chunk on a busy machine
constexpr std::size_t LingerBytes = std::size_t(64) << 20;

// Waits until `fd` is ready for `events`; false on timeout or error.
bool waitFor(int fd, short events, int timeoutMs)
{
    pollfd entry{fd, events, 0};
    int ready = 0;
    do {
        ready = ::poll(&entry, 1, timeoutMs);
    } while (ready < 0 && errno == EINTR);
    return ready > 0;
}

int millisecondsOf(time_t seconds, time_t microseconds)
{
    return int(seconds * 1000 + microseconds / 1000);
}

void addressOf(int fd, bool peer, std::string &ip, int &port)
{
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    const int result = peer ? ::getpeername(fd, reinterpret_cast<sockaddr *>(&address), &length)
                            : ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length);
    if (result != 0)
        return;
    std::array<char, NI_MAXHOST> host{};
    std::array<char, NI_MAXSERV> service{};
    if (::getnameinfo(reinterpret_cast<sockaddr *>(&address), length, host.data(), socklen_t(host.size()),
                      service.data(), socklen_t(service.size()), NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
        ip = host.data();
        port = std::atoi(service.data());
    }
}

// httplib's socket stream (buffered reads, timeouts), plus a budget on the bytes handed to httplib
// between arm() and disarm(), i.e. while it reads a request's head.
class HeadCountingStream final : public httplib::Stream {
public:
    // tls: null for plain HTTP; otherwise the connection's session, its handshake done.
    HeadCountingStream(int fd, TlsSession *tls, int readTimeoutMs, int writeTimeoutMs, std::size_t budget,
                       int headTimeoutMs)
        : m_fd(fd)
        , m_tls(tls)
        , m_readTimeoutMs(readTimeoutMs)
        , m_writeTimeoutMs(writeTimeoutMs)
        , m_budget(budget)
        , m_headTimeoutMs(headTimeoutMs)
    {}

    void arm()
    {
        m_counting = true;
        m_answered = false;
        m_headBytes = 0;
        m_headDeadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(m_headTimeoutMs);
        t_headBudgetExceeded = false;
        t_headTimedOut = false;
        t_closeAfterResponse = false;
        t_bodyLeftUnread = false;
    }
    void disarm() { m_counting = false; }
    // The head is read: a body of this many bytes follows (0: none, or of a length not given).
    void expectBody(std::size_t bytes) { m_bodyLeft = bytes; }
    // The request is answered, its body read or not: the wait for the next request
    // (waitForRequest) and any drain before a close take any byte.
    void endRequest()
    {
        flushHeld();
        m_bodyLeft = 0;
        setLowWater(1);
    }

    bool is_readable() const override
    {
        flushHeld(); // a held "100 Continue" must reach the client before its body can come
        if (hasBuffered())
            return true;
        if (!m_counting)
            return waitFor(m_fd, POLLIN, m_readTimeoutMs);
        // While the head is read, no wait goes past its deadline.
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            m_headDeadline - std::chrono::steady_clock::now());
        if (left.count() > 0 && waitFor(m_fd, POLLIN, int(std::min<qint64>(left.count(), m_readTimeoutMs))))
            return true;
        // The deadline, not the per-read timeout, ended this wait. (Comparing the clock with the
        // deadline instead would miss it by the sub-millisecond the wait was rounded down.)
        t_headTimedOut = left.count() <= m_readTimeoutMs;
        return false;
    }
    bool is_writable() const override { return waitFor(m_fd, POLLOUT, m_writeTimeoutMs); }

    ssize_t read(char *ptr, size_t size) override
    {
        if (m_counting) {
            if (m_headBytes >= m_budget) {
                t_headBudgetExceeded = true;
                return -1;
            }
            size = std::min(size, m_budget - m_headBytes);
        }
        const ssize_t n = readBuffered(ptr, size);
        if (m_counting && n > 0)
            m_headBytes += std::size_t(n);
        else if (n > 0)
            m_bodyLeft -= std::min(m_bodyLeft, std::size_t(n));
        return n;
    }

    bool answered() const { return m_answered; }
    // Bytes of a next request already read ahead: a pipelining client waits for its answer, so
    // the socket alone would show nothing to read.
    bool hasBuffered() const { return m_offset < m_filled || (m_tls && m_tls->hasPending()); }

    ssize_t write(const char *ptr, size_t size) override
    {
        m_answered = true;
        if (m_tls)
            return writeTls(ptr, size);
        // httplib writes an answer's head and its body apart: two sends, two segments, and the
        // client woken twice, for every small file. The head is held for the body's first write
        // (and goes out before anything is read or waited for, or the request ends).
        const std::string_view data(ptr, size);
        if (m_held.empty() && size <= HeldAnswerLimit && data.starts_with("HTTP/1.") &&
            data.ends_with("\r\n\r\n")) {
            m_held.assign(data);
            return ssize_t(size);
        }
        if (!m_held.empty()) {
            if (m_held.size() + size <= HeldAnswerLimit) {
                m_held.append(data);
                return flushHeld() ? ssize_t(size) : -1;
            }
            if (!flushHeld())
                return -1;
        }
        return sendSome(ptr, size);
    }

    // Sends what write() held back; false if the connection broke.
    bool flushHeld() const
    {
        std::size_t done = 0;
        while (done < m_held.size()) {
            const ssize_t sent = sendSome(m_held.data() + done, m_held.size() - done);
            if (sent <= 0)
                break;
            done += std::size_t(sent);
        }
        const bool whole = done == m_held.size();
        m_held.clear();
        return whole;
    }

    ssize_t sendSome(const char *ptr, size_t size) const
    {
        // An answer fits the socket's buffer nearly always: send first, and wait (poll) only when
        // it is full, not before every send.
        ssize_t sent = 0;
        do {
            sent = ::send(m_fd, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
        } while (sent < 0 && errno == EINTR);
        if (sent >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            return sent;
        if (!is_writable())
            return -1;
        do {
            sent = ::send(m_fd, ptr, size, MSG_NOSIGNAL);
        } while (sent < 0 && errno == EINTR);
        return sent;
    }

    // httplib asks for both addresses with every request; a connection's never change.
    void get_remote_ip_and_port(std::string &ip, int &port) const override
    {
        if (m_remoteIp.empty())
            addressOf(m_fd, true, m_remoteIp, m_remotePort);
        ip = m_remoteIp;
        port = m_remotePort;
    }
    void get_local_ip_and_port(std::string &ip, int &port) const override
    {
        if (m_localIp.empty())
            addressOf(m_fd, false, m_localIp, m_localPort);
        ip = m_localIp;
        port = m_localPort;
    }
    socket_t socket() const override { return m_fd; }

private:
    // httplib reads a head one byte at a time and a body 4 KiB at a time: serve both from a
    // read-ahead buffer, so a read waits (poll) only when the socket has nothing and each recv()
    // takes up to 64 KiB, instead of a recv() and a poll() per 4 KiB (docs/performance.md).
    ssize_t readBuffered(char *ptr, size_t size)
    {
        if (m_offset == m_filled) {
            const ssize_t n = receive();
            if (n <= 0)
                return n;
            m_offset = 0;
            m_filled = std::size_t(n);
        }
        const std::size_t take = std::min(size, m_filled - m_offset);
        std::memcpy(ptr, m_buffer.get() + m_offset, take);
        m_offset += take;
        return ssize_t(take);
    }

    // What the socket (or the TLS session) has, waiting for it as is_readable() does.
    ssize_t receive()
    {
        flushHeld();
        for (;;) {
            ssize_t n = 0;
            if (m_tls) {
                TlsSession::Wait wait = TlsSession::Wait::Nothing;
                n = m_tls->readSome(m_buffer.get(), ReadAhead, wait);
                if (n >= 0 || wait == TlsSession::Wait::Nothing)
                    return n;
                // A TLS read may need to write (a key update); the write timeout bounds that.
                if (wait == TlsSession::Wait::Readable ? !is_readable() : !is_writable())
                    return -1;
                continue;
            }
            do {
                n = ::recv(m_fd, m_buffer.get(), ReadAhead, MSG_DONTWAIT);
            } while (n < 0 && errno == EINTR);
            if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
                return n;
            if (!waitForBody())
                return -1;
        }
    }

    // Within a body, the wait ends once a read-ahead's worth (or the rest of the body) is there,
    // not at each segment: many connections at a shaped rate each bring a few KiB at a time, and
    // a wake-up (a poll, a thread switched in) costs more than copying those bytes
    // (docs/performance.md). The read timeout still means no byte came: bytes below the mark when
    // it ends are progress, and are read.
    bool waitForBody()
    {
        setLowWater(int(std::clamp<std::size_t>(m_bodyLeft, 1, LowWater)));
        if (is_readable())
            return true;
        int pending = 0;
        return m_lowWater > 1 && ::ioctl(m_fd, FIONREAD, &pending) == 0 && pending > 0;
    }

    void setLowWater(int bytes)
    {
        if (bytes == m_lowWater || m_tls)
            return;
        if (::setsockopt(m_fd, SOL_SOCKET, SO_RCVLOWAT, &bytes, sizeof bytes) == 0)
            m_lowWater = bytes;
    }

    ssize_t writeTls(const char *ptr, size_t size)
    {
        for (;;) {
            TlsSession::Wait wait = TlsSession::Wait::Nothing;
            const ssize_t n = m_tls->writeSome(ptr, size, wait);
            if (n > 0 || wait == TlsSession::Wait::Nothing)
                return n > 0 ? n : -1;
            if (!waitFor(m_fd, wait == TlsSession::Wait::Readable ? POLLIN : POLLOUT, m_writeTimeoutMs))
                return -1;
        }
    }

    // Untouched, so not resident, on a connection that never sends a body.
    static constexpr std::size_t ReadAhead = 64 * 1024;
    static constexpr std::size_t LowWater = ReadAhead;

    int m_fd;
    TlsSession *m_tls;
    int m_readTimeoutMs;
    int m_writeTimeoutMs;
    std::size_t m_budget;
    int m_headTimeoutMs;
    std::chrono::steady_clock::time_point m_headDeadline;
    bool m_counting = false;
    bool m_answered = false; // something was written for the current request
    std::size_t m_headBytes = 0;
    std::unique_ptr<char[]> m_buffer{new char[ReadAhead]};
    std::size_t m_offset = 0;
    std::size_t m_filled = 0;
    std::size_t m_bodyLeft = 0; // of the current request's body, not yet handed to httplib
    int m_lowWater = 1;         // the socket's SO_RCVLOWAT
    static constexpr std::size_t HeldAnswerLimit = 16 * 1024;
    mutable std::string m_held; // an answer's head, waiting for its body (write())
    mutable std::string m_remoteIp;
    mutable int m_remotePort = 0;
    mutable std::string m_localIp;
    mutable int m_localPort = 0;
};

// httplib gives up without an answer when the request line alone is over the budget, or when the
// head timed out; the refusal is written here.
void answerHead(HeadCountingStream &stream, ProtocolErrorCode code, const QString &message,
                const QByteArray &statusLine)
{
    const ServiceResponse refusal = ServiceResponse::error(ProtocolError::make(code, message));
    const QByteArray head = statusLine + "\r\nContent-Type: " + refusal.contentType +
                            "\r\nContent-Length: " + QByteArray::number(refusal.body.size()) +
                            "\r\nConnection: close\r\n\r\n";
    const QByteArray whole = head + refusal.body;
    stream.write(whole.constData(), std::size_t(whole.size()));
    stream.flushHeld();
}

bool clientStillSending(int fd)
{
    int pending = 0;
    return ::ioctl(fd, FIONREAD, &pending) == 0 && pending > 0;
}

// Half-closes, then reads and drops what the client still sends (bounded, see LingerMs), so the
// kernel does not answer unread data with a reset before the client has read our answer.
void drainBriefly(int fd)
{
    ::shutdown(fd, SHUT_WR);
    std::array<char, 4096> sink{};
    std::size_t dropped = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(LingerMs);
    while (dropped < LingerBytes) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0 || !waitFor(fd, POLLIN, int(left.count())))
            break;
        const ssize_t n = ::recv(fd, sink.data(), sink.size(), 0);
        if (n <= 0)
            break;
        dropped += std::size_t(n);
    }
}

} // namespace

HeaderLimitedServer::HeaderLimitedServer(std::size_t headBudget, int headTimeoutMs,
                                         const ReloadableTlsContext *tls)
    : m_headBudget(headBudget)
    , m_headTimeoutMs(headTimeoutMs)
    , m_tls(tls)
{}

bool HeaderLimitedServer::headBudgetExceeded()
{
    return t_headBudgetExceeded;
}

void HeaderLimitedServer::closeAfterResponse(bool bodyLeftUnread)
{
    t_closeAfterResponse = true;
    t_bodyLeftUnread = t_bodyLeftUnread || bodyLeftUnread;
}

bool HeaderLimitedServer::setListenBacklog(int backlog)
{
    const socket_t listening = svr_sock_;
    return listening != INVALID_SOCKET && ::listen(listening, backlog) == 0; // listen() again resizes it
}

bool HeaderLimitedServer::waitForRequest(socket_t sock) const
{
    // Like httplib's keep_alive(): wait for the next request up to the idle timeout, in short
    // steps so that stop() is noticed.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(keep_alive_timeout_sec_);
    while (svr_sock_ != INVALID_SOCKET) {
        if (waitFor(sock, POLLIN, IdlePollMs))
            return true;
        if (std::chrono::steady_clock::now() >= deadline)
            return false;
    }
    return false;
}

bool HeaderLimitedServer::process_and_close_socket(socket_t sock)
{
    // The connection keeps the context it started with, should the certificate be reloaded meanwhile.
    const std::shared_ptr<ssl_ctx_st> context = m_tls ? m_tls->current() : nullptr;
    std::unique_ptr<TlsSession> tls;
    if (context) {
        tls = std::make_unique<TlsSession>(*context, sock);
        // The handshake comes before the first request's head and gets the same deadline: a client
        // trickling it is the same slowloris.
        if (!tls->accept(std::chrono::steady_clock::now() + std::chrono::milliseconds(m_headTimeoutMs))) {
            ::shutdown(sock, SHUT_RDWR);
            ::close(sock);
            return false;
        }
    }
    HeadCountingStream stream(sock, tls.get(), millisecondsOf(read_timeout_sec_, read_timeout_usec_),
                              millisecondsOf(write_timeout_sec_, write_timeout_usec_), m_headBudget,
                              m_headTimeoutMs);
    const auto drain = [&] {
        if (tls)
            tls->closeNotify();
        drainBriefly(sock);
    };
    bool ok = false;
    for (std::size_t left = keep_alive_max_count_; left > 0 && (stream.hasBuffered() || waitForRequest(sock));
         --left) {
        bool closed = false;
        stream.arm();
        ok = process_request(stream, left == 1, closed, [&stream](httplib::Request &request) {
            stream.disarm();
            stream.expectBody(
                std::size_t(std::strtoull(request.get_header_value("Content-Length").c_str(), nullptr, 10)));
            // Every answer is a few hundred bytes of JSON, or probe bytes that do not compress;
            // httplib would brotli them at quality 11 for any client that accepts br (Qt does),
            // at a cost in CPU far above what it saves (docs/performance.md).
            request.headers.erase("Accept-Encoding");
        });
        stream.endRequest();
        if (t_headBudgetExceeded) {
            if (!stream.answered())
                answerHead(stream, ProtocolErrorCode::HeadersTooLarge,
                           QStringLiteral("the request line is longer than this receiver reads; send a "
                                          "shorter path and query"),
                           "HTTP/1.1 431 Request Header Fields Too Large");
            drain();
            break;
        }
        if (t_headTimedOut) {
            if (!stream.answered())
                answerHead(stream, ProtocolErrorCode::RequestTimeout,
                           QStringLiteral("the request's head did not arrive within %1 ms; send it "
                                          "at once")
                               .arg(m_headTimeoutMs),
                           "HTTP/1.1 408 Request Timeout");
            drain(); // unread bytes at close() would reset the connection, answer and all
            break;
        }
        if (!ok || closed || t_closeAfterResponse) {
            if (t_bodyLeftUnread || clientStillSending(sock))
                drain();
            break;
        }
    }
    t_headBudgetExceeded = false;
    t_headTimedOut = false;
    t_closeAfterResponse = false;
    t_bodyLeftUnread = false;
    if (tls)
        tls->closeNotify();
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return ok;
}

} // namespace multilane
