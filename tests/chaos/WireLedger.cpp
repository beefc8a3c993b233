#include "WireLedger.h"

#include <QJsonDocument>
#include <QJsonObject>

WireLedger::WireLedger()
{
    m_clock.start();
}

WireLedger::Kind WireLedger::kindOf(const QByteArray &method, const QByteArray &target)
{
    const QByteArray path = target.split('?').value(0);
    if (path == "/v1/health")
        return Kind::Health;
    if (path == "/v1/discard" || path == "/v1/probe")
        return Kind::Probe;
    if (path.startsWith("/v1/files/") && method == "PUT")
        return Kind::WholeFile;
    if (path == "/v1/uploads" && method == "POST")
        return Kind::Create;
    if (!path.startsWith("/v1/uploads/"))
        return Kind::Other;
    const QList<QByteArray> parts = path.mid(12).split('/'); // {id}, {id}/chunks/{i}, {id}/complete
    if (parts.size() == 3 && parts.at(1) == "chunks" && method == "PUT")
        return Kind::Chunk;
    if (parts.size() == 2 && parts.at(1) == "complete" && method == "POST")
        return Kind::Complete;
    if (parts.size() == 1 && method == "GET")
        return Kind::Query;
    return Kind::Other;
}

QByteArray WireLedger::uploadIdOf(const Request &request)
{
    if (request.kind != Kind::Chunk && request.kind != Kind::Complete && request.kind != Kind::Query)
        return {};
    return request.target.mid(12).split('/').value(0);
}

QByteArray WireLedger::dataKey(const Request &request)
{
    if (request.kind == Kind::Chunk)
        return request.target.mid(12).replace("/chunks/", "/");
    return request.kind == Kind::WholeFile ? request.target.split('?').value(0) : QByteArray();
}

int WireLedger::open(int connection, int endpoint, const QByteArray &method, const QByteArray &target,
                     qint64 headBytes, qint64 bodyLength)
{
    Request request;
    request.id = int(m_requests.size());
    request.endpoint = endpoint;
    request.kind = kindOf(method, target);
    request.method = method;
    request.target = target;
    request.headBytes = headBytes;
    request.bodyLength = bodyLength;
    request.startedMs = nowMs();
    m_requests.append(request);
    if (connection < m_connectionsBeforeKill)
        m_inFlightAtKills.insert(request.id);
    m_wire += headBytes;
    Q_EMIT requestStarted(request.id);
    if (bodyLength <= 0)
        Q_EMIT requestSent(request.id);
    return request.id;
}

void WireLedger::addBody(int id, qint64 bytes)
{
    Request &request = m_requests[id];
    if (request.firstBodyMs < 0)
        request.firstBodyMs = nowMs();
    request.bodyBytes += bytes;
    m_wire += bytes;
    if (request.carriesData())
        m_data += bytes;
    if (request.bodyBytes == request.bodyLength)
        Q_EMIT requestSent(id);
}

void WireLedger::answer(int id, int status)
{
    if (m_requests.at(id).status != 0)
        return;
    m_requests[id].status = status;
    Q_EMIT answerStarted(id);
}

void WireLedger::addAnswerBody(int id, const QByteArray &bytes)
{
    QByteArray &body = m_requests[id].answerBody;
    body += bytes.left(65536 - body.size());
}

void WireLedger::answerPassedOn(int id)
{
    Request &request = m_requests[id];
    request.answeredMs = nowMs();
    if (request.kind != Kind::Create && request.kind != Kind::Query)
        return;
    const QJsonObject answer = QJsonDocument::fromJson(request.answerBody).object();
    const int chunks = answer.value(QLatin1String("chunkCount")).toInt(-1);
    if (chunks > 0)
        m_chunkCounts.insert(answer.value(QLatin1String("id")).toString().toLatin1(), chunks);
}

void WireLedger::killed(qint64 slackMs)
{
    const qint64 now = nowMs();
    m_connectionsBeforeKill = m_connections;
    for (const Request &request : std::as_const(m_requests)) {
        if (request.answeredMs < 0 || request.answeredMs > now - slackMs)
            m_inFlightAtKills.insert(request.id);
    }
}

qint64 WireLedger::firstDataByteSince(qint64 sinceMs) const
{
    qint64 first = -1;
    for (auto it = m_requests.crbegin(); it != m_requests.crend(); ++it) {
        if (it->startedMs < sinceMs - 60000)
            break; // requests are in start order: none this old starts a body after sinceMs
        if (it->carriesData() && it->firstBodyMs >= sinceMs && (first < 0 || it->firstBodyMs < first))
            first = it->firstBodyMs;
    }
    return first;
}

WireLedger::Totals WireLedger::totals() const
{
    Totals totals;
    QSet<QByteArray> arrived;
    QHash<QByteArray, int> lastStored; // by data key, the last request that stored it
    for (const Request &request : m_requests) {
        if (request.carriesData() && request.status >= 200 && request.status < 300)
            lastStored.insert(dataKey(request), request.id);
    }
    for (const Request &request : m_requests) {
        ++totals.requests;
        totals.wire += request.bytes();
        const bool stored = request.carriesData() && request.status >= 200 && request.status < 300;
        // A body a client kill caught whole in the buffers may still be stored after the kill,
        // once the restarted client has asked what is held: caught in flight all the same, and
        // the client has to send it again. Its first store is in flight, the next one the data.
        const bool storedAfterAKill = stored && m_inFlightAtKills.contains(request.id) &&
                                      lastStored.value(dataKey(request)) > request.id;
        if (stored && !storedAfterAKill && !arrived.contains(dataKey(request))) {
            // The first time this chunk or file was stored: the data, whatever a kill did after.
            arrived.insert(dataKey(request));
            totals.dataAnswered += request.bodyBytes;
            totals.control += request.headBytes;
        } else if (request.status == 0 || m_inFlightAtKills.contains(request.id)) {
            totals.inFlight += request.bytes();
            ++totals.inFlightRequests;
        } else if (request.kind == Kind::Probe) {
            totals.probe += request.bytes();
        } else if (request.carriesData()) {
            (stored ? totals.dataTwice : totals.dataRefused) += request.bodyBytes;
            totals.control += request.headBytes;
        } else {
            totals.control += request.bytes();
        }
    }
    return totals;
}
