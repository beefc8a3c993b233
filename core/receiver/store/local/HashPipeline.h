#pragma once

#include <QByteArray>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace multilane {

class Sha256;

// SHA-256 on a thread of its own over the buffers a writer fills, so receiving and writing a body
// overlap with hashing it (on one core SHA-256 takes about as long as the rest of the request path
// together, docs/performance.md). Buffers circulate: submit() hands a filled one over, in order, and
// nextBuffer() gives back an empty one, waiting while all are being hashed.
class HashPipeline {
public:
    explicit HashPipeline(std::size_t bufferSize, int bufferCount = 4);
    ~HashPipeline(); // stops the thread; an unfinished hash is dropped
    HashPipeline(const HashPipeline &) = delete;
    HashPipeline &operator=(const HashPipeline &) = delete;

    std::size_t bufferSize() const { return m_bufferSize; }
    // A buffer to fill (allocated up to bufferCount, then recycled once hashed).
    std::unique_ptr<char[]> nextBuffer();
    // Queues [data, data + length) of `buffer` for hashing. The caller may still read the buffer
    // (e.g. write it to disk) until its next call to nextBuffer().
    void submit(std::unique_ptr<char[]> buffer, std::size_t length);
    // Waits for every submitted byte; lowercase hex SHA-256. Call once.
    QByteArray finish();

private:
    struct Piece {
        std::unique_ptr<char[]> buffer;
        std::size_t length = 0;
    };
    void run();

    const std::size_t m_bufferSize;
    const int m_bufferCount;
    std::unique_ptr<Sha256> m_hash;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<Piece> m_pending;
    std::vector<std::unique_ptr<char[]>> m_free;
    int m_allocated = 0;
    bool m_stopping = false;
    bool m_hashing = false;
    std::thread m_thread;
};

} // namespace multilane
