#include "TransferServices.h"

#include "HashWorker.h"
#include "ReceiverProtocol.h"
#include "WireTransports.h"

#include <QElapsedTimer>
#include <QRandomGenerator>

namespace multilane {

void TransferServices::completeFor(const EndpointPool &pool, int transferTimeoutMs)
{
    if (!protocol)
        protocol = std::make_shared<ReceiverProtocol>();
    if (!transport)
        transport = WireTransports::make(pool, transferTimeoutMs);
    if (!hasher)
        hasher = std::make_unique<HashWorker>(protocol->capabilities().chunkChecksum);
    if (!clockMs) {
        auto clock = std::make_shared<QElapsedTimer>();
        clock->start();
        clockMs = [clock] { return clock->elapsed(); };
    }
    if (!random)
        random = [](quint32 bound) { return QRandomGenerator::global()->bounded(bound); };
}

} // namespace multilane
