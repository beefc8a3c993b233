#pragma once

#include <httplib.h>

#include <cstddef>

namespace multilane {
class ReloadableTlsContext;
}

namespace multilane {

// An httplib::Server (plain HTTP, or HTTPS with a TLS context) with its own connection loop, which
// reads at most `headBudget` bytes of each request's head (request line and header fields).
// cpp-httplib 0.11.4 reads a header line, however long, into memory before it looks at it, and has
// no cap on the number of lines; past the budget this server's connection stops reading, httplib
// answers the request (HttpBridge turns it into 431 `headers_too_large`), and the connection is
// closed after a short, bounded drain that lets the client read the answer. A head must also arrive
// whole within a deadline (408 otherwise), and a TLS handshake within the same: httplib's read
// timeout restarts with every byte, so one byte a second would hold a thread forever. Bodies are not
// limited here. It also closes a connection whose response said `Connection: close`, draining what
// the client still sends in the same way. Private to the http library.
class HeaderLimitedServer : public httplib::Server {
public:
    // headTimeoutMs: a request's whole head (from its first byte) must arrive within this; a
    // client trickling it (slowloris) gets 408 and loses the connection, whatever the per-read
    // timeout says.
    // tls: serve HTTPS with the context it holds when each connection starts (it must outlive the
    // server); null for plain HTTP.
    HeaderLimitedServer(std::size_t headBudget, int headTimeoutMs, const ReloadableTlsContext *tls = nullptr);

    // True on a server thread whose current request ran out of its head budget.
    static bool headBudgetExceeded();
    // Called from a handler: close the connection once the current response is written.
    // (httplib only honours `Connection: close` when the request sent it.) bodyLeftUnread: the
    // client is still sending a body nobody read, which is read and dropped (bounded) before the
    // close, or the close would reset the connection and the client would never see the answer.
    static void closeAfterResponse(bool bodyLeftUnread = false);

    // After a bind: let up to `backlog` connections wait to be accepted. httplib 0.11 listens
    // with a backlog of 5, and a client that opens its connections at once (64 a port by
    // default) overflows that: the kernel drops the other handshakes, which wait a second for
    // their retransmission, or fail mid-request on a rejected SYN cookie (docs/performance.md).
    bool setListenBacklog(int backlog);

private:
    // Replaces httplib's keep-alive loop (same semantics: keep-alive count, idle timeout, stop)
    // so every request is read through a stream that counts its head.
    bool process_and_close_socket(socket_t sock) override;
    bool waitForRequest(socket_t sock) const;

    std::size_t m_headBudget;
    int m_headTimeoutMs;
    const ReloadableTlsContext *m_tls;
};

} // namespace multilane
