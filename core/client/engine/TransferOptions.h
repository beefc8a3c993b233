#pragma once

#include "ChunkPlanner.h"
#include "ConflictPolicy.h"
#include "EndpointMonitor.h"

#include <QString>
#include <QtGlobal>

namespace multilane {

struct TransferOptions {
    int connections = 12;
    qint64 chunkSize = ChunkPlanner::DefaultChunkSize;
    ConflictPolicy onConflict = ConflictPolicy::Rename;
    int maxAttempts = 6;        // per chunk and per file-level request
    int retryBaseDelayMs = 500; // doubled each attempt, with jitter
    int transferTimeoutMs = 60000;
    int progressIntervalMs = 100;   // at most this often; the final update always goes out
    qint64 maxOfflineMs = 0;        // give up after this long with no endpoint answering; 0: wait
    bool filesInOrder = false;      // --order files: earlier files' chunks go first
    double limitBytesPerSecond = 0; // --limit-rate; 0: no limit
    // Auto chunk size: a file's chunks are at most size / (8 x connections), so even a file a
    // few times the chunk size spreads over every connection; adaptTo() may change chunkSize.
    bool spreadFilesOverConnections = false;
    // Find the number of connections by measuring (up to `connections`), instead of using it
    // as given; and weigh endpoints by their measured goodput.
    bool tuneConnections = false;
    // Where a self-tuned search starts (0: the default for the endpoints and round trip): the
    // level a recent run settled at on the same network. Chunk sizes expect it until the tuner
    // settles.
    int startLevel = 0;
    // And what one connection carried there, bytes per second (0: not known).
    double startRatePerConnection = 0;
    bool scoreEndpoints = true;
    // A resumed upload whose held chunks no longer match the source (changed in place, size and
    // mtime kept): true sends those chunks again (the result is the file as it is now), false
    // fails the file (--on-change fail).
    bool resendChangedChunks = true;
    EndpointMonitor::Options monitor;
};

// Totals for front ends, sent at most every progressIntervalMs.
struct TransferProgress {
    qint64 bytesTotal = 0;
    qint64 bytesDone = 0; // acknowledged plus what in-flight requests have sent
    qint64 bytesSent = 0; // bytes handed to the sockets, resends included (0 when all was already there)
    // What the peers acknowledged at the TCP level, by the kernel's count (-1 where it cannot be
    // told): unlike bytesSent it does not run ahead by the sockets' buffers, so a speed from it is
    // honest from the first second.
    qint64 bytesDelivered = -1;
    int filesTotal = 0;
    int filesDone = 0;
    int filesSkipped = 0;
    int filesFailed = 0;
    double bytesPerSecond = 0;
    qint64 elapsedMs = 0;
    bool online = true; // false: every endpoint is down, waiting for the network
    bool paused = false;
    int connections = 0;       // the level in use
    QString connectionsReason; // why that many, in words ("22 connections: 1.4 MB/s each, …")
};

// What went to one endpoint, for the summary and the status bar.
struct EndpointStats {
    int chunks = 0;    // chunk and whole-file requests acknowledged
    qint64 bytes = 0;  // body bytes acknowledged
    int failures = 0;  // requests that failed (and were retried or gave up)
    QString lastError; // the last failure's message, for a front end to say why it is out
};

} // namespace multilane
