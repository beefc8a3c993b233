#pragma once

#include "ChunkHasher.h"
#include "UploadProtocol.h"
#include "WireTransport.h"

#include <functional>
#include <memory>

namespace multilane {

class EndpointPool;

// What the scheduler works with, handed in so its state machine can run in-process against
// fakes: the protocol that speaks to the servers, the transport that carries its requests, the
// checksum worker, the clock and the randomness of its backoff. Whatever is left empty is the
// real thing (protocol v1, the network, worker threads, a steady clock, the global generator).
struct TransferServices {
    std::shared_ptr<const UploadProtocol> protocol;
    std::unique_ptr<WireTransport> transport;
    std::unique_ptr<ChunkHasher> hasher;
    std::function<qint64()> clockMs;              // monotonic milliseconds
    std::function<quint32(quint32 bound)> random; // uniform in [0, bound)

    // Fills what is empty with the real parts for this pool and transfer timeout.
    void completeFor(const EndpointPool &pool, int transferTimeoutMs);
};

} // namespace multilane
