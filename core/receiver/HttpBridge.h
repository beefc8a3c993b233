#pragma once

#include "ReceiverService.h"

#include <httplib.h>
#include <optional>

// Glue between cpp-httplib and ReceiverService: turns a httplib request into a ServiceRequest
// whose body streams from the socket, and a ServiceResponse back into a httplib response.
// Private to the receiver library (it is the only place that includes httplib.h besides the server).
namespace multilane::HttpBridge {

// A request body not read by the handler (an early error) is read and dropped up to this much so
// the connection stays usable; a larger rest closes the connection instead.
inline constexpr qint64 DrainLimit = qint64(32) << 20;

ServiceRequest toServiceRequest(const httplib::Request &request);
void toHttpResponse(const ServiceResponse &response, httplib::Response &out);

// Runs the service for a request that may carry a body (PUT, POST, DELETE).
void handleWithBody(ReceiverService &service, const httplib::Request &request, httplib::Response &response,
                    const httplib::ContentReader &content);
void handleWithoutBody(ReceiverService &service, const httplib::Request &request,
                       httplib::Response &response);
// For `Expect: 100-continue`: 100 to let the body come, or the refusal's status (response filled).
int answerExpectContinue(const ReceiverService &service, const httplib::Request &request,
                         httplib::Response &response);

// Gives httplib's own refusals (unknown method, unreadable request) our JSON error body.
void fillLibraryError(const httplib::Request &request, httplib::Response &response);
void fillException(httplib::Response &response);
// A log line for failed requests and finished files; nothing for routine traffic.
std::optional<QString> logLine(const httplib::Request &request, const httplib::Response &response);

} // namespace multilane::HttpBridge
