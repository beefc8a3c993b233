#pragma once

#include <QObject>
#include <QTcpServer>
#include <QUrl>

// A loopback TCP proxy that flips one byte of what the client sends, once, at a given offset
// of the first connection: corruption in transit, which only checksums can catch.
class CorruptingProxy : public QObject {
    Q_OBJECT
public:
    CorruptingProxy(const QUrl &target, qint64 corruptAtOffset, QObject *parent = nullptr);

    QUrl url() const;
    bool corrupted() const { return m_corrupted; }

private:
    void onNewConnection();

    QTcpServer m_server;
    QUrl m_target;
    qint64 m_corruptAt;
    bool m_firstConnection = true;
    bool m_corrupted = false;
};
