#pragma once

#include "Endpoint.h"

#include <QList>
#include <QString>

namespace multilane {

// Which network a link estimate belongs to, as a string two runs can compare: the endpoints
// (scheme, host and port, sorted) and the local address (and its interface) the kernel routes
// them through — asked with a connected UDP socket for an endpoint given by address, read off
// this process's open connections for one given by name (no lookup). The same string means the
// same endpoints reached the same way: a laptop that moved to another network, or onto a VPN,
// leaves from another address.
namespace NetworkIdentity {
QString of(const QList<Endpoint> &endpoints);
// The same endpoints reached the same way; a route unknown on either side counts as the same.
bool sameNetwork(const QString &a, const QString &b);
} // namespace NetworkIdentity

} // namespace multilane
