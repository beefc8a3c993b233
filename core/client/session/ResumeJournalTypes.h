#pragma once

#include "ConflictPolicy.h"
#include "Endpoint.h"
#include "S3TargetSpec.h"
#include "SourceFile.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>

namespace multilane {

// One `multilane upload` invocation (or one set of files added in the window): where and how it
// sent, so a resume sends the same way.
struct JournalBatch {
    QString id;
    qint64 createdMs = 0; // ms since the epoch
    QList<Endpoint> endpoints;
    int connections = 0;  // as given with --connections; 0: self-tuned
    qint64 chunkSize = 0; // as given with --chunk-size; 0: measured (automatic)
    ConflictPolicy onConflict = ConflictPolicy::Rename;
    QString destination; // the destination prefix the user gave, '/'-separated
    S3TargetSpec s3;     // set: the endpoints are this bucket's gateways (no keys are kept)
};

// One unfinished file and what a server already acknowledged of it.
struct JournalFile {
    QString batchId;
    QString key; // ResumeJournal::keyFor(source)
    SourceFile source;
    QString uploadId; // empty until a server accepted the create (S3: "UPLOADID" or "UPLOADID|KEY")
    qint64 chunkSize = 0;
    QList<int> acknowledgedChunks;   // sorted, unique
    QHash<int, QByteArray> receipts; // chunk -> the server's receipt (ours: XXH3; S3: ETag)
};

// What a run's tuner settled at on one network, kept so a run soon after on the same network
// (a resume after a crash, the next upload) starts there instead of searching again.
struct LinkMemory {
    QString network;           // NetworkIdentity::of() the endpoints
    qint64 takenMs = 0;        // ms since the epoch
    int connections = 0;       // the level the tuner settled at
    double bytesPerSecond = 0; // the goodput it held there
    double rttMs = 0;
    qint64 chunkSize = 0; // the largest chunk the run used (automatic chunk size)
    double perConnection() const { return connections > 0 ? bytesPerSecond / connections : 0; }
};

} // namespace multilane
