#pragma once

#include "ByteChannel.h"
#include "Endpoint.h"

#include <QByteArray>
#include <QList>
#include <QSslError>
#include <memory>

class QSslSocket;

namespace multilane {

// An https connection: QSslSocket over a TCP socket without Nagle's algorithm, trusting what
// TlsTrust says for the endpoint (system CAs plus its CA file, or exactly its pinned
// certificate). File bodies are read in pieces and encrypted; no more than a bound waits in the
// socket's buffers. A failed handshake is reported in TlsTrust's words, so the user learns the fix.
class TlsChannel final : public ByteChannel {
    Q_OBJECT
public:
    // sessionTicket: one from an earlier connection to the same address, to resume (may be empty).
    TlsChannel(const Endpoint &endpoint, const QByteArray &sessionTicket, QObject *parent = nullptr);
    ~TlsChannel() override;

    void open(const QString &host, quint16 port) override;
    qint64 write(const char *data, qint64 size, bool more = false) override;
    qint64 sendFile(int fileFd, qint64 offset, qint64 length) override;
    qint64 read(char *data, qint64 size) override;
    void watchWritable(bool on) override { m_watchWritable = on; }
    int descriptor() const override;
    void close() override;
    // The session ticket the server gave (for the next connection), empty when none came.
    QByteArray sessionTicket() const;

private:
    void onSslErrors(const QList<QSslError> &errors);
    void onEncrypted();
    void onError();
    qint64 room() const;
    QString endpointName() const;

    Endpoint m_endpoint;
    std::unique_ptr<QSslSocket> m_socket;
    QByteArray m_buffer; // a file body's piece, read before it is encrypted
    bool m_watchWritable = false;
    bool m_ready = false;
    bool m_closed = false;
};

} // namespace multilane
