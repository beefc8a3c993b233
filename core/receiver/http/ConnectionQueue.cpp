#include "ConnectionQueue.h"

namespace multilane {

namespace {

thread_local bool t_refusing = false;

} // namespace

ConnectionQueue::ConnectionQueue(int maxConnections, std::atomic<int> *openGauge)
    : m_maxConnections(std::max(1, maxConnections))
    , m_openGauge(openGauge)
    , m_connections(std::make_unique<httplib::ThreadPool>(std::size_t(m_maxConnections)))
    , m_spares(std::make_unique<httplib::ThreadPool>(std::size_t(SpareThreads)))
{}

ConnectionQueue::~ConnectionQueue() = default;

bool ConnectionQueue::refusing()
{
    return t_refusing;
}

void ConnectionQueue::enqueue(std::function<void()> connection)
{
    // Counted when accepted, not when a thread picks it up, so the pool's queue never grows.
    if (++m_open <= m_maxConnections) {
        if (m_openGauge)
            m_openGauge->fetch_add(1, std::memory_order_relaxed);
        m_connections->enqueue([this, connection = std::move(connection)] {
            connection();
            --m_open;
            if (m_openGauge)
                m_openGauge->fetch_sub(1, std::memory_order_relaxed);
        });
        return;
    }
    --m_open;
    m_spares->enqueue([connection = std::move(connection)] {
        t_refusing = true;
        connection();
        t_refusing = false;
    });
}

void ConnectionQueue::shutdown()
{
    m_connections->shutdown();
    m_spares->shutdown();
}

} // namespace multilane
