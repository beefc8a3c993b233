#pragma once

#include "ConflictPolicy.h"
#include "Endpoint.h"
#include "ProtocolErrorCode.h"
#include "ProtocolNames.h"
#include "WireMessage.h"

#include <QJsonObject>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QString>

namespace multilane {

// A failed request as a value: the HTTP status and the receiver's JSON error, or the network
// error when no answer came.
struct ApiError {
    // The code as this build knows it (nullopt for none, or one a newer receiver added).
    std::optional<ProtocolErrorCode> known() const { return protocolErrorCodeFromName(QStringView(code)); }
    bool is(ProtocolErrorCode wanted) const { return known() == wanted; }
    int httpStatus = 0;  // 0: no HTTP answer (refused, reset, timed out, DNS…)
    QString code;        // the receiver's error code, e.g. "checksum_mismatch"
    QString message;     // human text, from the receiver or from Qt
    QJsonObject details; // the receiver's whole error object (limits, figures), may be empty

    // Worth sending again (elsewhere or later): no answer, 5xx but 507, 408, 429, or a corrupted
    // chunk. 507 (disk full, quota used up) is not: retrying within seconds cannot fix it; nor is
    // a TLS failure (an untrusted certificate or a wrong pin).
    bool isRetriable() const;
    // Failed for now, but `multilane resume` may well finish it later: retriable errors, and a
    // receiver out of space or holding too many uploads (someone can fix that meanwhile).
    bool isWorthResumingLater() const;
    bool isTlsFailure() const; // code "tls_…"; the message names the endpoint and the fix
};

// The outcome of one request: the JSON answer or an error.
struct ApiReply {
    int httpStatus = 0;
    QJsonObject body;
    std::optional<ApiError> error;
};

// Builds the protocol's requests (docs/protocol.md) and reads its answers. Stateless.
namespace ReceiverApi {

inline constexpr int ProtocolVersion = Protocol::Version;

QNetworkRequest request(const Endpoint &endpoint, const QString &route, int transferTimeoutMs,
                        const QString &query = {});
inline QString probeRoute()
{
    return QString::fromLatin1(Protocol::ProbeRoute);
}
// PUT /v1/discard: bytes the receiver reads and drops (the probe, the speed test).
QNetworkRequest discardRequest(const Endpoint &endpoint, int transferTimeoutMs);
QString filesRoute(const QString &destinationPath);
QString chunkRoute(const QString &uploadId, int index);
QString uploadRoute(const QString &uploadId);
QString completeRoute(const QString &uploadId);
inline QString createRoute()
{
    return QString::fromLatin1(Protocol::UploadsRoute);
}
inline QString healthRoute()
{
    return QString::fromLatin1(Protocol::HealthRoute);
}

// The same request as a WireRequest, for the engine's transport (which adds the user agent and
// the TLS trust): the route under the endpoint's URL and the token.
WireRequest wireRequest(const Endpoint &endpoint, const QByteArray &method, const QString &route,
                        const QString &query = {});
// Reads an answer (status, JSON body, error).
ApiReply read(const WireReply &reply);
// Reads a finished reply and schedules its deletion.
ApiReply read(QNetworkReply *reply);

} // namespace ReceiverApi
} // namespace multilane
