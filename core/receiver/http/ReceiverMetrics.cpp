#include "ReceiverMetrics.h"

#include "ProtocolService.h"
#include "UploadStore.h"

#include <QDateTime>
#include <httplib.h>

namespace multilane {

namespace {

using Kind = RouteLabel::Kind;

// Appends one metric family: the HELP and TYPE lines once, then its samples.
class MetricsText {
public:
    void family(const char *name, const char *type, const char *help)
    {
        m_text += "# HELP ";
        m_text += name;
        m_text += ' ';
        m_text += help;
        m_text += "\n# TYPE ";
        m_text += name;
        m_text += ' ';
        m_text += type;
        m_text += '\n';
    }
    // `labels` is the inside of {…}, already escaped; empty for none.
    void sample(const char *name, const QByteArray &labels, qint64 value)
    {
        m_text += name;
        if (!labels.isEmpty()) {
            m_text += '{';
            m_text += labels;
            m_text += '}';
        }
        m_text += ' ';
        m_text += QByteArray::number(value);
        m_text += '\n';
    }
    void single(const char *name, const char *type, const char *help, qint64 value)
    {
        family(name, type, help);
        sample(name, {}, value);
    }
    QByteArray text() const { return m_text; }

private:
    QByteArray m_text;
};

QByteArray label(const char *name, const QByteArray &value)
{
    QByteArray escaped = value;
    escaped.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
    return QByteArray(name) + "=\"" + escaped + '"';
}

QByteArray routeLabel(Kind route)
{
    return label("route", RouteLabel::name(route));
}

} // namespace

ReceiverMetrics::ReceiverMetrics(UploadStore *store)
    : m_store(store)
    , m_startTime(QDateTime::currentSecsSinceEpoch())
{}

int ReceiverMetrics::slotOf(int status)
{
    if (status < FirstStatus || status >= FirstStatus + StatusSlots)
        status = FirstStatus + StatusSlots - 1;
    return status - FirstStatus;
}

void ReceiverMetrics::countRequest(RouteLabel::Kind route, int status, qint64 bytesIn, qint64 bytesOut)
{
    const auto index = std::size_t(route);
    m_requests[index][std::size_t(slotOf(status))].fetch_add(1, std::memory_order_relaxed);
    if (bytesIn > 0)
        m_bytesIn[index].fetch_add(quint64(bytesIn), std::memory_order_relaxed);
    if (bytesOut > 0)
        m_bytesOut[index].fetch_add(quint64(bytesOut), std::memory_order_relaxed);
}

quint64 ReceiverMetrics::requests(RouteLabel::Kind route, int status) const
{
    return m_requests[std::size_t(route)][std::size_t(slotOf(status))].load(std::memory_order_relaxed);
}

quint64 ReceiverMetrics::requestsInClass(RouteLabel::Kind route, int statusClass) const
{
    quint64 total = 0;
    for (int status = statusClass * 100; status < statusClass * 100 + 100; ++status)
        total += requests(route, status);
    return total;
}

QByteArray ReceiverMetrics::render() const
{
    MetricsText out;
    out.family("multilane_build_info", "gauge", "Versions of this receiver; the value is always 1.");
    out.sample("multilane_build_info",
               label("version", ProtocolService::version().toUtf8()) + ',' +
                   label("httplib", CPPHTTPLIB_VERSION) + ',' + label("qt", qVersion()),
               1);
    out.single("multilane_start_time_seconds", "gauge", "When the receiver started, in Unix time.",
               m_startTime);

    out.family("multilane_http_requests_total", "counter", "Answered requests by route and HTTP status.");
    for (int route = 0; route < RouteLabel::KindCount; ++route) {
        for (int slot = 0; slot < StatusSlots; ++slot) {
            const quint64 count =
                m_requests[std::size_t(route)][std::size_t(slot)].load(std::memory_order_relaxed);
            if (count > 0)
                out.sample("multilane_http_requests_total",
                           routeLabel(Kind(route)) + ',' +
                               label("code", QByteArray::number(slot + FirstStatus)),
                           qint64(count));
        }
    }
    out.family("multilane_received_bytes_total", "counter", "Request body bytes read, by route.");
    for (int route = 0; route < RouteLabel::KindCount; ++route) {
        if (const quint64 bytes = m_bytesIn[std::size_t(route)].load(std::memory_order_relaxed))
            out.sample("multilane_received_bytes_total", routeLabel(Kind(route)), qint64(bytes));
    }
    out.family("multilane_sent_bytes_total", "counter", "Response body bytes sent, by route.");
    for (int route = 0; route < RouteLabel::KindCount; ++route) {
        if (const quint64 bytes = m_bytesOut[std::size_t(route)].load(std::memory_order_relaxed))
            out.sample("multilane_sent_bytes_total", routeLabel(Kind(route)), qint64(bytes));
    }

    out.family("multilane_chunks_total", "counter",
               "Chunk PUTs: stored (2xx) or refused (any error status, the body not kept).");
    out.sample("multilane_chunks_total", label("result", "stored"),
               qint64(requestsInClass(Kind::PutChunk, 2)));
    out.sample("multilane_chunks_total", label("result", "refused"),
               qint64(requestsInClass(Kind::PutChunk, 4) + requestsInClass(Kind::PutChunk, 5)));
    out.single("multilane_uploads_started_total", "counter",
               "Chunked uploads created (POST /v1/uploads, 201).", qint64(requests(Kind::CreateUpload, 201)));
    out.single("multilane_uploads_finished_total", "counter",
               "Chunked uploads completed and placed as files (POST …/complete answered 2xx, or a chunk "
               "whose answer completed its upload).",
               qint64(requestsInClass(Kind::CompleteUpload, 2) +
                      m_completedByChunk.load(std::memory_order_relaxed)));
    out.family("multilane_uploads_failed_total", "counter",
               "Chunked uploads that ended without a file: aborted by the client, or expired unfinished.");
    out.sample("multilane_uploads_failed_total", label("reason", "aborted"),
               qint64(requestsInClass(Kind::AbortUpload, 2)));
    out.sample("multilane_uploads_failed_total", label("reason", "expired"),
               qint64(m_expiredUploads.load(std::memory_order_relaxed)));
    out.single("multilane_files_stored_total", "counter", "Whole files stored by PUT /v1/files/… (2xx).",
               qint64(requestsInClass(Kind::PutFile, 2)));

    out.single("multilane_open_connections", "gauge", "Connections open on the upload ports now.",
               m_openConnections.load(std::memory_order_relaxed));
    out.single("multilane_busy_refusals_total", "counter",
               "Requests answered 503 busy because their port had --max-connections open.",
               qint64(m_busyRefusals.load(std::memory_order_relaxed)));

    const StorageSpace space = m_store ? m_store->space() : StorageSpace();
    if (space.freeBytes)
        out.single("multilane_storage_free_bytes", "gauge",
                   "Bytes the receiver may still write on the storage folder's file system.",
                   *space.freeBytes);
    if (space.totalBytes)
        out.single("multilane_storage_size_bytes", "gauge", "Size of the storage folder's file system.",
                   *space.totalBytes);
    return out.text();
}

} // namespace multilane
