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
    m_current = Exchange{request};
    m_behind.clear();
    m_parser = std::make_unique<HttpResponseParser>(request.headRequest);
    ++m_exchanges;
    touch();
    armWatchdog();
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

bool DirectConnection::takesRequestBehind() const
{
    return m_state == State::Busy && writing().sendingDone && int(m_behind.size()) < MaxBehind;
}

void DirectConnection::startBehind(const OutgoingRequest &request)
{
    Q_ASSERT(takesRequestBehind());
    m_behind.push_back(Exchange{request});
    ++m_exchanges;
    touch();
    pushRequest();
}

void DirectConnection::armWatchdog()
{
    if (m_current.request.timeoutMs > 0)
        m_watchdog.start(m_current.request.timeoutMs);
    else
        m_watchdog.stop();
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
    if (m_state != State::Busy || writing().sendingDone)
        return;
    // A receiver of bytesSent may end or replace the exchange: each turn checks it is still the
    // one being written.
    Exchange *exchange = &writing();
    const auto stillWriting = [this, exchange] { return m_state == State::Busy && &writing() == exchange; };
    const OutgoingRequest &request = exchange->request;
    const qint64 headTotal = request.headAndBody.size();
    const qint64 headOnly = headTotal - request.bodyInMemory;
    qint64 movedThisTurn = 0;
    while (exchange->headSent < headTotal) {
        const qint64 n = m_channel->write(request.headAndBody.constData() + exchange->headSent,
                                          headTotal - exchange->headSent, request.fileLength > 0);
        if (n < 0)
            return writeFailed();
        if (n == 0)
            return m_channel->watchWritable(true);
        exchange->headSent += n;
        touch();
        if (request.bodyInMemory > 0 && exchange->headSent > headOnly) {
            Q_EMIT bytesSent(exchange->headSent - headOnly);
            if (!stillWriting())
                return;
        }
    }
    while (exchange->fileSent < request.fileLength) {
        if (movedThisTurn >= BytesPerTurn)
            return m_channel->watchWritable(true);
        const qint64 n = m_channel->sendFile(request.fileFd, request.fileOffset + exchange->fileSent,
                                             request.fileLength - exchange->fileSent);
        if (n == -2)
            return bodyUnreadable();
        if (n < 0)
            return writeFailed();
        if (n == 0)
            return m_channel->watchWritable(true);
        exchange->fileSent += n;
        movedThisTurn += n;
        touch();
        Q_EMIT bytesSent(exchange->fileSent);
        if (!stillWriting())
            return;
    }
    exchange->sendingDone = true;
    m_channel->watchWritable(false);
}

void DirectConnection::bodyUnreadable()
{
    const Exchange &exchange = writing();
    WireReply reply;
    reply.networkError = QStringLiteral("cannot read %1: it ended after %2 of the %3 bytes to send (did it "
                                        "change while it was sent?)")
                             .arg(exchange.request.filePath)
                             .arg(exchange.request.fileOffset + exchange.fileSent)
                             .arg(exchange.request.fileOffset + exchange.request.fileLength);
    reply.unreadableBody = reply.networkError;
    if (!m_behind.empty())
        closeAll(unansweredPartner(), true, int(m_behind.size()) - 1, reply); // the others were sent whole
    else
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
        qsizetype offset = 0;
        while (offset < got) {
            const qsizetype used = m_parser->feed(buffer + offset, got - offset);
            offset += used;
            if (m_parser->hasFailed()) {
                endExchange(replyFromParser(), false);
                return;
            }
            if (!m_parser->isDone())
                break;
            // An answer before the whole body was sent (a refusal) leaves the body's rest unsent,
            // and bytes after the answer were never asked for, unless a request waits behind:
            // they are the start of its answer. Otherwise the connection is out of step.
            const bool inStep =
                m_current.sendingDone && m_parser->keepsAlive() && (offset == got || !m_behind.empty());
            const bool behind = !m_behind.empty();
            endExchange(replyFromParser(), inStep);
            if (!inStep || !behind || m_state != State::Busy)
                return; // ended, or a receiver of finished() ended the one behind too
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

void DirectConnection::abortBehind(int index, const QString &why)
{
    if (m_state != State::Busy || index < 0 || index >= int(m_behind.size()))
        return;
    // Its bytes are on the wire behind the current request's: only closing takes them back.
    WireReply reply;
    reply.networkError = why;
    closeAll(unansweredPartner(), true, index, reply);
}

WireReply DirectConnection::unansweredPartner()
{
    WireReply reply;
    reply.networkError = QStringLiteral("the connection it shared with another request was closed");
    reply.closedUnanswered = true;
    return reply;
}

void DirectConnection::onWatchdog()
{
    if (m_state != State::Busy && m_state != State::Connecting)
        return;
    const int timeoutMs = m_current.request.timeoutMs;
    const qint64 left = timeoutMs - m_sinceProgress.elapsed();
    if (left > 0) {
        m_watchdog.start(int(left));
        return;
    }
    abort(QStringLiteral("no bytes moved for %1 ms; the request was given up").arg(timeoutMs));
}

void DirectConnection::endExchange(WireReply reply, bool keepOpen, bool retryable)
{
    if (!keepOpen && !m_behind.empty()) {
        // The requests behind never had an answer started: they end with the connection.
        closeAll(reply, retryable);
        return;
    }
    m_watchdog.stop();
    if (keepOpen && !m_behind.empty()) {
        // The answer is in; the first request behind it is now the current one.
        m_current = std::move(m_behind.front());
        m_behind.pop_front();
        m_parser = std::make_unique<HttpResponseParser>(m_current.request.headRequest);
        touch();
        armWatchdog();
        Q_EMIT finished(reply, retryable);
        return;
    }
    m_parser.reset();
    m_current = {};
    m_hasRequest = false;
    if (keepOpen) {
        m_state = State::Idle;
    } else {
        closeChannel();
        m_state = State::Closed;
    }
    Q_EMIT finished(reply, retryable);
}

void DirectConnection::closeAll(const WireReply &currentReply, bool currentRetryable, int failedBehind,
                                const WireReply &behindReply)
{
    const int behind = int(m_behind.size());
    m_watchdog.stop();
    m_parser.reset();
    m_current = {};
    m_behind.clear();
    m_hasRequest = false;
    closeChannel();
    m_state = State::Closed;
    // A request behind another had no answer begun: sending it again cannot repeat one.
    Q_EMIT finished(currentReply, currentRetryable);
    const WireReply partner = unansweredPartner();
    for (int i = 0; i < behind; ++i) {
        const WireReply &reply = i == failedBehind ? behindReply : partner;
        Q_EMIT finished(reply, reply.closedUnanswered);
    }
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
