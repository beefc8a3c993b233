#pragma once

#include <chrono>
#include <cstddef>
#include <sys/types.h>

struct ssl_st;     // OpenSSL's SSL
struct ssl_ctx_st; // OpenSSL's SSL_CTX

namespace multilane {

// The server side of one TLS connection on a socket it makes non-blocking, for
// HeaderLimitedServer's own connection loop. Nothing here waits except accept(), and that only
// until a deadline: the caller polls with its own deadlines, so a client that trickles its
// handshake or a record holds a thread no longer than one that trickles plain HTTP.
// (httplib's SSLServer waits inside SSL_read on a blocking socket, with per-read timeouts only.)
class TlsSession {
public:
    // What a read or write that made no progress is waiting for.
    enum class Wait { Nothing, Readable, Writable };

    TlsSession(ssl_ctx_st &context, int fd);
    ~TlsSession();
    TlsSession(const TlsSession &) = delete;
    TlsSession &operator=(const TlsSession &) = delete;

    // The handshake; false when it failed or had not finished by `deadline`.
    bool accept(std::chrono::steady_clock::time_point deadline);

    // Without waiting: > 0 bytes; 0 when the client closed; -1 with `wait` set to what to poll
    // for before calling again (Nothing: the connection failed).
    ssize_t readSome(char *buffer, std::size_t size, Wait &wait);
    ssize_t writeSome(const char *data, std::size_t size, Wait &wait);
    // Decrypted bytes already here, which polling the socket would not show.
    bool hasPending() const;
    // Sends close_notify (once), without waiting for the client's.
    void closeNotify();

private:
    ssize_t result(int status, std::size_t done, Wait &wait) const;

    ssl_st *m_ssl = nullptr;
    int m_fd;
    bool m_closeSent = false;
};

} // namespace multilane
