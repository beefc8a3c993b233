#include "TlsSession.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <fcntl.h>
#include <poll.h>

namespace multilane {

TlsSession::TlsSession(ssl_ctx_st &context, int fd)
    : m_ssl(SSL_new(&context))
    , m_fd(fd)
{
    const int flags = ::fcntl(fd, F_GETFL, 0);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 || !m_ssl || SSL_set_fd(m_ssl, fd) != 1) {
        SSL_free(m_ssl);
        m_ssl = nullptr;
        return;
    }
    // A write that could not finish is retried with what is left, from wherever it now lives.
    SSL_set_mode(m_ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_set_accept_state(m_ssl);
}

TlsSession::~TlsSession()
{
    SSL_free(m_ssl);
}

bool TlsSession::accept(std::chrono::steady_clock::time_point deadline)
{
    if (!m_ssl)
        return false;
    for (;;) {
        ERR_clear_error();
        const int status = SSL_accept(m_ssl);
        if (status == 1)
            return true;
        const int error = SSL_get_error(m_ssl, status);
        short events = 0;
        if (error == SSL_ERROR_WANT_READ)
            events = POLLIN;
        else if (error == SSL_ERROR_WANT_WRITE)
            events = POLLOUT;
        else
            return false; // not TLS (plain HTTP to an https port), or a failed handshake
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return false;
        pollfd entry{m_fd, events, 0};
        int ready = 0;
        do {
            ready = ::poll(&entry, 1, int(left.count()));
        } while (ready < 0 && errno == EINTR);
        if (ready <= 0)
            return false;
    }
}

ssize_t TlsSession::result(int status, std::size_t done, Wait &wait) const
{
    wait = Wait::Nothing;
    if (status == 1)
        return ssize_t(done);
    switch (SSL_get_error(m_ssl, status)) {
    case SSL_ERROR_WANT_READ:
        wait = Wait::Readable;
        return -1;
    case SSL_ERROR_WANT_WRITE:
        wait = Wait::Writable;
        return -1;
    case SSL_ERROR_ZERO_RETURN: // close_notify
        return 0;
    default:
        return -1;
    }
}

ssize_t TlsSession::readSome(char *buffer, std::size_t size, Wait &wait)
{
    if (!m_ssl) {
        wait = Wait::Nothing;
        return -1;
    }
    ERR_clear_error();
    std::size_t done = 0;
    const int status = SSL_read_ex(m_ssl, buffer, size, &done);
    return result(status, done, wait);
}

ssize_t TlsSession::writeSome(const char *data, std::size_t size, Wait &wait)
{
    if (!m_ssl) {
        wait = Wait::Nothing;
        return -1;
    }
    ERR_clear_error();
    std::size_t done = 0;
    const int status = SSL_write_ex(m_ssl, data, size, &done);
    return result(status, done, wait);
}

bool TlsSession::hasPending() const
{
    return m_ssl && SSL_pending(m_ssl) > 0;
}

void TlsSession::closeNotify()
{
    if (m_ssl && !m_closeSent && SSL_is_init_finished(m_ssl)) {
        m_closeSent = true;
        ERR_clear_error();
        SSL_shutdown(m_ssl);
    }
}

} // namespace multilane
