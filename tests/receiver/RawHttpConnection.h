#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QSslSocket>
#include <QUrl>

// One TCP connection that speaks HTTP by hand, for hostile-input tests: it sends exactly the bytes
// it is given (no normalisation of paths, no added headers) and parses what comes back. An https
// endpoint gets a TLS connection first (any certificate accepted: the receiver is the one tested).
class RawHttpConnection {
public:
    struct Reply {
        int status = 0;      // 0: no complete answer came
        bool closed = false; // the receiver closed the connection (before or after answering)
        QByteArray head;     // status line and headers
        QByteArray body;
        QJsonObject json() const;
        QByteArray errorCode() const; // {"error":{"code":…}}
        QByteArray header(const QByteArray &name) const;
    };

    explicit RawHttpConnection(const QUrl &endpoint);

    bool isConnected() const { return m_socket.state() == QAbstractSocket::ConnectedState; }
    // Writes and waits until the kernel took the bytes; false when the connection is gone.
    bool send(const QByteArray &bytes);
    // Reads one answer (head, then Content-Length bytes of body); bounded by timeoutMs.
    Reply readReply(int timeoutMs = 10000);
    // True when the peer closed the connection within timeoutMs.
    bool waitClosed(int timeoutMs);
    void close() { m_socket.abort(); }
    // Ends the request stream (FIN) but keeps reading: the receiver sees a client that stopped
    // mid-body exactly as after close(), and its answer shows when it has dealt with that.
    bool stopSending();
    QTcpSocket &socket() { return m_socket; }

    // A whole exchange on a fresh connection.
    static Reply exchange(const QUrl &endpoint, const QByteArray &request, int timeoutMs = 10000);
    // "PUT <target> HTTP/1.1" with Host, the given extra header lines and a Content-Length for body.
    static QByteArray request(const QByteArray &method, const QByteArray &target, const QByteArray &body = {},
                              const QByteArray &extraHeaders = {});

private:
    bool readMore(qint64 deadlineMs);

    QSslSocket m_socket;
    QByteArray m_buffer;
    bool m_peerClosed = false;
};
