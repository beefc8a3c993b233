#pragma once

#include "ProtocolNames.h"

#include <QtGlobal>

namespace multilane {

// The receiver's configurable limits (docs/admin.md, "Tokens and limits") with their defaults.
struct ReceiverLimits {
    qint64 maxFileSize = qint64(1) << 40;    // --max-file-size, 1 TiB
    qint64 maxChunkSize = qint64(256) << 20; // --max-chunk-size; the client sends at most 64 MiB
    qint64 diskReserve = qint64(512) << 20;  // --disk-reserve: free space never used for uploads
    qint64 maxUnfinished = 1000;             // --max-unfinished, per token folder
    // Connections one client may open to one port, as GET /v1/health announces it to clients that
    // tune themselves (--client-connections; the daemon derives it from --max-connections).
    int connectionsPerClient = Protocol::DefaultConnectionsPerClient;
    // Requests whose header fields exceed either limit get 431. httplib has already read them
    // by then (docs/admin.md says how far it reads); these bound what reaches the service.
    qint64 maxHeaderBytes = 64 * 1024;
    qint64 maxHeaderCount = 100;
};

} // namespace multilane
