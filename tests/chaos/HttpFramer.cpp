#include "HttpFramer.h"

#include <algorithm>
#include <limits>

namespace {

constexpr qsizetype MaxHeadBytes = 1 << 20;
constexpr qint64 UntilClose = std::numeric_limits<qint64>::max();

int statusOf(const QByteArray &startLine)
{
    // "HTTP/1.1 200 OK"
    const QList<QByteArray> parts = startLine.split(' ');
    return parts.size() >= 2 ? parts.at(1).toInt() : 0;
}

} // namespace

QList<HttpFramer::Event> HttpFramer::feed(const QByteArray &bytes)
{
    QList<Event> events;
    if (m_lost)
        return events;
    m_pending += bytes;
    bool progress = true;
    while (progress && !m_pending.isEmpty() && !m_lost) {
        switch (m_state) {
        case State::Head:
            progress = takeHead(events);
            break;
        case State::Body:
            progress = takeBody(events);
            break;
        default:
            progress = takeChunked(events);
            break;
        }
    }
    return events;
}

bool HttpFramer::takeHead(QList<Event> &events)
{
    const qsizetype end = m_pending.indexOf("\r\n\r\n");
    if (end < 0) {
        m_lost = m_pending.size() > MaxHeadBytes;
        return false;
    }
    Head head;
    head.headBytes = end + 4;
    const QList<QByteArray> lines = m_pending.left(end).split('\n');
    head.startLine = lines.value(0).trimmed();
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray &line = lines.at(i);
        const qsizetype colon = line.indexOf(':');
        if (colon < 0)
            continue;
        const QByteArray name = line.left(colon).trimmed().toLower();
        const QByteArray value = line.mid(colon + 1).trimmed();
        if (name == "content-length")
            head.contentLength = value.toLongLong();
        else if (name == "transfer-encoding" && value.toLower().contains("chunked"))
            head.chunked = true;
    }
    m_pending.remove(0, head.headBytes);
    events.append({Event::Kind::Head, head, {}});

    bool bodiless = false;
    if (m_direction == Direction::Answers) {
        const int status = statusOf(head.startLine);
        bodiless = (status >= 100 && status < 200) || status == 204 || status == 304;
        if (m_bodilessAnswers > 0 && status >= 200) {
            --m_bodilessAnswers;
            bodiless = true;
        }
    }
    if (bodiless || (!head.chunked && head.contentLength == 0) ||
        (m_direction == Direction::Requests && !head.chunked && head.contentLength < 0)) {
        endMessage(events);
    } else if (head.chunked) {
        m_state = State::ChunkSize;
    } else {
        m_state = State::Body;
        m_remaining = head.contentLength > 0 ? head.contentLength : UntilClose;
    }
    return true;
}

bool HttpFramer::takeBody(QList<Event> &events)
{
    const qint64 n = std::min<qint64>(m_remaining, m_pending.size());
    events.append({Event::Kind::Body, {}, m_pending.left(n)});
    m_pending.remove(0, n);
    if (m_remaining != UntilClose)
        m_remaining -= n;
    if (m_remaining == 0)
        endMessage(events);
    return true;
}

bool HttpFramer::takeChunked(QList<Event> &events)
{
    if (m_state == State::ChunkData) {
        const qint64 n = std::min<qint64>(m_remaining, m_pending.size());
        events.append({Event::Kind::Body, {}, m_pending.left(n)});
        m_pending.remove(0, n);
        m_remaining -= n;
        if (m_remaining == 0)
            m_state = State::ChunkEnd;
        return true;
    }
    const qsizetype eol = m_pending.indexOf("\r\n");
    if (eol < 0) {
        m_lost = m_pending.size() > MaxHeadBytes;
        return false;
    }
    const QByteArray line = m_pending.left(eol);
    events.append({Event::Kind::Body, {}, m_pending.left(eol + 2)});
    m_pending.remove(0, eol + 2);
    if (m_state == State::ChunkEnd) {
        m_state = State::ChunkSize;
    } else if (m_state == State::ChunkSize) {
        bool ok = false;
        m_remaining = line.split(';').value(0).trimmed().toLongLong(&ok, 16);
        m_lost = !ok;
        m_state = m_remaining > 0 ? State::ChunkData : State::Trailer;
    } else if (line.isEmpty()) { // the trailer's blank line ends the message
        endMessage(events);
    }
    return true;
}

void HttpFramer::endMessage(QList<Event> &events)
{
    events.append({Event::Kind::End, {}, {}});
    m_state = State::Head;
    m_remaining = 0;
}
