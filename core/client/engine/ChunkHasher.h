#pragma once

#include "FileDigest.h"

#include <QByteArray>
#include <QObject>
#include <QString>
#include <optional>

namespace multilane {

// Where the scheduler's checksums are computed, handed in so a test can compute them inline.
// Results come back as signals, never from inside the call.
class ChunkHasher : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    // The protocol's checksum of one chunk, about to be sent.
    virtual void hashChunk(int job, int chunk, const QString &path, qint64 offset, qint64 length) = 0;
    // The SHA-256, and the checksum of every chunkSize piece (none when chunkSize is 0).
    virtual void hashFile(int job, const QString &path, qint64 chunkSize) = 0;

Q_SIGNALS:
    // nullopt: the file could not be read (moved, permissions, shorter than expected).
    void chunkHashed(int job, int chunk, const std::optional<QByteArray> &checksumHex);
    void fileHashed(int job, const std::optional<multilane::FileDigest> &digest);
};

} // namespace multilane
