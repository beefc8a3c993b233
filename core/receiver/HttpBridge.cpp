#include "HttpBridge.h"

#include "ConnectionQueue.h"
#include "HeaderLimitedServer.h"
#include "ReceiverLimits.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace multilane::HttpBridge {

namespace {

constexpr std::size_t StreamBufferSize = 64 * 1024;

QByteArray bytes(const std::string &text)
{
    return QByteArray(text.data(), qsizetype(text.size()));
}

std::string stdString(const QByteArray &text)
{
    return std::string(text.constData(), std::size_t(text.size()));
}

// For log lines: a hostile path may hold control characters (a NUL would cut the line).
QString printable(const std::string &text)
{
    QString shown = QString::fromUtf8(bytes(text).left(300));
    for (QChar &c : shown) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            c = QLatin1Char('?');
    }
    return shown;
}

// httplib keeps a connection open whatever the response says; the server closes it after this
// response instead, so unread body bytes are never parsed as a next request.
void closeAfter(httplib::Response &response)
{
    response.set_header("Connection", "close");
    HeaderLimitedServer::closeAfterResponse();
}

bool announcesBody(const httplib::Request &request)
{
    const std::string length = request.get_header_value("Content-Length");
    return (!length.empty() && length != "0") || request.has_header("Transfer-Encoding");
}

// httplib's ContentReader may run only once; this wrapper runs it once, forwards the body to the
// service's sink and, when the sink stops early, keeps reading and dropping up to DrainLimit.
class StreamedBody {
public:
    explicit StreamedBody(const httplib::ContentReader &content)
        : m_content(content)
    {}

    bool read(const BodySink &sink)
    {
        if (m_used)
            return false;
        m_used = true;
        bool accepting = true;
        qint64 dropped = 0;
        m_readToEnd = m_content([&](const char *data, std::size_t length) {
            if (accepting) {
                accepting = sink(data, length);
                return true;
            }
            dropped += qint64(length);
            return dropped <= DrainLimit;
        });
        return m_readToEnd && accepting;
    }

    // After the handler: drop what it did not read; true when the connection is still in step.
    bool finish()
    {
        if (!m_used)
            read([](const char *, std::size_t) { return false; });
        return m_readToEnd;
    }

private:
    const httplib::ContentReader &m_content;
    bool m_used = false;
    bool m_readToEnd = false;
};

// On a connection over the cap (ConnectionQueue): 503 and close, without reading any body.
bool refusedAsBusy(httplib::Response &response)
{
    if (!ConnectionQueue::refusing())
        return false;
    toHttpResponse(ServiceResponse::error(ReceiverError::make(
                       ErrorCode::Busy, QStringLiteral("the receiver has too many open connections on this "
                                                       "port; try again shortly or use another port"))),
                   response);
    response.set_header("Retry-After", "1");
    closeAfter(response);
    return true;
}

} // namespace

ServiceRequest toServiceRequest(const httplib::Request &request)
{
    ServiceRequest converted;
    converted.method = bytes(request.method);
    converted.path = bytes(request.path);
    for (const auto &[name, value] : request.params)
        converted.query.insert(bytes(name), bytes(value));
    for (const auto &[name, value] : request.headers)
        converted.headers.insert(bytes(name).toLower(), bytes(value));
    return converted;
}

void toHttpResponse(const ServiceResponse &response, httplib::Response &out)
{
    out.status = response.status;
    for (const auto &[name, value] : response.headers)
        out.set_header(stdString(name), stdString(value));
    if (response.streamLength < 0) {
        out.set_content(response.body.constData(), std::size_t(response.body.size()),
                        stdString(response.contentType));
        return;
    }
    auto buffer = std::make_shared<std::vector<char>>(StreamBufferSize);
    const ServiceResponse::StreamProducer produce = response.stream;
    out.set_content_provider(std::size_t(response.streamLength), stdString(response.contentType),
                             [buffer, produce](std::size_t, std::size_t length, httplib::DataSink &sink) {
                                 const std::size_t made =
                                     produce(buffer->data(), std::min(length, buffer->size()));
                                 return sink.write(buffer->data(), made);
                             });
}

void handleWithBody(ReceiverService &service, const httplib::Request &request, httplib::Response &response,
                    const httplib::ContentReader &content)
{
    if (refusedAsBusy(response))
        return;
    ServiceRequest converted = toServiceRequest(request);
    StreamedBody body(content);
    const bool hasBody = announcesBody(request);
    if (hasBody)
        converted.body = [&body](const BodySink &sink) { return body.read(sink); };
    toHttpResponse(service.handle(converted), response);
    const int status = response.status;
    if (hasBody && !body.finish()) {
        response.status = status; // httplib sets 400 when a body read stops early; ours stands
        closeAfter(response);     // unread body bytes are still on the wire
    }
}

void handleWithoutBody(ReceiverService &service, const httplib::Request &request, httplib::Response &response)
{
    if (refusedAsBusy(response))
        return;
    toHttpResponse(service.handle(toServiceRequest(request)), response);
}

int answerExpectContinue(const ReceiverService &service, const httplib::Request &request,
                         httplib::Response &response)
{
    if (refusedAsBusy(response))
        return response.status;
    const auto refusal = service.precheck(toServiceRequest(request));
    if (!refusal)
        return 100;
    toHttpResponse(*refusal, response);
    closeAfter(response); // the client will not send the body now
    return refusal->status;
}

void fillLibraryError(const httplib::Request &request, httplib::Response &response)
{
    if (!response.body.empty())
        return; // already ours
    if (HeaderLimitedServer::headBudgetExceeded()) {
        toHttpResponse(ServiceResponse::error(ReceiverError::make(
                           ErrorCode::HeadersTooLarge,
                           QStringLiteral("the request line and headers are longer than this receiver reads; "
                                          "send at most %1 header fields of %2 bytes in all")
                               .arg(ReceiverLimits().maxHeaderCount)
                               .arg(ReceiverLimits().maxHeaderBytes))),
                       response);
        closeAfter(response); // the rest of the head is still on the wire
        return;
    }
    ErrorCode code = ErrorCode::BadRequest;
    if (response.status == 404 || response.status == 405)
        code = ErrorCode::NotFound;
    else if (response.status == 413 || response.status == 414)
        code = ErrorCode::TooLarge;
    else if (response.status >= 500)
        code = ErrorCode::StorageError;
    const int status = response.status;
    toHttpResponse(ServiceResponse::error(ReceiverError::make(
                       code, QStringLiteral("the receiver could not handle %1 %2 (HTTP %3)")
                                 .arg(printable(request.method), printable(request.path))
                                 .arg(status))),
                   response);
    response.status = status;
}

void fillException(httplib::Response &response)
{
    toHttpResponse(ServiceResponse::error(ReceiverError::make(
                       ErrorCode::StorageError,
                       QStringLiteral("the receiver failed on this request (out of memory?); try again"))),
                   response);
}

std::optional<QString> logLine(const httplib::Request &request, const httplib::Response &response)
{
    const bool failed = response.status >= 400;
    const bool finished = request.path.starts_with("/v1/files/") || request.path.ends_with("/complete");
    if (!failed && !finished)
        return std::nullopt;
    return QStringLiteral("%1 %2 -> %3 %4")
        .arg(printable(request.method), printable(request.path))
        .arg(response.status)
        .arg(printable(response.body));
}

} // namespace multilane::HttpBridge
