#pragma once

#include "WireTransport.h"

#include <QList>
#include <memory>

namespace multilane::WireTransports {

enum class Kind {
    Direct, // DirectTransport: our own HTTP/1.1 client (the default)
    Qt,     // NetworkTransport: Qt's QNetworkAccessManager
};

// MULTILANE_TRANSPORT=qt picks Qt's client (the fallback, should ours misbehave somewhere);
// unset or "direct" picks ours.
Kind fromEnvironment();
// The transport for a transfer over `pool`'s endpoints.
std::unique_ptr<WireTransport> make(const EndpointPool &pool, int transferTimeoutMs);
// Control requests only (health checks before a pool exists).
std::unique_ptr<WireTransport> make(const QList<Endpoint> &endpoints, int transferTimeoutMs);

} // namespace multilane::WireTransports
