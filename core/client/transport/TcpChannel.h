#pragma once

#include "ByteChannel.h"

#include <QHostAddress>
#include <QList>
#include <memory>

class QHostInfo;
class QSocketNotifier;

namespace multilane {

// A plain TCP connection on a socket of its own: non-blocking, without Nagle's algorithm (each
// request's last short segment must not wait for an acknowledgement), file bodies handed to the
// kernel with sendfile() so they are never copied through this process. Names are resolved
// with QHostInfo (asynchronous, cached by Qt); each address is tried in turn.
class TcpChannel final : public ByteChannel {
    Q_OBJECT
public:
    explicit TcpChannel(QObject *parent = nullptr);
    ~TcpChannel() override;

    void open(const QString &host, quint16 port) override;
    qint64 write(const char *data, qint64 size, bool more = false) override;
    qint64 sendFile(int fileFd, qint64 offset, qint64 length) override;
    qint64 read(char *data, qint64 size) override;
    void watchWritable(bool on) override;
    int descriptor() const override { return m_fd; }
    void close() override;

private:
    void resolved(const QHostInfo &info);
    void connectNext();
    void onWritable();
    void fail(const QString &message, bool refused = false);
    void watch();

    QString m_host;
    quint16 m_port = 0;
    QList<QHostAddress> m_addresses;
    int m_lastError = 0;
    int m_fd = -1;
    bool m_connecting = false;
    int m_lookupId = -1;
    std::unique_ptr<QSocketNotifier> m_readNotifier;
    std::unique_ptr<QSocketNotifier> m_writeNotifier;
};

} // namespace multilane
