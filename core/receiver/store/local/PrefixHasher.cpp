#include "PrefixHasher.h"

#include "ChunkHash.h"
#include "ChunkLayout.h"
#include "ChunkRecordFile.h"
#include "FileOps.h"
#include "Sha256.h"
#include "UniqueFd.h"
#include "UploadTypes.h"

#include <atomic>
#include <fcntl.h>

namespace multilane {

struct PrefixHasher::Entry {
    explicit Entry(const Upload &what)
        : upload(what)
    {}

    const Upload upload;
    std::mutex mutex; // held by the worker while it hashes a chunk, and by take()
    std::unique_ptr<Sha256> hash = std::make_unique<Sha256>();
    ChunkHash covered;                 // XXH3 of the raw records of chunks [0, nextChunk)
    std::atomic<qint64> nextChunk = 0; // written under `mutex`
    std::atomic<bool> dropped = false; // taken, forgotten, evicted or broken: stop advancing
    bool queued = false;               // under PrefixHasher::m_mutex
    quint64 lastUse = 0;               // under PrefixHasher::m_mutex
};

PrefixHasher::PrefixHasher(int maxUploads)
    : m_maxUploads(std::max(1, maxUploads))
    , m_thread([this] { run(); })
{}

PrefixHasher::~PrefixHasher()
{
    {
        const std::lock_guard<std::mutex> locker(m_mutex);
        m_stopping = true;
        for (const auto &entry : std::as_const(m_entries))
            entry->dropped = true; // the one being hashed stops after its current chunk
    }
    m_changed.notify_all();
    m_thread.join();
}

void PrefixHasher::chunkStored(const Upload &upload, qint64 index, bool rewritten)
{
    if (upload.size <= 0 || upload.chunkSize <= 0)
        return;
    {
        const std::lock_guard<std::mutex> locker(m_mutex);
        std::shared_ptr<Entry> entry = m_entries.value(upload.id);
        // New data below the prefix (or a recreated upload with other sizes) voids what was hashed.
        if (entry && (entry->dropped || entry->upload.chunkSize != upload.chunkSize ||
                      entry->upload.size != upload.size || (rewritten && index < entry->nextChunk))) {
            entry->dropped = true;
            m_entries.remove(upload.id);
            entry.reset();
        }
        if (!entry) {
            if (m_entries.size() >= m_maxUploads)
                evictOldest();
            entry = std::make_shared<Entry>(upload);
            m_entries.insert(upload.id, entry);
        }
        entry->lastUse = ++m_clock;
        if (entry->queued || index < entry->nextChunk)
            return;
        entry->queued = true;
        m_queue.push_back(entry);
    }
    m_changed.notify_all();
}

void PrefixHasher::evictOldest()
{
    auto oldest = m_entries.end();
    for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
        if (oldest == m_entries.end() || it.value()->lastUse < oldest.value()->lastUse)
            oldest = it;
    }
    if (oldest != m_entries.end()) {
        oldest.value()->dropped = true;
        m_entries.erase(oldest);
    }
}

std::optional<PrefixHasher::Prefix> PrefixHasher::take(const Upload &upload, const ChunkRecordFile &records)
{
    std::shared_ptr<Entry> entry;
    {
        const std::lock_guard<std::mutex> locker(m_mutex);
        entry = m_entries.take(upload.id);
    }
    if (!entry)
        return std::nullopt;
    const std::lock_guard<std::mutex> locker(entry->mutex);
    const bool usable = !entry->dropped && entry->upload.size == upload.size &&
                        entry->upload.chunkSize == upload.chunkSize && entry->nextChunk > 0;
    entry->dropped = true;
    if (!usable)
        return std::nullopt;
    const qint64 chunks = entry->nextChunk;
    const auto raw = records.rawRecords(0, chunks);
    if (!raw || ChunkHash::of(raw->constData(), std::size_t(raw->size())) != entry->covered.value())
        return std::nullopt; // a chunk was rewritten since we hashed it
    return Prefix{std::move(entry->hash), std::min(chunks * upload.chunkSize, upload.size)};
}

void PrefixHasher::forget(const QByteArray &id)
{
    const std::lock_guard<std::mutex> locker(m_mutex);
    if (const auto entry = m_entries.take(id))
        entry->dropped = true;
}

void PrefixHasher::waitIdle()
{
    std::unique_lock<std::mutex> locker(m_mutex);
    m_changed.wait(locker, [this] { return m_queue.empty() && !m_busy; });
}

qint64 PrefixHasher::coveredBytes(const QByteArray &id)
{
    const std::lock_guard<std::mutex> locker(m_mutex);
    const auto entry = m_entries.value(id);
    return entry ? std::min(entry->nextChunk * entry->upload.chunkSize, entry->upload.size) : 0;
}

void PrefixHasher::run()
{
    std::unique_lock<std::mutex> locker(m_mutex);
    for (;;) {
        m_changed.wait(locker, [this] { return m_stopping || !m_queue.empty(); });
        if (m_stopping)
            return;
        const std::shared_ptr<Entry> entry = std::move(m_queue.front());
        m_queue.pop_front();
        entry->queued = false;
        m_busy = true;
        locker.unlock();
        advance(*entry);
        locker.lock();
        m_busy = false;
        m_changed.notify_all();
    }
}

void PrefixHasher::advance(Entry &entry)
{
    // .chunks before .part: if the upload is aborted and created again in between, the records
    // we hold are the unlinked ones, and isRemoved() below stops us.
    ChunkRecordFile records;
    if (records.open(entry.upload.chunksPath) != 0)
        return;
    const UniqueFd part(::open(entry.upload.partPath.constData(), O_RDONLY | O_CLOEXEC));
    if (!part.isValid())
        return;
    const qint64 chunkCount = ChunkLayout(entry.upload.size, entry.upload.chunkSize).chunkCount();
    for (;;) {
        const std::lock_guard<std::mutex> locker(entry.mutex);
        const qint64 index = entry.nextChunk;
        if (entry.dropped || index >= chunkCount)
            return;
        // Busy means a writer (whose end queues us again) or a complete has it: never wait.
        if (records.tryLockRecord(index) != 0)
            return;
        const auto raw = records.rawRecords(index, 1);
        if (records.isRemoved() || !raw || raw->at(8) == 0) {
            records.unlockRecord(index);
            return;
        }
        const qint64 from = index * entry.upload.chunkSize;
        const qint64 to = std::min(from + entry.upload.chunkSize, entry.upload.size);
        Sha256 &hash = *entry.hash;
        const int error = FileOps::readRange(
            part.get(), from, to, [&hash](const char *data, std::size_t n) { hash.addData(data, n); });
        if (error != 0) {
            entry.dropped = true; // the state now holds part of a chunk
        } else {
            entry.covered.addData(raw->constData(), std::size_t(raw->size()));
            entry.nextChunk = index + 1;
            // Start writing the chunk back now, so the fdatasync at complete has little left to do.
            ::sync_file_range(part.get(), from, to - from, SYNC_FILE_RANGE_WRITE);
        }
        records.unlockRecord(index);
    }
}

} // namespace multilane
