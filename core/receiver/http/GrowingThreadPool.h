#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace multilane {

// Threads for one listening port's connections, started as the connections come instead of all
// at start: a port that allows 256 connections holds threads for as many as it has had at once.
// A thread that cannot be started (the process is out of threads or memory) is an answer of
// enqueue(), not an exception thrown inside the accept loop, which would end the receiver with
// no word of why. Threads are kept until shutdown(): a port's peak is likely to come again.
// Private to the http library.
class GrowingThreadPool {
public:
    explicit GrowingThreadPool(int maxThreads);
    ~GrowingThreadPool(); // shutdown()
    GrowingThreadPool(const GrowingThreadPool &) = delete;
    GrowingThreadPool &operator=(const GrowingThreadPool &) = delete;

    // Starts threads until there are `count`; false, with what went wrong in `error`, if they
    // could not all be started (those that were stay).
    bool startThreads(int count, std::string *error);
    // Runs `task` on an idle thread, or on a new one while there are fewer than maxThreads; where
    // every thread is busy and there are maxThreads, it waits for one. False, with `task` not
    // taken, where no thread is idle and a new one could not be started, or after shutdown().
    bool enqueue(std::function<void()> &task);
    // Lets the tasks taken run to their end, then joins every thread.
    void shutdown();

private:
    void work();
    bool startThread(std::string *error); // with m_mutex held

    const int m_maxThreads;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_tasks;
    std::vector<std::thread> m_threads;
    int m_idle = 0;
    bool m_stopping = false;
};

} // namespace multilane
