#pragma once

#include <QByteArray>
#include <QHash>

#include <mutex>

namespace multilane {

// The SHA-256 a chunk brought for its upload (X-Complete-SHA256) while other chunks of that upload
// were still being written, so that whichever chunk ends last completes the upload, although it did
// not carry the hash itself. Bounded: the oldest entry goes first; a lost entry only means that the
// client sends its complete itself. Thread-safe.
class PendingCompletions {
public:
    explicit PendingCompletions(int capacity = 4096);

    void remember(const QByteArray &id, const QByteArray &sha256);
    // Empty when nothing is remembered for this id.
    QByteArray find(const QByteArray &id) const;
    void forget(const QByteArray &id);

private:
    struct Entry {
        QByteArray sha256;
        quint64 order = 0;
    };

    const int m_capacity;
    mutable std::mutex m_mutex;
    QHash<QByteArray, Entry> m_entries;
    quint64 m_nextOrder = 0;
};

} // namespace multilane
