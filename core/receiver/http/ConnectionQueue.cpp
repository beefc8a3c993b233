#include "ConnectionQueue.h"

namespace multilane {

namespace {

thread_local ConnectionQueue::Refusal t_refusal = ConnectionQueue::Refusal::None;

} // namespace

ConnectionQueue::ConnectionQueue(int maxConnections, std::atomic<int> *openGauge)
    : m_maxConnections(std::max(1, maxConnections))
    , m_openGauge(openGauge)
    , m_connections(m_maxConnections)
    , m_spares(SpareThreads)
{}

std::unique_ptr<ConnectionQueue> ConnectionQueue::start(int maxConnections, std::atomic<int> *openGauge,
                                                        QString *error)
{
    std::unique_ptr<ConnectionQueue> queue(new ConnectionQueue(maxConnections, openGauge));
    std::string why;
    if (!queue->m_spares.startThreads(SpareThreads, &why)) {
        if (error)
            *error = QStringLiteral("cannot start its %1 threads that answer busy: %2")
                         .arg(SpareThreads)
                         .arg(QString::fromStdString(why));
        return nullptr;
    }
    return queue;
}

ConnectionQueue::~ConnectionQueue() = default;

ConnectionQueue::Refusal ConnectionQueue::refusal()
{
    return t_refusal;
}

void ConnectionQueue::enqueue(std::function<void()> connection)
{
    // Counted when accepted, not when a thread picks it up, so the pool's queue never grows.
    Refusal why = Refusal::OverTheCap;
    if (++m_open <= m_maxConnections) {
        if (m_openGauge)
            m_openGauge->fetch_add(1, std::memory_order_relaxed);
        std::function<void()> task = [this, connection] {
            connection();
            --m_open;
            if (m_openGauge)
                m_openGauge->fetch_sub(1, std::memory_order_relaxed);
        };
        if (m_connections.enqueue(task))
            return;
        // No thread for it (the process is out of threads): busy, like one over the cap.
        if (m_openGauge)
            m_openGauge->fetch_sub(1, std::memory_order_relaxed);
        why = Refusal::NoThread;
    }
    --m_open;
    refuse(std::move(connection), why);
}

void ConnectionQueue::refuse(std::function<void()> connection, Refusal why)
{
    std::function<void()> task = [connection = std::move(connection), why] {
        t_refusal = why;
        connection();
        t_refusal = Refusal::None;
    };
    if (!m_spares.enqueue(task))
        task(); // shut down: the connection still gets its answer and is closed
}

void ConnectionQueue::shutdown()
{
    m_connections.shutdown();
    m_spares.shutdown();
}

} // namespace multilane
