#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace multilane {

// Runs a function on a thread of its own at once and then every `interval`, until destroyed.
class PeriodicTask {
public:
    PeriodicTask(std::chrono::milliseconds interval, std::function<void()> task);
    ~PeriodicTask(); // waits for a running task, then stops
    PeriodicTask(const PeriodicTask &) = delete;
    PeriodicTask &operator=(const PeriodicTask &) = delete;

private:
    void run();

    const std::chrono::milliseconds m_interval;
    const std::function<void()> m_task;
    std::mutex m_mutex;
    std::condition_variable m_stopRequested;
    bool m_stopping = false;
    std::thread m_thread;
};

} // namespace multilane
