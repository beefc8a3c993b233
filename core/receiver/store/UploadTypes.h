#pragma once

#include "ConflictPolicy.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QtGlobal>
#include <optional>

namespace multilane {

// What names an upload across crashes and restarts: the client's destination path, the file's size
// and its modification time (docs/protocol.md, "upload key").
struct UploadKey {
    QString path;
    qint64 size = 0;
    qint64 mtime = 0;
};

// The client's description of one upload (the body of POST /v1/uploads).
struct UploadSpec {
    QString path;
    qint64 size = 0;
    qint64 mtime = 0;
    qint64 chunkSize = 0;
    ConflictPolicy onConflict = ConflictPolicy::Rename;
    QByteArray sha256; // optional, lowercase hex

    UploadKey key() const { return {path, size, mtime}; }
};

// An upload in progress as the store knows it.
struct UploadState {
    QByteArray id;
    QString path;
    qint64 size = 0;
    qint64 chunkSize = 0;
    qint64 chunkCount = 0;
    ConflictPolicy onConflict = ConflictPolicy::Rename;
    QList<qint64> received;
    // XXH3 of each received chunk, in the same order: lets a resuming client check that its source
    // still holds the bytes the receiver has, without sending them again.
    QList<quint64> receivedHashes;
};

// A finished file found at the destination path.
struct ExistingFile {
    qint64 size = 0;
    QByteArray sha256; // only when its size equals the upload's
};

// Where a finished upload went.
struct FinishedFile {
    enum class Status { Stored, Skipped };
    Status status = Status::Stored;
    QString path;
    QByteArray sha256;
};

// The answer to a create: a new or found upload, or nothing to do (done before, or skipped).
struct CreateOutcome {
    enum class Kind { Created, Found, AlreadyDone, Skipped };
    Kind kind = Kind::Created;
    UploadState upload;
    std::optional<ExistingFile> existing;
    FinishedFile finished; // for AlreadyDone and Skipped
};

struct ChunkOutcome {
    qint64 index = 0;
    bool duplicate = false;
};

} // namespace multilane
