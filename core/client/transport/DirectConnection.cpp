#include "DirectConnection.h"

namespace multilane {

namespace {

// A connection hands the event loop back after this much of a body, so one fast connection
// does not starve the others (nor the answers waiting on them) for a whole chunk.
constexpr qint64 BytesPerTurn = 4 << 20;
constexpr qint64 ReadPiece = 64 * 1024;

} // namespace

DirectConnection::DirectConnection(std::unique_ptr<ByteChannel> channel, const QString &host, quint16 port,
                                   QObject *parent)
    : QObject(parent)
    , m_channel(std::move(channel))
    , m_host(host)
    , m_port(port)
{
    m_channel->setParent(nullptr);
    m_watchdog.setSingleShot(true);
    connect(&m_watchdog, &QTimer::timeout, this, &DirectConnection::onWatchdog);
    connect(m_channel.get(), &ByteChannel::ready, this, &DirectConnection::onReady);
    connect(m_channel.get(), &ByteChannel::failed, this, &DirectConnection::onFailed);
    connect(m_channel.get(), &ByteChannel::readable, this, &DirectConnection::onReadable);
    connect(m_channel.get(), &ByteChannel::writable, this, &DirectConnection::pushRequest);
}

DirectConnection::~DirectConnection()
{
    m_channel->disconnect(this);
    m_channel->close();
}

void DirectConnection::warm()
{
    if (m_state != State::New)
        return;
    m_state = State::Connecting;
    m_channel->open(m_host, m_port);
}

void DirectConnection::start(const OutgoingRequest &request)
{
    m_hasRequest = true;
    m_request = request;
    m_headSent = 0;
    m_fileSent = 0;
    m_sendingDone = false;
    m_parser = std::make_unique<HttpResponseParser>(request.headRequest);
    ++m_exchanges;
    touch();
    if (request.timeoutMs > 0)
        m_watchdog.start(request.timeoutMs);
    if (m_state == State::New) {
        m_state = State::Connecting;
        m_channel->open(m_host, m_port);
        return;
    }
    if (m_state == State::Connecting)
        return; // warming: it goes once the channel is ready
    m_state = State::Busy;
    pushRequest();
}

void DirectConnection::onReady()
{
    if (m_state != State::Connecting)
        return;
    if (!m_hasRequest) {
        // Open before its first request as a kept-alive one is: the same retry rule holds.
        m_exchanges = 1;
        m_state = State::Idle;
        Q_EMIT warmed();
        return;
    }
    touch();
    m_state = State::Busy;
    pushRequest();
}

void DirectConnection::onFailed()
{
    if (m_state != State::Connecting && m_state != State::Busy)
        return;
    WireReply reply;
    const ChannelFailure failure =
        m_channel->failure().value_or(ChannelFailure{QStringLiteral("the connection failed"), false, {}});
    reply.networkError = failure.message;
    if (!failure.tlsCode.isEmpty()) {
        reply.tlsFailure = failure.message;
        reply.tlsCode = failure.tlsCode;
    }
    endExchange(reply, false);
}

void DirectConnection::pushRequest()
{
    if (m_state != State::Busy || m_sendingDone)
        return;
    const OutgoingRequest &request = m_request;
    const qint64 headTotal = request.headAndBody.size();
    const qint64 headOnly = headTotal - request.bodyInMemory;
    qint64 movedThisTurn = 0;
    while (m_headSent < headTotal) {
        const qint64 n = m_channel->write(request.headAndBody.constData() + m_headSent,
                                          headTotal - m_headSent, request.fileLength > 0);
        if (n < 0)
            return writeFailed();
        if (n == 0)
            return m_channel->watchWritable(true);
        m_headSent += n;
        touch();
        if (request.bodyInMemory > 0 && m_headSent > headOnly) {
            Q_EMIT bytesSent(m_headSent - headOnly);
            if (m_state != State::Busy)
                return; // a receiver of the signal ended the exchange
        }
    }
    while (m_fileSent < request.fileLength) {
        if (movedThisTurn >= BytesPerTurn)
            return m_channel->watchWritable(true);
        const qint64 n = m_channel->sendFile(request.fileFd, request.fileOffset + m_fileSent,
                                             request.fileLength - m_fileSent);
        if (n == -2)
            return bodyUnreadable();
        if (n < 0)
            return writeFailed();
        if (n == 0)
            return m_channel->watchWritable(true);
        m_fileSent += n;
        movedThisTurn += n;
        touch();
        Q_EMIT bytesSent(m_fileSent);
        if (m_state != State::Busy)
            return;
    }
    m_sendingDone = true;
    m_channel->watchWritable(false);
}

void DirectConnection::bodyUnreadable()
{
    WireReply reply;
    reply.networkError = QStringLiteral("cannot read %1: it ended after %2 of the %3 bytes to send (did it "
                                        "change while it was sent?)")
                             .arg(m_request.filePath)
                             .arg(m_request.fileOffset + m_fileSent)
                             .arg(m_request.fileOffset + m_request.fileLength);
    reply.unreadableBody = reply.networkError;
    endExchange(reply, false);
}

void DirectConnection::writeFailed()
{
    // The server closed or reset the connection while we sent: it may have answered first (a
    // refusal before the body), and that answer is still to be read.
    m_channel->watchWritable(false);
    onReadable();
    if (m_state != State::Busy)
        return;
    m_parser->endOfStream();
    WireReply reply = replyFromParser();
    if (!m_parser->hasStatus()) {
        reply.networkError =
            m_channel->failure() ? m_channel->failure()->message : QStringLiteral("the connection broke");
    }
    endExchange(reply, false, !m_parser->hasStarted() && wasReused());
}

void DirectConnection::onReadable()
{
    char buffer[ReadPiece];
    for (;;) {
        const qint64 got = m_channel->read(buffer, ReadPiece);
        if (got == 0)
            return;
        if (got < 0 || m_state != State::Busy) {
            // The end of the connection, or bytes nobody asked for on an idle one.
            if (m_state == State::Busy) {
                m_parser->endOfStream();
                WireReply reply = replyFromParser();
                const bool started = m_parser->hasStarted();
                reply.closedUnanswered = !started;
                if (!started && m_channel->failure())
                    reply.networkError = m_channel->failure()->message;
                endExchange(reply, false, !started && wasReused());
            } else if (m_state == State::Idle) {
                closeChannel();
                m_state = State::Closed;
                Q_EMIT closed();
            }
            return;
        }
        touch();
        const qsizetype used = m_parser->feed(buffer, got);
        if (m_parser->hasFailed()) {
            endExchange(replyFromParser(), false);
            return;
        }
        if (m_parser->isDone()) {
            // An answer before the whole body was sent (a refusal) leaves the body's rest unsent,
            // and bytes after the answer were never asked for: the connection is out of step.
            endExchange(replyFromParser(), m_sendingDone && m_parser->keepsAlive() && used == got);
            return;
        }
    }
}

WireReply DirectConnection::replyFromParser() const
{
    WireReply reply;
    reply.httpStatus = m_parser->status();
    reply.reasonPhrase = m_parser->reasonPhrase();
    reply.headers = m_parser->headers();
    reply.body = m_parser->body();
    if (!m_parser->isDone()) {
        // As NetworkTransport::readReply: a refusal status is an answer whatever happened after
        // it; a success cut short, or no status at all, is no whole answer.
        const bool success = reply.httpStatus >= 200 && reply.httpStatus < 300;
        if (reply.httpStatus == 0 || success)
            reply.networkError =
                m_parser->problem().isEmpty() ? QStringLiteral("the connection closed") : m_parser->problem();
    }
    return reply;
}

void DirectConnection::abort(const QString &why)
{
    if (m_state != State::Busy && m_state != State::Connecting)
        return;
    WireReply reply;
    reply.networkError = why;
    endExchange(reply, false);
}

void DirectConnection::onWatchdog()
{
    if (m_state != State::Busy && m_state != State::Connecting)
        return;
    const qint64 left = m_request.timeoutMs - m_sinceProgress.elapsed();
    if (left > 0) {
        m_watchdog.start(int(left));
        return;
    }
    abort(QStringLiteral("no bytes moved for %1 ms; the request was given up").arg(m_request.timeoutMs));
}

void DirectConnection::endExchange(WireReply reply, bool keepOpen, bool retryable)
{
    m_watchdog.stop();
    m_parser.reset();
    m_request = {};
    m_hasRequest = false;
    if (keepOpen) {
        m_state = State::Idle;
    } else {
        closeChannel();
        m_state = State::Closed;
    }
    Q_EMIT finished(reply, retryable);
}

std::optional<TcpInfo::Reading> DirectConnection::tcpReading() const
{
    const int fd = m_channel->descriptor();
    return fd >= 0 ? TcpInfo::read(fd) : m_readingAtClose;
}

void DirectConnection::closeChannel()
{
    if (const int fd = m_channel->descriptor(); fd >= 0)
        m_readingAtClose = TcpInfo::read(fd);
    m_channel->watchWritable(false);
    m_channel->close();
}

} // namespace multilane
