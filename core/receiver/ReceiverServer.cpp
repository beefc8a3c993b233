#include "ReceiverServer.h"

#include "ConnectionQueue.h"
#include "HttpBridge.h"

#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <netdb.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace multilane {

namespace {

constexpr std::size_t KeepAliveRequests = 1000000; // httplib's default of 5 would reconnect constantly

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

struct ReceiverServer::Listener {
    std::unique_ptr<httplib::Server> server; // an httplib::SSLServer when TLS is on
    SSL_CTX *tlsContext = nullptr;           // owned by the SSLServer
    ListenAddress address;
    std::thread thread;
    std::atomic<bool> finished = false;
};

ReceiverServer::ReceiverServer(ReceiverService &service)
    : ReceiverServer(service, Options())
{}

ReceiverServer::ReceiverServer(ReceiverService &service, Options options)
    : m_service(service)
    , m_options(std::move(options))
{}

ReceiverServer::~ReceiverServer()
{
    stop();
}

std::optional<QString> ReceiverServer::start(const QList<ListenAddress> &addresses)
{
    stop();
    ReceiverService &service = m_service;
    for (const ListenAddress &address : addresses) {
        auto listener = std::make_unique<Listener>();
        if (m_options.tls) {
            std::optional<QString> tlsProblem;
            auto secure = std::make_unique<httplib::SSLServer>(
                [&tlsProblem, &files = *m_options.tls](SSL_CTX &context) {
                    tlsProblem = TlsServerContext::configure(context, files);
                    return !tlsProblem;
                });
            if (!secure->is_valid()) {
                for (const auto &bound : m_listeners)
                    launch(*bound);
                stop();
                return tlsProblem.value_or(QStringLiteral("cannot set up TLS"));
            }
            listener->tlsContext = secure->ssl_context();
            listener->server = std::move(secure);
        } else {
            listener->server = std::make_unique<httplib::Server>();
        }
        // The same options for HTTP and HTTPS: SSLServer only wraps each accepted socket.
        httplib::Server &http = *listener->server;
        const int maxConnections = m_options.maxConnections;
        http.new_task_queue = [maxConnections] { return new ConnectionQueue(maxConnections); };
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
        const auto withBody = [&service](const httplib::Request &request, httplib::Response &response,
                                         const httplib::ContentReader &content) {
            HttpBridge::handleWithBody(service, request, response, content);
        };
        http.Put(".*", withBody);
        http.Post(".*", withBody);
        http.Delete(".*", withBody);
        // Without a handler httplib would read a PATCH body until the connection closes.
        http.Patch(".*", withBody);
        const auto withoutBody = [&service](const httplib::Request &request, httplib::Response &response) {
            HttpBridge::handleWithoutBody(service, request, response);
        };
        http.Get(".*", withoutBody);
        http.Options(".*", withoutBody);
        http.set_expect_100_continue_handler(
            [&service](const httplib::Request &request, httplib::Response &response) {
                return HttpBridge::answerExpectContinue(service, request, response);
            });
        http.set_error_handler([](const httplib::Request &request, httplib::Response &response) {
            HttpBridge::fillLibraryError(request, response);
        });
        http.set_exception_handler([](const httplib::Request &, httplib::Response &response,
                                      std::exception_ptr) { HttpBridge::fillException(response); });
        if (m_options.log) {
            http.set_logger(
                [log = m_options.log](const httplib::Request &request, const httplib::Response &response) {
                    if (const auto line = HttpBridge::logLine(request, response))
                        log(*line);
                });
        }

        int port = address.port;
        if (port == 0)
            port = http.bind_to_any_port(address.host.toStdString());
        else if (!http.bind_to_port(address.host.toStdString(), port))
            port = -1;
        if (port <= 0) {
            for (const auto &bound : m_listeners)
                launch(*bound); // httplib only closes a listening socket through stop()
            stop();
            return QStringLiteral("cannot listen on %1: %2").arg(address.toString(), bindProblem(address));
        }
        listener->address = {address.host, quint16(port)};
        m_listeners.push_back(std::move(listener));
    }
    for (const auto &listener : m_listeners)
        launch(*listener);
    return std::nullopt;
}

void ReceiverServer::launch(Listener &listener)
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

QList<ListenAddress> ReceiverServer::boundAddresses() const
{
    QList<ListenAddress> bound;
    for (const auto &listener : m_listeners)
        bound.append(listener->address);
    return bound;
}

QString ReceiverServer::certificateSha256() const
{
    if (m_listeners.empty() || !m_listeners.front()->tlsContext)
        return {};
    return TlsServerContext::certificateSha256(*m_listeners.front()->tlsContext);
}

ReceiverServer::TlsHandshakes ReceiverServer::tlsHandshakes() const
{
    TlsHandshakes total;
    for (const auto &listener : m_listeners) {
        if (!listener->tlsContext)
            continue;
        total.completed += SSL_CTX_sess_accept_good(listener->tlsContext);
        total.resumed += SSL_CTX_sess_hits(listener->tlsContext);
    }
    return total;
}

void ReceiverServer::stop()
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
