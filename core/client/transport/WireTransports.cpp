#include "WireTransports.h"

#include "DirectTransport.h"
#include "NetworkTransport.h"

#include <QtGlobal>

namespace multilane::WireTransports {

Kind fromEnvironment()
{
    const QByteArray chosen = qgetenv("MULTILANE_TRANSPORT").trimmed().toLower();
    return chosen == "qt" ? Kind::Qt : Kind::Direct;
}

std::unique_ptr<WireTransport> make(const EndpointPool &pool, int transferTimeoutMs)
{
    if (fromEnvironment() == Kind::Qt)
        return std::make_unique<NetworkTransport>(pool, transferTimeoutMs);
    return std::make_unique<DirectTransport>(pool, transferTimeoutMs);
}

std::unique_ptr<WireTransport> make(const QList<Endpoint> &endpoints, int transferTimeoutMs)
{
    if (fromEnvironment() == Kind::Qt)
        return std::make_unique<NetworkTransport>(endpoints, transferTimeoutMs);
    return std::make_unique<DirectTransport>(endpoints, transferTimeoutMs);
}

} // namespace multilane::WireTransports
