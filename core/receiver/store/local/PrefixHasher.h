#pragma once

#include <QByteArray>
#include <QHash>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace multilane {

class ChunkRecordFile;
class Sha256;

// Keeps, per upload, a SHA-256 of the .part's leading run of held chunks, advanced on a worker
// thread as chunks land (mostly in order, and still in the page cache), so that complete only
// hashes the rest instead of the whole file. Nothing is persisted: OpenSSL's hash state cannot be
// saved portably, and another process or a restart simply hashes what this cache does not cover.
//
// The worker holds the OFD lock of the chunk it hashes, as a writer would, so it only ever hashes
// held bytes that cannot change under it. It also keeps an XXH3 of the records it covered; take()
// compares that with the records on disk, so a chunk rewritten since (by any process) voids the
// prefix instead of corrupting the result.
class PrefixHasher {
public:
    struct Upload {
        QByteArray id;
        QByteArray partPath;
        QByteArray chunksPath;
        qint64 size = 0;
        qint64 chunkSize = 0;
    };
    struct Prefix {
        std::unique_ptr<Sha256> hash; // covers bytes [0, bytes)
        qint64 bytes = 0;
    };

    explicit PrefixHasher(int maxUploads = 64);
    ~PrefixHasher();
    PrefixHasher(const PrefixHasher &) = delete;
    PrefixHasher &operator=(const PrefixHasher &) = delete;

    // Chunk `index` of the upload was stored (or found held, `rewritten` false): extend its prefix
    // in the background. Call after releasing the chunk's lock.
    void chunkStored(const Upload &upload, qint64 index, bool rewritten);
    // Call holding the upload's whole-file lock: removes the upload's prefix and returns it if it
    // is for the same sizes and the records on disk still match what it covered.
    std::optional<Prefix> take(const Upload &upload, const ChunkRecordFile &records);
    void forget(const QByteArray &id);
    // For tests and measurements: waits until the worker has nothing queued.
    void waitIdle();
    // Bytes the upload's prefix covers now (0 if none).
    qint64 coveredBytes(const QByteArray &id);

private:
    struct Entry;
    void run();
    void advance(Entry &entry);
    void evictOldest();

    const int m_maxUploads;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    QHash<QByteArray, std::shared_ptr<Entry>> m_entries;
    std::deque<std::shared_ptr<Entry>> m_queue;
    quint64 m_clock = 0; // for least-recently-used eviction
    bool m_busy = false;
    bool m_stopping = false;
    std::thread m_thread;
};

} // namespace multilane
