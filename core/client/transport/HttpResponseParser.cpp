#include "HttpResponseParser.h"

#include <cstring>

namespace multilane {

namespace {

bool isToken(QByteArrayView name)
{
    if (name.isEmpty())
        return false;
    for (const char c : name) {
        if (c <= ' ' || c == ':' || c == 0x7f)
            return false;
    }
    return true;
}

bool hasToken(const QByteArray &list, QByteArrayView token)
{
    for (const QByteArray &item : list.split(',')) {
        if (item.trimmed().compare(token, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

} // namespace

HttpResponseParser::HttpResponseParser(bool headRequest)
    : m_headRequest(headRequest)
{}

QByteArray HttpResponseParser::header(QByteArrayView name) const
{
    for (const WireHeader &field : m_headers) {
        if (field.name.compare(name, Qt::CaseInsensitive) == 0)
            return field.value;
    }
    return {};
}

void HttpResponseParser::fail(const QString &why)
{
    m_state = State::Failed;
    m_problem = why;
}

qsizetype HttpResponseParser::feed(const char *data, qsizetype size)
{
    qsizetype used = 0;
    if (size > 0)
        m_started = true;
    while (used < size && m_state != State::Done && m_state != State::Failed) {
        switch (m_state) {
        case State::Body:
        case State::ChunkData:
            used += takeBody(data + used, size - used);
            break;
        default: {
            if (!takeLine(data, size, used))
                return used; // the line goes on in the next piece
            bool ok = true;
            if (m_state == State::StatusLine)
                ok = parseStatusLine();
            else if (m_state == State::HeaderLine)
                ok = parseHeaderLine();
            else if (m_state == State::ChunkSize)
                ok = parseChunkSize();
            else if (m_state == State::ChunkEnd) {
                ok = m_line.isEmpty();
                m_state = State::ChunkSize;
            } else if (m_state == State::Trailer && m_line.isEmpty()) {
                m_state = State::Done;
            }
            m_line.clear();
            if (!ok && m_state != State::Failed)
                fail(QStringLiteral("the answer is not valid HTTP/1.1"));
            break;
        }
        }
    }
    return used;
}

bool HttpResponseParser::takeLine(const char *data, qsizetype size, qsizetype &used)
{
    const char *start = data + used;
    const void *newline = std::memchr(start, '\n', std::size_t(size - used));
    const qsizetype take = newline ? static_cast<const char *>(newline) - start + 1 : size - used;
    m_headBytes += take;
    if (m_headBytes > MaxHeadBytes) {
        fail(QStringLiteral("the answer's head is longer than %1 bytes").arg(MaxHeadBytes));
        used = size;
        return false;
    }
    m_line.append(start, take);
    used += take;
    if (!newline)
        return false;
    m_line.chop(1);
    if (m_line.endsWith('\r'))
        m_line.chop(1);
    return true;
}

bool HttpResponseParser::parseStatusLine()
{
    // "HTTP/1.1 200 OK"; the reason phrase may be empty or missing.
    if (!m_line.startsWith("HTTP/1.") || m_line.size() < 12 || m_line.at(8) != ' ')
        return false;
    m_http10 = m_line.at(7) == '0';
    bool ok = false;
    const int status = m_line.mid(9, 3).toInt(&ok);
    if (!ok || status < 100 || status > 999 || (m_line.size() > 12 && m_line.at(12) != ' '))
        return false;
    m_status = status;
    m_reason = m_line.mid(13);
    m_headers.clear();
    m_state = State::HeaderLine;
    return true;
}

bool HttpResponseParser::parseHeaderLine()
{
    if (m_line.isEmpty()) {
        beginBody();
        return true;
    }
    const qsizetype colon = m_line.indexOf(':');
    if (colon <= 0 || !isToken(QByteArrayView(m_line).first(colon)))
        return false;
    m_headers.append({m_line.left(colon), m_line.mid(colon + 1).trimmed()});
    return true;
}

void HttpResponseParser::beginBody()
{
    if (m_status >= 100 && m_status < 200 && m_status != 101) {
        // An interim answer (100 Continue): the real one follows.
        m_status = 0;
        m_headBytes = 0;
        m_state = State::StatusLine;
        return;
    }
    const QByteArray connection = header("Connection");
    m_keepAlive = m_http10 ? hasToken(connection, "keep-alive") : !hasToken(connection, "close");
    if (m_headRequest || m_status == 204 || m_status == 304) {
        m_state = State::Done;
        return;
    }
    if (hasToken(header("Transfer-Encoding"), "chunked")) {
        m_state = State::ChunkSize;
        return;
    }
    const QByteArray length = header("Content-Length");
    if (length.isEmpty()) {
        m_bodyToClose = true;
        m_remaining = MaxBodyBytes + 1;
        m_state = State::Body;
        return;
    }
    bool ok = false;
    m_remaining = length.toLongLong(&ok);
    if (!ok || m_remaining < 0)
        return fail(QStringLiteral("the answer's Content-Length '%1' is not a length")
                        .arg(QString::fromLatin1(length.left(40))));
    if (m_remaining > MaxBodyBytes)
        return fail(QStringLiteral("the answer's body (%1 bytes) is longer than %2 bytes")
                        .arg(m_remaining)
                        .arg(MaxBodyBytes));
    m_state = m_remaining == 0 ? State::Done : State::Body;
}

qsizetype HttpResponseParser::takeBody(const char *data, qsizetype size)
{
    const qsizetype take = qsizetype(std::min<qint64>(size, m_remaining));
    if (m_body.size() + take > MaxBodyBytes) {
        fail(QStringLiteral("the answer's body is longer than %1 bytes").arg(MaxBodyBytes));
        return size;
    }
    m_body.append(data, take);
    m_remaining -= take;
    if (m_remaining == 0)
        m_state = m_state == State::ChunkData ? State::ChunkEnd : State::Done;
    return take;
}

bool HttpResponseParser::parseChunkSize()
{
    // "1a3f;extension=value": the size in hex, extensions ignored.
    const qsizetype end = m_line.indexOf(';');
    bool ok = false;
    const qint64 size = (end < 0 ? m_line : m_line.left(end)).trimmed().toLongLong(&ok, 16);
    if (!ok || size < 0 || size > MaxBodyBytes)
        return false;
    m_remaining = size;
    m_state = size == 0 ? State::Trailer : State::ChunkData;
    return true;
}

void HttpResponseParser::endOfStream()
{
    if (m_state == State::Body && m_bodyToClose) {
        m_state = State::Done;
        return;
    }
    if (m_state != State::Done && m_state != State::Failed)
        fail(m_started ? QStringLiteral("the connection closed before the answer was whole")
                       : QStringLiteral("the server closed the connection without answering"));
}

} // namespace multilane
