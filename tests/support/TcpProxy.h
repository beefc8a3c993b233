#pragma once

#include <QObject>
#include <QTcpServer>
#include <QUrl>

// A loopback TCP proxy in front of a receiver port. It counts what the client sends (the bytes
// that really reached the receiver) and can flip one byte of the first connection's stream at a
// given offset, once: corruption in transit, which only checksums can catch.
class TcpProxy : public QObject {
    Q_OBJECT
public:
    // corruptAtOffset < 0: forward faithfully.
    explicit TcpProxy(const QUrl &target, qint64 corruptAtOffset = -1, QObject *parent = nullptr);

    QUrl url() const;
    bool corrupted() const { return m_corrupted; }
    qint64 bytesUpstream() const { return m_bytesUpstream; }
    int openConnections() const { return m_openConnections; }

Q_SIGNALS:
    void forwardedUpstream(qint64 total);

private:
    void onNewConnection();

    QTcpServer m_server;
    QUrl m_target;
    qint64 m_corruptAt;
    bool m_firstConnection = true;
    bool m_corrupted = false;
    qint64 m_bytesUpstream = 0;
    int m_openConnections = 0;
};
