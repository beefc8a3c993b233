#include "GrowingThreadPool.h"

#include <algorithm>
#include <new>
#include <system_error>

namespace multilane {

GrowingThreadPool::GrowingThreadPool(int maxThreads)
    : m_maxThreads(std::max(1, maxThreads))
{}

GrowingThreadPool::~GrowingThreadPool()
{
    shutdown();
}

bool GrowingThreadPool::startThread(std::string *error)
{
    try {
        m_threads.emplace_back([this] { work(); });
        return true;
    } catch (const std::system_error &failure) {
        if (error)
            *error = failure.code().message();
    } catch (const std::bad_alloc &) {
        if (error)
            *error = "out of memory";
    }
    return false;
}

bool GrowingThreadPool::startThreads(int count, std::string *error)
{
    const std::lock_guard lock(m_mutex);
    while (int(m_threads.size()) < std::min(count, m_maxThreads)) {
        if (!startThread(error))
            return false;
    }
    return true;
}

bool GrowingThreadPool::enqueue(std::function<void()> &task)
{
    {
        const std::lock_guard lock(m_mutex);
        if (m_stopping)
            return false;
        // At the most threads and none idle, one is on its way back: the caller gives no more
        // tasks than there are threads, and a task ends before its thread turns idle again.
        const bool idleThreadFree = m_idle > int(m_tasks.size());
        if (!idleThreadFree && int(m_threads.size()) < m_maxThreads && !startThread(nullptr))
            return false;
        m_tasks.push_back(std::move(task));
    }
    m_wake.notify_one();
    return true;
}

void GrowingThreadPool::work()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        ++m_idle;
        m_wake.wait(lock, [this] { return m_stopping || !m_tasks.empty(); });
        --m_idle;
        if (m_tasks.empty())
            return; // stopping, and nothing left to run
        std::function<void()> task = std::move(m_tasks.front());
        m_tasks.pop_front();
        lock.unlock();
        task();
        lock.lock();
    }
}

void GrowingThreadPool::shutdown()
{
    std::vector<std::thread> threads;
    {
        const std::lock_guard lock(m_mutex);
        m_stopping = true;
        threads.swap(m_threads);
    }
    m_wake.notify_all();
    for (std::thread &thread : threads)
        thread.join();
}

} // namespace multilane
