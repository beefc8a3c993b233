#pragma once

#include "ChunkHasher.h"

#include <QThreadPool>

namespace multilane {

// Computes checksums off the event loop: those of chunks about to be sent, and each file's
// SHA-256. Two pools, so one long whole-file hash never holds up the chunks waiting to go.
class HashWorker final : public ChunkHasher {
    Q_OBJECT
public:
    explicit HashWorker(ChunkChecksumKind kind, QObject *parent = nullptr);
    ~HashWorker() override;

    void hashChunk(int job, int chunk, const QString &path, qint64 offset, qint64 length) override;
    void hashFile(int job, const QString &path, qint64 chunkSize) override;

private:
    ChunkChecksumKind m_kind;
    QThreadPool m_chunkPool;
    QThreadPool m_filePool;
};

} // namespace multilane
