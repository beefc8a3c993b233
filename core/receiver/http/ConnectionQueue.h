#pragma once

#include "GrowingThreadPool.h"

#include <httplib.h>

#include <QString>
#include <atomic>
#include <memory>

namespace multilane {

// httplib's task queue for one listening port, with a cap on open connections. httplib is
// thread-per-connection, and an idle keep-alive connection holds its thread, so with a fixed pool
// idle connections stall a port for the whole idle timeout. Up to maxConnections
// connections get a thread each (started as they come); beyond that, or where no thread can be
// started, a connection goes to a few spare threads that answer its request at once with 503
// `busy` and close it, so a client learns why instead of hanging.
// (A spare thread still waits up to the idle timeout for a connection that sends nothing: httplib
// gives the task queue no socket to close.)
// Private to the http library, like HttpBridge.
class ConnectionQueue final : public httplib::TaskQueue {
public:
    static constexpr int SpareThreads = 16;

    // `openGauge`, when given, follows the open connections too (summed over ports, for /metrics).
    // The spare threads start here; null, with why in `error`, if they could not.
    static std::unique_ptr<ConnectionQueue> start(int maxConnections, std::atomic<int> *openGauge,
                                                  QString *error);
    ~ConnectionQueue() override;

    void enqueue(std::function<void()> connection) override;
    void shutdown() override;

    enum class Refusal { None, OverTheCap, NoThread };
    // On a spare thread, why the request it serves must be refused with 503; None elsewhere.
    static Refusal refusal();
    static bool refusing() { return refusal() != Refusal::None; }
    int openConnections() const { return m_open; }

private:
    ConnectionQueue(int maxConnections, std::atomic<int> *openGauge);
    void refuse(std::function<void()> connection, Refusal why);

    const int m_maxConnections;
    std::atomic<int> m_open = 0;
    std::atomic<int> *const m_openGauge;
    GrowingThreadPool m_connections;
    GrowingThreadPool m_spares;
};

} // namespace multilane
