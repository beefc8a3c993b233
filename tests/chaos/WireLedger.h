#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>

// Every request a client put on the wire, as the far end of the link saw it: its bytes, whether
// an answer came and when it was passed on, so a test can tell the bytes a kill cut off (in
// flight then: no answer had reached the client) from bytes paid twice although the client had
// its answer (a chunk sent again, a probe).
class WireLedger : public QObject {
    Q_OBJECT
public:
    enum class Kind { Health, Create, Query, Chunk, Complete, WholeFile, Probe, Other };
    struct Request {
        int id = -1;
        int endpoint = -1;
        Kind kind = Kind::Other;
        QByteArray method;
        QByteArray target; // path and query
        qint64 headBytes = 0;
        qint64 bodyLength = -1; // Content-Length
        qint64 bodyBytes = 0;   // seen so far
        int status = 0;         // 0: no answer (yet)
        qint64 startedMs = 0;
        qint64 firstBodyMs = -1;
        qint64 answeredMs = -1; // the whole answer was passed on to the client
        QByteArray answerBody;  // the first 64 KiB of the answer (create answers are read)
        qint64 bytes() const { return headBytes + bodyBytes; }
        bool carriesData() const { return kind == Kind::Chunk || kind == Kind::WholeFile; }
    };
    // Where every byte went; they add up to `wire`.
    struct Totals {
        qint64 wire = 0;         // every byte of every request
        qint64 dataAnswered = 0; // chunk and whole-file bodies the first time each was stored (2xx)
        // Requests a kill caught in flight (no answer had reached the client), or that never got
        // one, other than a first store: the bytes the kills cost.
        qint64 inFlight = 0;
        qint64 dataTwice = 0;   // bodies stored again, not in flight at a kill: paid twice for nothing
        qint64 dataRefused = 0; // bodies answered otherwise, not in flight at a kill
        qint64 probe = 0;       // link probes (PUT /v1/discard, GET /v1/probe)
        qint64 control = 0;     // everything else: heads, creates, queries, completes, checks
        int requests = 0;
        int inFlightRequests = 0;
    };

    WireLedger();

    qint64 nowMs() const { return m_clock.elapsed(); }
    static Kind kindOf(const QByteArray &method, const QByteArray &target);
    // "<upload id>/<index>" for a chunk, the path for a whole file: what must arrive only once.
    static QByteArray dataKey(const Request &request);

    // A client's connection through the link: its number, for open().
    int connectionOpened() { return m_connections++; }
    int open(int connection, int endpoint, const QByteArray &method, const QByteArray &target,
             qint64 headBytes, qint64 bodyLength);
    void addBody(int id, qint64 bytes);
    void answer(int id, int status);
    void addAnswerBody(int id, const QByteArray &bytes);
    void answerPassedOn(int id);
    // A kill now: every request started and not answered to the client `slackMs` before counts as
    // in flight (the answer still had to cross the link back, or be read), and so does every
    // request that comes later on a connection opened before: the killed client wrote it, and it
    // waited in the kernel's buffers (the link reads no faster than it carries).
    void killed(qint64 slackMs);

    const Request &request(int id) const { return m_requests.at(id); }
    // The chunk count of an upload, once its create or query answer said it.
    int chunkCountOf(const QByteArray &uploadId) const { return m_chunkCounts.value(uploadId, -1); }
    static QByteArray uploadIdOf(const Request &request); // of a chunk, query or complete
    qint64 wireBytes() const { return m_wire; }
    qint64 dataBytes() const { return m_data; } // body bytes of chunk and whole-file requests
    // When the first data body byte came at or after `sinceMs`, or -1.
    qint64 firstDataByteSince(qint64 sinceMs) const;
    Totals totals() const;

Q_SIGNALS:
    void requestStarted(int id); // its head is in
    void requestSent(int id);    // its whole body is in
    void answerStarted(int id);  // the answer's head came back (not yet passed on)

private:
    QElapsedTimer m_clock;
    QList<Request> m_requests;
    QSet<int> m_inFlightAtKills;
    int m_connections = 0;
    int m_connectionsBeforeKill = 0; // connections numbered below this were open at the last kill
    QHash<QByteArray, int> m_chunkCounts;
    qint64 m_wire = 0;
    qint64 m_data = 0;
};
