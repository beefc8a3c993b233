#pragma once

#include "ByteChannel.h"
#include "HttpResponseParser.h"
#include "TcpInfo.h"
#include "WireMessage.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <memory>

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

// One keep-alive HTTP/1.1 connection of DirectTransport, carrying one request at a time: it
// opens its channel on the first request, writes the head and the body as fast as the channel
// takes them, reads the answer (also one that comes early, before the body is all sent: a
// refusal) and stays open for the next request when the answer allows it.
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
    // Ends the exchange at once: finished() with no answer, the connection closed.
    void abort(const QString &why);
    State state() const { return m_state; }
    // It carried an exchange before this one (a reused connection the server may have closed).
    bool wasReused() const { return m_exchanges > 1; }
    // What the kernel says of the connection; once closed, what it said just before.
    std::optional<TcpInfo::Reading> tcpReading() const;
    ByteChannel &channel() { return *m_channel; }

Q_SIGNALS:
    void warmed();
    void bytesSent(qint64 total); // of the body
    // The exchange ended; reply says how. retryable: a reused connection ended before any byte
    // of an answer came (the server closed it while it was idle), so sending again on a new
    // connection is safe and cannot be a repeat the server has seen answered.
    void finished(const multilane::WireReply &reply, bool retryable);
    // An idle connection ended (the server closed it, or it broke); it is of no more use.
    void closed();

private:
    void onReady();
    void onFailed();
    void onReadable();
    void pushRequest();
    void bodyUnreadable();
    void writeFailed();
    void endExchange(WireReply reply, bool keepOpen, bool retryable = false);
    WireReply replyFromParser() const;
    void touch() { m_sinceProgress.start(); }
    void onWatchdog();
    void closeChannel();

    std::unique_ptr<ByteChannel> m_channel;
    QString m_host;
    quint16 m_port;
    State m_state = State::New;
    int m_exchanges = 0;
    OutgoingRequest m_request;
    qint64 m_headSent = 0; // of headAndBody
    qint64 m_fileSent = 0;
    bool m_sendingDone = false;
    bool m_hasRequest = false; // started, not yet ended (a warming connection has none)
    std::unique_ptr<HttpResponseParser> m_parser;
    std::optional<TcpInfo::Reading> m_readingAtClose;
    QElapsedTimer m_sinceProgress;
    QTimer m_watchdog;
};

} // namespace multilane
