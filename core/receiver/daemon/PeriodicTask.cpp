#include "PeriodicTask.h"

namespace multilane {

PeriodicTask::PeriodicTask(std::chrono::milliseconds interval, std::function<void()> task)
    : m_interval(interval)
    , m_task(std::move(task))
    , m_thread([this] { run(); })
{}

PeriodicTask::~PeriodicTask()
{
    {
        const std::lock_guard<std::mutex> locker(m_mutex);
        m_stopping = true;
    }
    m_stopRequested.notify_all();
    m_thread.join();
}

void PeriodicTask::run()
{
    std::unique_lock<std::mutex> locker(m_mutex);
    while (!m_stopping) {
        locker.unlock();
        m_task();
        locker.lock();
        m_stopRequested.wait_for(locker, m_interval, [this] { return m_stopping; });
    }
}

} // namespace multilane
