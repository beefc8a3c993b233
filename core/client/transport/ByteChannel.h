#pragma once

#include <QObject>
#include <QString>
#include <optional>

namespace multilane {

// Why a channel could not carry bytes: for people, and for the reply's TLS fields.
struct ChannelFailure {
    QString message;
    bool connectionRefused = false;
    // Set when the TLS handshake failed ("tls_untrusted", "tls_pin_mismatch", "tls_failed"):
    // retrying cannot help.
    QString tlsCode;
};

// The bytes of one connection, plain TCP or TLS, non-blocking and driven by the Qt event loop
// of the thread it lives in. DirectConnection speaks HTTP over it and never knows which it is.
class ByteChannel : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    // Connects (and for TLS shakes hands); ready() or failed() follows.
    virtual void open(const QString &host, quint16 port) = 0;
    // Takes what it can of data now: the count taken, 0 when full (writable() follows), -1 on
    // failure (failed() follows). `more`: further bytes follow at once (no segment of its own).
    virtual qint64 write(const char *data, qint64 size, bool more = false) = 0;
    // Like write(), from [offset, offset + length) of an open file: without copying it through
    // this process where the channel can (sendfile), read into a buffer where it cannot (TLS).
    // -2: the file gave fewer bytes than asked (shortened while it was sent).
    virtual qint64 sendFile(int fileFd, qint64 offset, qint64 length) = 0;
    // What arrived, up to size: the count, 0 when nothing is there now (readable() follows), -1
    // when the peer closed the connection (or it broke).
    virtual qint64 read(char *data, qint64 size) = 0;
    // Whether writable() should be signalled (only while something waits to be written).
    virtual void watchWritable(bool on) = 0;
    // The TCP socket, for TCP_INFO; -1 while there is none.
    virtual int descriptor() const = 0;
    // Closes at once; no more signals.
    virtual void close() = 0;
    // The failure that ended it, when one did.
    const std::optional<ChannelFailure> &failure() const { return m_failure; }

Q_SIGNALS:
    void ready();
    void readable();
    void writable();
    void failed();

protected:
    void setFailure(const ChannelFailure &failure)
    {
        if (!m_failure)
            m_failure = failure;
    }

private:
    std::optional<ChannelFailure> m_failure;
};

} // namespace multilane
