#pragma once

#include <QByteArray>
#include <QList>

// Cuts one direction of an HTTP/1.1 connection into messages, incrementally, so a proxy can
// tell where each request or answer starts and ends without holding it: heads end at a blank
// line, bodies are Content-Length bytes or chunked. Answers to HEAD and 1xx/204/304 answers have
// no body; the caller says which requests were HEADs through expectNoBody().
class HttpFramer {
public:
    enum class Direction { Requests, Answers };
    struct Head {
        QByteArray startLine;      // "PUT /v1/… HTTP/1.1" or "HTTP/1.1 200 OK"
        qint64 headBytes = 0;      // the start line and headers with their blank line
        qint64 contentLength = -1; // -1: none given
        bool chunked = false;
    };
    // What one feed() found, in stream order.
    struct Event {
        enum class Kind { Head, Body, End } kind = Kind::Head;
        Head head;       // Kind::Head
        QByteArray body; // Kind::Body: a piece of the message body (as sent, chunk framing included)
    };

    explicit HttpFramer(Direction direction)
        : m_direction(direction)
    {}

    QList<Event> feed(const QByteArray &bytes);
    // The next answer belongs to a HEAD request (Answers only).
    void expectNoBody() { ++m_bodilessAnswers; }
    // Bytes that could not be framed (a malformed head): the rest of the stream is not understood.
    bool isLost() const { return m_lost; }

private:
    enum class State { Head, Body, ChunkSize, ChunkData, ChunkEnd, Trailer };
    bool takeHead(QList<Event> &events);
    bool takeBody(QList<Event> &events);
    bool takeChunked(QList<Event> &events);
    void endMessage(QList<Event> &events);

    Direction m_direction;
    State m_state = State::Head;
    QByteArray m_pending;
    qint64 m_remaining = 0;
    int m_bodilessAnswers = 0;
    bool m_lost = false;
};
