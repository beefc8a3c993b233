#pragma once

#include "AccessToken.h"
#include "CertificateLoader.h"
#include "ListenAddress.h"
#include "ProtocolNames.h"
#include "ReceiverLimits.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <algorithm>
#include <chrono>
#include <optional>

namespace multilane {

// Everything multilane-receiver is told on its command line or in its --config file, typed, with
// every default here (docs/admin.md lists them; --help shows them from here). Files the options
// name are already read: the tokens and the metrics token are in it, not just their paths.
struct ReceiverConfig {
    QString storage; // --storage, required
    QList<ListenAddress> listen{{QStringLiteral("0.0.0.0"), 9101}};
    bool quiet = false;
    std::chrono::seconds expireAfter = std::chrono::hours(7 * 24); // 0 = never
    // Per listening address. By default room for this many clients at what the receiver then
    // announces to each (connectionsPerClient()), which is also what clients take until a receiver
    // has said.
    static constexpr int ClientsAtTheirMaximum = 4;
    static constexpr int DefaultMaxConnections =
        ClientsAtTheirMaximum * Protocol::DefaultConnectionsPerClient;
    int maxConnections = DefaultMaxConnections;
    // --client-connections: what GET /v1/health tells one client it may open per address.
    std::optional<int> clientConnections;
    std::chrono::seconds idleTimeout{10};
    std::optional<TlsFiles> tls; // --tls-cert and --tls-key, absolute paths; unset: plain HTTP
    QString tokenFile;           // empty: anyone who reaches the ports may upload
    QList<AccessToken> tokens;   // the token file's tokens
    ReceiverLimits limits;       // --max-file-size, --max-chunk-size, --disk-reserve, --max-unfinished
    // Where the access log goes: a file path, "-" for stderr, unset for nowhere (--quiet without
    // --access-log).
    std::optional<QString> accessLog = QStringLiteral("-");
    std::optional<ListenAddress> metricsAddress; // --metrics-listen
    QByteArray metricsToken;                     // the first line of --metrics-token-file

    // --client-connections, or else a quarter of --max-connections: a few clients at their
    // announced maximum still leave room for others on the port.
    int connectionsPerClient() const
    {
        return clientConnections.value_or(std::max(1, maxConnections / ClientsAtTheirMaximum));
    }
};

} // namespace multilane
