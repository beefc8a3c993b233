#include "HashPipeline.h"

#include "Sha256.h"

namespace multilane {

HashPipeline::HashPipeline(std::size_t bufferSize, int bufferCount)
    : m_bufferSize(bufferSize)
    , m_bufferCount(std::max(2, bufferCount))
    , m_hash(std::make_unique<Sha256>())
    , m_thread([this] { run(); })
{}

HashPipeline::~HashPipeline()
{
    {
        const std::lock_guard<std::mutex> locker(m_mutex);
        m_stopping = true;
    }
    m_changed.notify_all();
    m_thread.join();
}

std::unique_ptr<char[]> HashPipeline::nextBuffer()
{
    std::unique_lock<std::mutex> locker(m_mutex);
    if (m_free.empty() && m_allocated < m_bufferCount) {
        ++m_allocated;
        return std::unique_ptr<char[]>(new char[m_bufferSize]);
    }
    m_changed.wait(locker, [this] { return !m_free.empty(); });
    auto buffer = std::move(m_free.back());
    m_free.pop_back();
    return buffer;
}

void HashPipeline::submit(std::unique_ptr<char[]> buffer, std::size_t length)
{
    {
        const std::lock_guard<std::mutex> locker(m_mutex);
        m_pending.push_back({std::move(buffer), length});
    }
    m_changed.notify_all();
}

QByteArray HashPipeline::finish()
{
    std::unique_lock<std::mutex> locker(m_mutex);
    m_changed.wait(locker, [this] { return m_pending.empty() && !m_hashing; });
    return m_hash->hexDigest();
}

void HashPipeline::run()
{
    std::unique_lock<std::mutex> locker(m_mutex);
    for (;;) {
        m_changed.wait(locker, [this] { return m_stopping || !m_pending.empty(); });
        if (m_stopping)
            return;
        Piece piece = std::move(m_pending.front());
        m_pending.pop_front();
        m_hashing = true;
        locker.unlock();
        m_hash->addData(piece.buffer.get(), piece.length);
        locker.lock();
        m_hashing = false;
        m_free.push_back(std::move(piece.buffer));
        m_changed.notify_all();
    }
}

} // namespace multilane
