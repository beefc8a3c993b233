#include "HttpFrontEnd.h"

#include "ConnectionQueue.h"
#include "HeaderLimitedServer.h"
#include "HttpBridge.h"
#include "ProtocolNames.h"
#include "ReceiverLimits.h"

#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <netdb.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace multilane {

namespace {

constexpr int MinListenBacklog = 128;              // SOMAXCONN's old value, for a small --max-connections
constexpr std::size_t KeepAliveRequests = 1000000; // httplib's default of 5 would reconnect constantly
// Every path goes to the service, which refuses what it must: ".*" would not match a decoded
// newline (%0a), and httplib would answer such a path 404 instead of 400 bad_path.
constexpr char AnyPath[] = "[\\s\\S]*";
constexpr std::size_t MetricsThreads = 4;
constexpr std::size_t MetricsPayloadLimit = 64 * 1024;

// httplib only says that bind failed; a test bind of our own finds out why.
QString bindProblem(const ListenAddress &address)
{
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo *found = nullptr;
    const QByteArray host = address.host.toUtf8();
    if (::getaddrinfo(host.constData(), QByteArray::number(address.port).constData(), &hints, &found) != 0)
        return QStringLiteral("the host name cannot be resolved");
    int error = 0;
    const int sock = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(sock, found->ai_addr, found->ai_addrlen) != 0)
        error = errno;
    ::close(sock);
    ::freeaddrinfo(found);
    switch (error) {
    case EADDRINUSE:
        return QStringLiteral("port %1 is already in use (another receiver?); stop that program or choose "
                              "another port with --listen")
            .arg(address.port);
    case EADDRNOTAVAIL:
        return QStringLiteral("%1 is not an address of this machine; use one of its addresses or 0.0.0.0")
            .arg(address.host);
    case EACCES:
        return QStringLiteral("port %1 needs privileges; use a port above 1023").arg(address.port);
    default:
        return error ? QString::fromLocal8Bit(std::strerror(error)) : QStringLiteral("binding failed");
    }
}

} // namespace

// A request's head (request line and header fields) may have this many bytes: the service's
// header limit plus room for the request line, so the service, not the budget, answers first.
constexpr std::size_t HeadBudget = std::size_t(ReceiverLimits().maxHeaderBytes) + 16 * 1024;

struct HttpFrontEnd::Listener {
    // HTTP and HTTPS listeners alike bound each request head (size and time) and the handshake.
    std::unique_ptr<HeaderLimitedServer> server;
    ListenAddress address;
    bool metricsOnly = false;
    std::thread thread;
    std::atomic<bool> finished = false;
    // Made at start, where a failure can be told; httplib takes it when it starts listening.
    std::unique_ptr<ConnectionQueue> queue;
};

HttpFrontEnd::HttpFrontEnd(ProtocolService &service)
    : HttpFrontEnd(service, Options())
{}

HttpFrontEnd::HttpFrontEnd(ProtocolService &service, Options options)
    : m_service(service)
    , m_options(std::move(options))
    , m_metrics(m_options.metrics ? m_options.metrics : &m_ownMetrics)
    , m_metricsAccess(m_options.metricsToken)
{}

HttpFrontEnd::~HttpFrontEnd()
{
    stop();
}

std::optional<QString> HttpFrontEnd::start(const QList<ListenAddress> &addresses)
{
    stop();
    if (m_options.tls) {
        m_tls = std::make_unique<ReloadableTlsContext>(*m_options.tls);
        if (auto problem = m_tls->reload())
            return problem;
    }
    QList<std::pair<ListenAddress, bool>> wanted; // address, metrics only
    for (const ListenAddress &address : addresses)
        wanted.append({address, false});
    if (m_options.metricsAddress)
        wanted.append({*m_options.metricsAddress, true});
    for (const auto &[address, metricsOnly] : wanted) {
        auto listener = std::make_unique<Listener>();
        listener->metricsOnly = metricsOnly;
        // A request's head gets as long as an idle connection may wait: generous for any real
        // client (a head is one round trip), fatal for one that trickles it.
        const int headTimeoutMs = 1000 * std::max(1, m_options.idleTimeoutSeconds);
        // The metrics listener stays plain (a local scraper).
        listener->server = std::make_unique<HeaderLimitedServer>(HeadBudget, headTimeoutMs,
                                                                 metricsOnly ? nullptr : m_tls.get());
        // The same options for HTTP and HTTPS.
        httplib::Server &http = *listener->server;
        http.set_keep_alive_max_count(KeepAliveRequests);
        http.set_keep_alive_timeout(std::max(1, m_options.idleTimeoutSeconds));
        http.set_read_timeout(m_options.ioTimeoutSeconds);
        http.set_write_timeout(m_options.ioTimeoutSeconds);
        http.set_tcp_nodelay(true);
        // httplib's default sets SO_REUSEPORT, which lets a second receiver silently share (and
        // split) a port already in use. SO_REUSEADDR alone still allows a quick restart.
        http.set_socket_options([](socket_t sock) {
            const int yes = 1;
            ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        });
        std::optional<QString> problem;
        if (metricsOnly)
            serveMetricsOnly(http);
        else if (const auto why = serveUploads(*listener))
            problem = QStringLiteral("cannot serve %1: %2").arg(address.toString(), *why);
        observe(http);
        if (!problem)
            problem = bind(*listener, address);
        if (problem) {
            for (const auto &bound : m_listeners)
                launch(*bound); // httplib only closes a listening socket through stop()
            stop();
            return problem;
        }
        m_listeners.push_back(std::move(listener));
    }
    for (const auto &listener : m_listeners)
        launch(*listener);
    return std::nullopt;
}

std::optional<QString> HttpFrontEnd::serveUploads(Listener &listener)
{
    httplib::Server &http = *listener.server;
    ProtocolService &service = m_service;
    QString why;
    listener.queue = ConnectionQueue::start(m_options.maxConnections, &m_metrics->openConnections(), &why);
    if (!listener.queue)
        return QStringLiteral("%1 (is the process out of threads? see ulimit -u)").arg(why);
    http.new_task_queue = [&listener] { return listener.queue.release(); };
    // Registered before the catch-all routes, which it would otherwise fall to (404).
    if (m_metricsAccess.requiresToken()) {
        http.Get("/metrics", [this](const httplib::Request &request, httplib::Response &response) {
            HttpBridge::serveMetrics(*m_metrics, m_metricsAccess, request, response);
        });
    }
    const auto withBody = [&service](const httplib::Request &request, httplib::Response &response,
                                     const httplib::ContentReader &content) {
        HttpBridge::handleWithBody(service, request, response, content);
    };
    http.Put(AnyPath, withBody);
    http.Post(AnyPath, withBody);
    http.Delete(AnyPath, withBody);
    // Without a handler httplib would read a PATCH body until the connection closes.
    http.Patch(AnyPath, withBody);
    const auto withoutBody = [&service](const httplib::Request &request, httplib::Response &response) {
        HttpBridge::handleWithoutBody(service, request, response);
    };
    http.Get(AnyPath, withoutBody);
    http.Options(AnyPath, withoutBody);
    http.set_expect_100_continue_handler(
        [&service](const httplib::Request &request, httplib::Response &response) {
            HttpBridge::beginRequest();
            return HttpBridge::answerExpectContinue(service, request, response);
        });
    return std::nullopt;
}

void HttpFrontEnd::serveMetricsOnly(httplib::Server &http)
{
    // A scraper and a health check need few threads; a large body sent here is refused, not read.
    http.new_task_queue = [] { return new httplib::ThreadPool(MetricsThreads); };
    http.set_payload_max_length(MetricsPayloadLimit);
    http.Get("/metrics", [this](const httplib::Request &request, httplib::Response &response) {
        HttpBridge::serveMetrics(*m_metrics, m_metricsAccess, request, response);
    });
    ProtocolService &service = m_service;
    http.Get(Protocol::HealthRoute, [&service](const httplib::Request &request, httplib::Response &response) {
        HttpBridge::handleWithoutBody(service, request, response);
    });
}

// What every listener shares: our JSON errors, the per-request counters and log lines.
void HttpFrontEnd::observe(httplib::Server &http)
{
    http.set_pre_routing_handler([](const httplib::Request &, httplib::Response &) {
        HttpBridge::beginRequest();
        return httplib::Server::HandlerResponse::Unhandled;
    });
    http.set_error_handler([](const httplib::Request &request, httplib::Response &response) {
        HttpBridge::fillLibraryError(request, response);
    });
    http.set_exception_handler([](const httplib::Request &, httplib::Response &response, std::exception_ptr) {
        HttpBridge::fillException(response);
    });
    HttpBridge::RequestObservers observers{m_metrics, m_options.accessLog, m_options.tokenId};
    http.set_logger(
        [log = m_options.log, observers](const httplib::Request &request, const httplib::Response &response) {
            HttpBridge::finishRequest(request, response, observers);
            if (!log)
                return;
            if (const auto line = HttpBridge::logLine(request, response))
                log(*line);
        });
}

std::optional<QString> HttpFrontEnd::bind(Listener &listener, const ListenAddress &address)
{
    int port = address.port;
    if (port == 0)
        port = listener.server->bind_to_any_port(address.host.toStdString());
    else if (!listener.server->bind_to_port(address.host.toStdString(), port))
        port = -1;
    if (port <= 0)
        return QStringLiteral("cannot listen on %1: %2").arg(address.toString(), bindProblem(address));
    // As many as may be served at once can wait to be accepted (the kernel caps it at somaxconn).
    if (!listener.server->setListenBacklog(std::max(MinListenBacklog, m_options.maxConnections)))
        return QStringLiteral("cannot listen on %1: %2")
            .arg(address.toString(), QString::fromLocal8Bit(std::strerror(errno)));
    listener.address = {address.host, quint16(port)};
    return std::nullopt;
}

void HttpFrontEnd::launch(Listener &listener)
{
    listener.thread = std::thread([&listener] {
        listener.server->listen_after_bind();
        listener.finished = true;
    });
    // httplib's stop() does nothing until the accept loop runs, so a stop() right after start()
    // would otherwise leave a thread serving forever.
    while (!listener.server->is_running() && !listener.finished)
        std::this_thread::yield();
}

QList<ListenAddress> HttpFrontEnd::boundAddresses() const
{
    QList<ListenAddress> bound;
    for (const auto &listener : m_listeners) {
        if (!listener->metricsOnly)
            bound.append(listener->address);
    }
    return bound;
}

std::optional<ListenAddress> HttpFrontEnd::boundMetricsAddress() const
{
    for (const auto &listener : m_listeners) {
        if (listener->metricsOnly)
            return listener->address;
    }
    return std::nullopt;
}

QString HttpFrontEnd::certificateSha256() const
{
    return m_tls ? m_tls->certificateSha256() : QString();
}

std::optional<QString> HttpFrontEnd::reloadTls()
{
    return m_tls ? m_tls->reload() : std::nullopt;
}

HttpFrontEnd::TlsHandshakes HttpFrontEnd::tlsHandshakes() const
{
    return m_tls ? m_tls->handshakes() : TlsHandshakes();
}

void HttpFrontEnd::stop()
{
    for (const auto &listener : m_listeners)
        listener->server->stop();
    for (const auto &listener : m_listeners) {
        if (listener->thread.joinable())
            listener->thread.join();
    }
    m_listeners.clear();
}

} // namespace multilane
