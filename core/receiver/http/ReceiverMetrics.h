#pragma once

#include "RouteLabel.h"

#include <QByteArray>
#include <QString>
#include <QtGlobal>
#include <array>
#include <atomic>

namespace multilane {

class UploadStore;

// The receiver's counters for GET /metrics (Prometheus text format, docs/admin.md). Server threads
// update them with relaxed atomic adds, a handful per request and none per body byte; render()
// reads them at scrape time and derives the chunk and upload counts from the per-route statuses.
class ReceiverMetrics {
public:
    // `store`, when given (it must outlive this), supplies the storage gauges.
    explicit ReceiverMetrics(UploadStore *store = nullptr);

    // One finished request (after its response was written).
    void countRequest(RouteLabel::Kind route, int status, qint64 bytesIn, qint64 bytesOut);
    // A chunk's answer completed its upload (X-Complete-SHA256): a finished upload without a
    // complete request.
    void countUploadCompletedByChunk() { m_completedByChunk.fetch_add(1, std::memory_order_relaxed); }
    // A connection turned away with 503 because the port had --max-connections open.
    void countBusyRefusal() { m_busyRefusals.fetch_add(1, std::memory_order_relaxed); }
    // Unfinished uploads one pass of the expiry sweep removed.
    void countExpiredUploads(qint64 count)
    {
        m_expiredUploads.fetch_add(quint64(count), std::memory_order_relaxed);
    }
    // Open connections across the listening ports; ConnectionQueue moves it.
    std::atomic<int> &openConnections() { return m_openConnections; }

    quint64 requests(RouteLabel::Kind route, int status) const;
    QByteArray render() const;

private:
    static constexpr int FirstStatus = 100;
    static constexpr int StatusSlots = 500; // 100…599; anything else counts as 599
    static int slotOf(int status);
    quint64 requestsInClass(RouteLabel::Kind route, int statusClass) const; // 2 = 2xx …

    using Counter = std::atomic<quint64>;
    UploadStore *const m_store;
    const qint64 m_startTime;
    std::array<std::array<Counter, StatusSlots>, RouteLabel::KindCount> m_requests{};
    std::array<Counter, RouteLabel::KindCount> m_bytesIn{};
    std::array<Counter, RouteLabel::KindCount> m_bytesOut{};
    Counter m_busyRefusals = 0;
    Counter m_expiredUploads = 0;
    Counter m_completedByChunk = 0;
    std::atomic<int> m_openConnections = 0;
};

} // namespace multilane
