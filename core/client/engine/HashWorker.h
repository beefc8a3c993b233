#pragma once

#include "FileDigest.h"

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <cstdint>
#include <optional>

namespace multilane {

// Computes checksums off the event loop: the XXH3 of chunks about to be sent, and each file's
// SHA-256. Two pools, so one long whole-file hash never holds up the chunks waiting to go.
class HashWorker : public QObject {
    Q_OBJECT
public:
    explicit HashWorker(QObject *parent = nullptr);
    ~HashWorker() override;

    void hashChunk(int job, int chunk, const QString &path, qint64 offset, qint64 length);
    // The SHA-256, and the XXH3 of every chunkSize piece (none when chunkSize is 0).
    void hashFile(int job, const QString &path, qint64 chunkSize);

Q_SIGNALS:
    // nullopt: the file could not be read (moved, permissions, shorter than expected).
    void chunkHashed(int job, int chunk, std::optional<std::uint64_t> hash);
    void fileHashed(int job, const std::optional<multilane::FileDigest> &digest);

private:
    QThreadPool m_chunkPool;
    QThreadPool m_filePool;
};

} // namespace multilane
