#pragma once

#include "ProtocolService.h"

#include <functional>
#include <httplib.h>
#include <optional>

// Glue between cpp-httplib and ProtocolService: turns a httplib request into a ServiceRequest
// whose body streams from the socket, and a ServiceResponse back into a httplib response.
// Private to the http library, like every header that includes httplib.h.
namespace multilane {
class MetricsAccess;
class ReceiverMetrics;
} // namespace multilane

namespace multilane::HttpBridge {

// A request body not read by the handler (an early error) is read and dropped up to this much so
// the connection stays usable; a larger rest closes the connection instead.
inline constexpr qint64 DrainLimit = qint64(32) << 20;

ServiceRequest toServiceRequest(const httplib::Request &request);
void toHttpResponse(const ServiceResponse &response, httplib::Response &out);

// Runs the service for a request that may carry a body (PUT, POST, DELETE).
void handleWithBody(ProtocolService &service, const httplib::Request &request, httplib::Response &response,
                    const httplib::ContentReader &content);
void handleWithoutBody(ProtocolService &service, const httplib::Request &request,
                       httplib::Response &response);
// For `Expect: 100-continue`: 100 to let the body come, or the refusal's status (response filled).
int answerExpectContinue(const ProtocolService &service, const httplib::Request &request,
                         httplib::Response &response);

// Gives httplib's own refusals (unknown method, unreadable request) our JSON error body.
void fillLibraryError(const httplib::Request &request, httplib::Response &response);
void fillException(httplib::Response &response);
// A log line for failed requests and finished files; nothing for routine traffic.
std::optional<QString> logLine(const httplib::Request &request, const httplib::Response &response);

// GET /metrics: the counters, or 401 without the token `access` asks for.
void serveMetrics(const ReceiverMetrics &metrics, const MetricsAccess &access,
                  const httplib::Request &request, httplib::Response &response);

// Per-request bookkeeping on the connection's thread (httplib runs a request's handlers and its
// logger on one thread): beginRequest() when the headers are in, finishRequest() from the logger
// once the response is written, which counts it and formats its access-log line.
void beginRequest();
struct RequestObservers {
    ReceiverMetrics *metrics = nullptr;
    std::function<void(const QString &line)> accessLog;              // unset: no access log
    std::function<QString(const QByteArray &authorization)> tokenId; // unset: token=-
};
void finishRequest(const httplib::Request &request, const httplib::Response &response,
                   const RequestObservers &observers);
// One logfmt line: ts=… method=… route=… status=… bytes_in=… bytes_out=… ms=… peer=… token=…
QString accessLine(const httplib::Request &request, const httplib::Response &response, qint64 bytesIn,
                   double milliseconds, const QString &tokenId);

} // namespace multilane::HttpBridge
