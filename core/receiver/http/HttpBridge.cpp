#include "HttpBridge.h"

#include "ConnectionQueue.h"
#include "HeaderLimitedServer.h"
#include "MetricsAccess.h"
#include "ProtocolNames.h"
#include "ReceiverLimits.h"
#include "ReceiverMetrics.h"
#include "RequestRouter.h"
#include "RouteLabel.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringBuilder>
#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

namespace multilane::HttpBridge {

namespace {

constexpr std::size_t StreamBufferSize = 64 * 1024;

// The request this connection thread is serving: when its headers were in, and the body bytes
// read so far (by the service or drained). `started` is false for a request httplib refused
// before any handler ran (a malformed request line).
struct RequestTrace {
    std::chrono::steady_clock::time_point start;
    qint64 bytesIn = 0;
    bool started = false;
    bool completedUpload = false;
};
thread_local RequestTrace t_trace;

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
void closeAfter(httplib::Response &response, bool bodyLeftUnread = false)
{
    response.set_header("Connection", "close");
    HeaderLimitedServer::closeAfterResponse(bodyLeftUnread);
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
            t_trace.bytesIn += qint64(length);
            if (accepting) {
                accepting = sink(data, length);
                return true;
            }
            dropped += qint64(length);
            return dropped <= DrainLimit;
        });
        return m_readToEnd && accepting;
    }

    // After the handler: drop what it did not read (when `drain`); true when the connection is
    // still in step.
    bool finish(bool drain)
    {
        if (!m_used && drain)
            read([](const char *, std::size_t) { return false; });
        return m_readToEnd;
    }

private:
    const httplib::ContentReader &m_content;
    bool m_used = false;
    bool m_readToEnd = false;
};

// A body httplib and a proxy in front could frame differently (two Content-Length headers, or
// one next to Transfer-Encoding) can hide a second request; such a request is refused unread.
bool refusedAsAmbiguous(const httplib::Request &request, httplib::Response &response)
{
    const std::size_t lengths = request.get_header_value_count("Content-Length");
    if (lengths == 0 || (lengths == 1 && !request.has_header("Transfer-Encoding")))
        return false;
    toHttpResponse(
        ServiceResponse::error(ProtocolError::make(
            ProtocolErrorCode::BadRequest, QStringLiteral("the request announces its body length more than "
                                                          "once; send one Content-Length and no "
                                                          "Transfer-Encoding"))),
        response);
    closeAfter(response, true); // the unread body must never be parsed as a next request
    return true;
}

// Only a body of a length we can parse is drained after a refusal: httplib reads a "-1" or a
// 2^64 as some huge length and would wait for bytes that never come.
bool drainable(const httplib::Request &request)
{
    return !request.has_header("Content-Length") ||
           RequestRouter::parseCount(bytes(request.get_header_value("Content-Length"))).has_value();
}

// On a connection over the cap or with no thread of its own (ConnectionQueue): 503 and close,
// without reading any body.
bool refusedAsBusy(httplib::Response &response)
{
    const ConnectionQueue::Refusal why = ConnectionQueue::refusal();
    if (why == ConnectionQueue::Refusal::None)
        return false;
    const QString message = why == ConnectionQueue::Refusal::NoThread
                                ? QStringLiteral("the receiver is out of threads and cannot serve another "
                                                 "connection; try again shortly or use another port")
                                : QStringLiteral("the receiver has too many open connections on this "
                                                 "port; try again shortly or use another port");
    toHttpResponse(ServiceResponse::error(ProtocolError::make(ProtocolErrorCode::Busy, message)), response);
    response.set_header("Retry-After", "1");
    closeAfter(response);
    return true;
}

// A logfmt value: bare when it is a plain token, else quoted with \" and \\ escaped; control
// characters (a hostile path may hold a newline) become '?', so one request stays one line.
QString logfmtValue(QStringView text)
{
    if (text.isEmpty())
        return QStringLiteral("\"\"");
    bool plain = true;
    for (const QChar c : text) {
        if (c.unicode() <= 0x20 || c == QLatin1Char('"') || c == QLatin1Char('=') || c == QLatin1Char('\\') ||
            c.unicode() == 0x7f)
            plain = false;
    }
    if (plain)
        return text.toString();
    QString quoted = QStringLiteral("\"");
    for (const QChar c : text) {
        if (c == QLatin1Char('"') || c == QLatin1Char('\\'))
            quoted += QLatin1Char('\\');
        quoted += (c.unicode() < 0x20 || c.unicode() == 0x7f) ? QLatin1Char('?') : c;
    }
    return quoted + QLatin1Char('"');
}

QString logfmtValue(std::string_view text)
{
    return logfmtValue(QString::fromUtf8(text.data(), qsizetype(std::min<std::size_t>(text.size(), 300))));
}

QString peerOf(const httplib::Request &request)
{
    const QString address = QString::fromStdString(request.remote_addr);
    const QString host =
        address.contains(QLatin1Char(':')) ? QLatin1Char('[') + address + QLatin1Char(']') : address;
    return host % QLatin1Char(':') % QString::number(request.remote_port);
}

qint64 bytesOut(const httplib::Response &response)
{
    // A streamed body (the probe) has its length in content_length_ and an empty `body`.
    return qint64(response.content_length_ > 0 ? response.content_length_ : response.body.size());
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
    t_trace.completedUpload = t_trace.completedUpload || response.completedUpload;
    out.status = response.status;
    for (const auto &[name, value] : response.headers)
        out.set_header(stdString(name), stdString(value));
    if (response.streamLength <= 0) {
        // An empty stream is an empty body: httplib given a provider of length 0 would wait for
        // the provider until the read timeout instead of answering at once.
        const QByteArray &body = response.streamLength == 0 ? QByteArray() : response.body;
        out.set_content(body.constData(), std::size_t(body.size()), stdString(response.contentType));
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

void handleWithBody(ProtocolService &service, const httplib::Request &request, httplib::Response &response,
                    const httplib::ContentReader &content)
{
    if (refusedAsBusy(response) || refusedAsAmbiguous(request, response))
        return;
    ServiceRequest converted = toServiceRequest(request);
    StreamedBody body(content);
    const bool hasBody = announcesBody(request);
    if (hasBody)
        converted.body = [&body](const BodySink &sink) { return body.read(sink); };
    toHttpResponse(service.handle(converted), response);
    const int status = response.status;
    if (hasBody && !body.finish(drainable(request))) {
        response.status = status;   // httplib sets 400 when a body read stops early; ours stands
        closeAfter(response, true); // unread body bytes are still on the wire
    }
}

void handleWithoutBody(ProtocolService &service, const httplib::Request &request, httplib::Response &response)
{
    if (refusedAsBusy(response) || refusedAsAmbiguous(request, response))
        return;
    toHttpResponse(service.handle(toServiceRequest(request)), response);
}

int answerExpectContinue(const ProtocolService &service, const httplib::Request &request,
                         httplib::Response &response)
{
    if (refusedAsBusy(response) || refusedAsAmbiguous(request, response))
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
        toHttpResponse(ServiceResponse::error(ProtocolError::make(
                           ProtocolErrorCode::HeadersTooLarge,
                           QStringLiteral("the request line and headers are longer than this receiver reads; "
                                          "send at most %1 header fields of %2 bytes in all")
                               .arg(ReceiverLimits().maxHeaderCount)
                               .arg(ReceiverLimits().maxHeaderBytes))),
                       response);
        closeAfter(response); // the rest of the head is still on the wire
        return;
    }
    ProtocolErrorCode code = ProtocolErrorCode::BadRequest;
    if (response.status == 404 || response.status == 405)
        code = ProtocolErrorCode::NotFound;
    else if (response.status == 413 || response.status == 414)
        code = ProtocolErrorCode::TooLarge;
    else if (response.status >= 500)
        code = ProtocolErrorCode::StorageError;
    const int status = response.status;
    // httplib refuses a request line it cannot read (garbage, over 8 KiB) before parsing it: there
    // is no method or path to name then.
    const QString message =
        request.method.empty()
            ? QStringLiteral("the request could not be read as HTTP/1.1 (HTTP %1); send a request line "
                             "'METHOD /v1/… HTTP/1.1' of at most 8 KiB")
                  .arg(status)
            : QStringLiteral("the receiver could not handle %1 %2 (HTTP %3)")
                  .arg(printable(request.method), printable(request.path))
                  .arg(status);
    toHttpResponse(ServiceResponse::error(ProtocolError::make(code, message)), response);
    response.status = status;
}

void fillException(httplib::Response &response)
{
    toHttpResponse(ServiceResponse::error(ProtocolError::make(
                       ProtocolErrorCode::StorageError,
                       QStringLiteral("the receiver failed on this request (out of memory?); try again"))),
                   response);
}

void serveMetrics(const ReceiverMetrics &metrics, const MetricsAccess &access,
                  const httplib::Request &request, httplib::Response &response)
{
    if (!access.allows(QByteArray::fromStdString(request.get_header_value(Protocol::AuthorizationHeader)))) {
        // Built here rather than as a ProtocolError: `unauthorized` belongs to the metrics port.
        const QJsonObject error{
            {QStringLiteral("code"), QStringLiteral("unauthorized")},
            {QStringLiteral("message"),
             QStringLiteral("/metrics needs 'Authorization: Bearer TOKEN' with the token of the receiver's "
                            "--metrics-token-file")}};
        const QByteArray body =
            QJsonDocument(QJsonObject{{QStringLiteral("error"), error}}).toJson(QJsonDocument::Compact);
        response.status = 401;
        response.set_header("WWW-Authenticate", "Bearer");
        response.set_content(body.constData(), std::size_t(body.size()), "application/json");
        return;
    }
    const QByteArray text = metrics.render();
    response.status = 200;
    response.set_content(text.constData(), std::size_t(text.size()),
                         "text/plain; version=0.0.4; charset=utf-8");
}

void beginRequest()
{
    if (t_trace.started)
        return; // the expect-100 handler already began it
    t_trace = {std::chrono::steady_clock::now(), 0, true};
}

void finishRequest(const httplib::Request &request, const httplib::Response &response,
                   const RequestObservers &observers)
{
    const RequestTrace trace = std::exchange(t_trace, RequestTrace());
    if (observers.metrics) {
        observers.metrics->countRequest(RouteLabel::of(request.method, request.path).kind, response.status,
                                        trace.bytesIn, bytesOut(response));
        if (ConnectionQueue::refusing())
            observers.metrics->countBusyRefusal();
        if (trace.completedUpload)
            observers.metrics->countUploadCompletedByChunk();
    }
    if (!observers.accessLog)
        return;
    const double milliseconds =
        trace.started
            ? std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - trace.start)
                  .count()
            : 0.0;
    const QString token =
        observers.tokenId ? observers.tokenId(bytes(request.get_header_value(Protocol::AuthorizationHeader)))
                          : QString();
    observers.accessLog(accessLine(request, response, trace.bytesIn, milliseconds,
                                   token.isEmpty() ? QStringLiteral("-") : token));
}

QString accessLine(const httplib::Request &request, const httplib::Response &response, qint64 bytesIn,
                   double milliseconds, const QString &tokenId)
{
    const RouteLabel route = RouteLabel::of(request.method, request.path);
    QString line = QStringLiteral("ts=") % QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs) %
                   QStringLiteral(" method=") % logfmtValue(request.method) % QStringLiteral(" route=") %
                   QLatin1String(RouteLabel::pathTemplate(route.kind));
    if (!route.id.empty())
        line += QStringLiteral(" id=") % logfmtValue(route.id);
    if (!route.chunk.empty())
        line += QStringLiteral(" chunk=") % logfmtValue(route.chunk);
    if (!route.filePath.empty())
        line += QStringLiteral(" path=") % logfmtValue(route.filePath);
    else if (route.kind == RouteLabel::Kind::Unknown)
        line += QStringLiteral(" path=") % logfmtValue(std::string_view(request.path));
    line += QStringLiteral(" status=") % QString::number(response.status) % QStringLiteral(" bytes_in=") %
            QString::number(bytesIn) % QStringLiteral(" bytes_out=") % QString::number(bytesOut(response)) %
            QStringLiteral(" ms=") % QString::number(milliseconds, 'f', 1) % QStringLiteral(" peer=") %
            logfmtValue(peerOf(request)) % QStringLiteral(" token=") % logfmtValue(tokenId);
    return line;
}

std::optional<QString> logLine(const httplib::Request &request, const httplib::Response &response)
{
    const bool failed = response.status >= 400;
    const bool finished = request.path.starts_with("/v1/files/") || request.path.ends_with("/complete");
    if (!failed && !finished)
        return std::nullopt;
    // httplib has compressed the body by now when the client accepts gzip (Qt's does): then
    // its bytes say nothing to a reader of the log.
    const QString body = response.has_header("Content-Encoding") ? QStringLiteral("(compressed answer)")
                                                                 : printable(response.body);
    // One arg() for all four: a path holding "%0A" (a client's escaped newline) is not a place
    // marker for a later arg() to fill.
    return QStringLiteral("%1 %2 -> %3 %4")
        .arg(printable(request.method), printable(request.path), QString::number(response.status), body);
}

} // namespace multilane::HttpBridge
