#pragma once

#include "ByteChannel.h"
#include "HttpResponseParser.h"
#include "TcpInfo.h"
#include "WireMessage.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <deque>
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
// next request when the answer allows it. Once a body is all written, more requests may go
// right behind it (HTTP/1.1 pipelining), so the connection does not idle for the round trip of
// the answer; the answers come in order, the first behind becomes the current one as the
// current one's answer is read, and if the connection ends first the requests behind end
// unanswered and retryable. How deep to pipeline is the caller's choice (a link's round trip
// times a connection's rate), within MaxBehind.
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
    static constexpr int MaxBehind = 64;
    // The body written last is all written, and fewer than MaxBehind requests wait behind the
    // current one.
    bool takesRequestBehind() const;
    // Writes `request` behind the last one (takesRequestBehind() must hold).
    void startBehind(const OutgoingRequest &request);
    int requestsBehind() const { return int(m_behind.size()); }
    // Ends the exchange at once: finished() with no answer, the connection closed. The other
    // requests on it, if any, end unanswered and retryable.
    void abort(const QString &why);
    // Ends the request `index` places behind the current one with `why`: only closing the
    // connection takes its bytes back, so all the others end too, unanswered and retryable.
    void abortBehind(int index, const QString &why);
    State state() const { return m_state; }
    // It carried an exchange before this one (a reused connection the server may have closed).
    bool wasReused() const { return m_exchanges > 1; }
    // What the kernel says of the connection; once closed, what it said just before.
    std::optional<TcpInfo::Reading> tcpReading() const;
    ByteChannel &channel() { return *m_channel; }

Q_SIGNALS:
    void warmed();
    void bytesSent(qint64 total); // of the body being written: the last one behind, once there is one
    // The current exchange ended; reply says how. retryable: a reused connection ended before any
    // byte of an answer came (the server closed it while it was idle), so sending again on a new
    // connection is safe and cannot be a repeat the server has seen answered; or it was another
    // request of a connection that ended for its partner. When the connection ends with requests
    // behind, finished() comes once for each, in order: the current one's, then those behind.
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
    Exchange &writing() { return m_behind.empty() ? m_current : m_behind.back(); }
    const Exchange &writing() const { return m_behind.empty() ? m_current : m_behind.back(); }
    void pushRequest();
    void bodyUnreadable();
    void writeFailed();
    void endExchange(WireReply reply, bool keepOpen, bool retryable = false);
    // Ends every exchange and the connection: the current one with `currentReply`, those behind
    // unanswered and retryable but the one at `failedBehind`, which ends with `behindReply`.
    void closeAll(const WireReply &currentReply, bool currentRetryable, int failedBehind = -1,
                  const WireReply &behindReply = {});
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
    std::deque<Exchange> m_behind; // sent behind the current one, in the order of their answers
    bool m_hasRequest = false;     // started, not yet ended (a warming connection has none)
    std::unique_ptr<HttpResponseParser> m_parser;
    std::optional<TcpInfo::Reading> m_readingAtClose;
    QElapsedTimer m_sinceProgress;
    QTimer m_watchdog;
};

} // namespace multilane
