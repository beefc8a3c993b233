#pragma once

#include "ByteChannel.h"
#include "HttpResponseParser.h"
#include "TcpInfo.h"
#include "WireMessage.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <memory>
#include <optional>

namespace multilane {

// One request as DirectConnection sends it: the head and a small body ready in memory, a file
// body by descriptor (owned by the caller, open for the whole exchange).
struct OutgoingRequest {
    QByteArray headAndBody;
    qint64 bodyInMemory = 0; // of headAndBody's bytes, the body's (the rest is the head)
    int fileFd = -1;
    qint64 fileOffset = 0;
    qint64 fileLength = 0;
    QString filePath; // for messages
    bool headRequest = false;
    int timeoutMs = 0; // no byte moving for this long ends the exchange without an answer
};

// One keep-alive HTTP/1.1 connection of DirectTransport: it opens its channel on the first
// request, writes the head and the body as fast as the channel takes them, reads the answer
// (also one that comes early, before the body is all sent: a refusal) and stays open for the
// next request when the answer allows it. Once a body is all written, one more request may go
// right behind it (HTTP/1.1 pipelining), so the connection does not idle for the round trip of
// the answer; the answers come in order, the one behind becomes the current one as the first
// is read, and if the connection ends first the request behind ends unanswered and retryable.
class DirectConnection : public QObject {
    Q_OBJECT
public:
    enum class State { New, Connecting, Busy, Idle, Closed };

    DirectConnection(std::unique_ptr<ByteChannel> channel, const QString &host, quint16 port,
                     QObject *parent = nullptr);
    ~DirectConnection() override;

    // Opens the channel with no request yet: warmed() once it is ready (an Idle connection),
    // finished() with no answer if it fails. A request started meanwhile goes once it is ready.
    void warm();
    void start(const OutgoingRequest &request);
    // The current request's body is all written and none waits behind it.
    bool takesRequestBehind() const;
    // Writes `request` behind the current one (takesRequestBehind() must hold).
    void startBehind(const OutgoingRequest &request);
    bool hasRequestBehind() const { return m_behind.has_value(); }
    // Ends the exchange at once: finished() with no answer, the connection closed. The other
    // request on it, if any, ends unanswered and retryable.
    void abort(const QString &why);
    void abortBehind(const QString &why);
    State state() const { return m_state; }
    // It carried an exchange before this one (a reused connection the server may have closed).
    bool wasReused() const { return m_exchanges > 1; }
    // What the kernel says of the connection; once closed, what it said just before.
    std::optional<TcpInfo::Reading> tcpReading() const;
    ByteChannel &channel() { return *m_channel; }

Q_SIGNALS:
    void warmed();
    void bytesSent(qint64 total); // of the body being written: the one behind, once there is one
    // The current exchange ended; reply says how. retryable: a reused connection ended before any
    // byte of an answer came (the server closed it while it was idle), so sending again on a new
    // connection is safe and cannot be a repeat the server has seen answered; or it was the other
    // request of a connection that ended for its partner. When the connection ends with a request
    // behind, finished() comes twice: the current one's, then the one behind's.
    void finished(const multilane::WireReply &reply, bool retryable);
    // An idle connection ended (the server closed it, or it broke); it is of no more use.
    void closed();

private:
    void onReady();
    void onFailed();
    void onReadable();
    struct Exchange {
        OutgoingRequest request;
        qint64 headSent = 0; // of headAndBody
        qint64 fileSent = 0;
        bool sendingDone = false;
    };
    Exchange &writing() { return m_behind ? *m_behind : m_current; }
    void pushRequest();
    void bodyUnreadable();
    void writeFailed();
    void endExchange(WireReply reply, bool keepOpen, bool retryable = false);
    // Ends both exchanges and the connection, the one behind with `behindReply`.
    void closeBoth(const WireReply &currentReply, bool currentRetryable, const WireReply &behindReply);
    void armWatchdog();
    static WireReply unansweredPartner();
    WireReply replyFromParser() const;
    void touch() { m_sinceProgress.start(); }
    void onWatchdog();
    void closeChannel();

    std::unique_ptr<ByteChannel> m_channel;
    QString m_host;
    quint16 m_port;
    State m_state = State::New;
    int m_exchanges = 0;
    Exchange m_current;
    std::optional<Exchange> m_behind;
    bool m_hasRequest = false; // started, not yet ended (a warming connection has none)
    std::unique_ptr<HttpResponseParser> m_parser;
    std::optional<TcpInfo::Reading> m_readingAtClose;
    QElapsedTimer m_sinceProgress;
    QTimer m_watchdog;
};

} // namespace multilane
