#pragma once

#include "WireMessage.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace multilane {

// Reads one HTTP/1.1 response from the bytes of a connection as they come, in any pieces: the
// status line, the header fields, and a body framed by Content-Length, by chunked transfer
// coding or by the end of the connection. Interim 1xx answers are skipped. What it accepts is
// bounded (head and body sizes), so a hostile or broken server cannot make it hold gigabytes.
class HttpResponseParser {
public:
    static constexpr qsizetype MaxHeadBytes = 64 * 1024;
    // Answers are JSON or XML; S3's longest (a ListParts page of 1,000 parts) is well below this.
    static constexpr qint64 MaxBodyBytes = 64 << 20;

    // headRequest: the answer to a HEAD carries no body whatever its Content-Length says.
    explicit HttpResponseParser(bool headRequest = false);

    // Takes bytes that arrived; returns how many belong to this response (the rest would be the
    // start of something the server should not have sent yet). Stops at the end of the response
    // or at the first malformed byte.
    qsizetype feed(const char *data, qsizetype size);
    // The connection ended: completes a body that runs to the end of the connection; anything
    // else unfinished is cut short.
    void endOfStream();

    bool isDone() const { return m_state == State::Done; }
    bool hasFailed() const { return m_state == State::Failed; }
    // Why it failed (malformed, too big, cut short); empty otherwise.
    const QString &problem() const { return m_problem; }
    // Some byte of a response arrived (a connection closed before that was closed unanswered).
    bool hasStarted() const { return m_started; }
    bool hasStatus() const { return m_status != 0; }
    int status() const { return m_status; }
    const QByteArray &reasonPhrase() const { return m_reason; }
    const QList<WireHeader> &headers() const { return m_headers; }
    const QByteArray &body() const { return m_body; }
    // Whether the connection may carry another request after this response.
    bool keepsAlive() const { return m_keepAlive && !m_bodyToClose; }

private:
    enum class State { StatusLine, HeaderLine, Body, ChunkSize, ChunkData, ChunkEnd, Trailer, Done, Failed };

    bool takeLine(const char *data, qsizetype size, qsizetype &used);
    bool parseStatusLine();
    bool parseHeaderLine();
    void beginBody();
    qsizetype takeBody(const char *data, qsizetype size);
    bool parseChunkSize();
    void fail(const QString &why);
    QByteArray header(QByteArrayView name) const;

    bool m_headRequest;
    State m_state = State::StatusLine;
    QString m_problem;
    QByteArray m_line;
    qsizetype m_headBytes = 0;
    bool m_started = false;
    int m_status = 0;
    bool m_http10 = false;
    QByteArray m_reason;
    QList<WireHeader> m_headers;
    QByteArray m_body;
    qint64 m_remaining = 0; // of the body (Content-Length) or of the current chunk
    bool m_keepAlive = true;
    bool m_bodyToClose = false; // no length given: the body ends with the connection
};

} // namespace multilane
