#pragma once

#include <QObject>
#include <QTcpServer>
#include <QUrl>

class WireLedger;

// A loopback port in front of one receiver port that writes every request into the ledger
// (LedgerConnection). While its receiver is down it does not listen either, so a client's
// connection is refused as it would be by the receiver's own closed port.
class LedgerProxy : public QObject {
    Q_OBJECT
public:
    LedgerProxy(WireLedger &ledger, int endpoint, quint16 targetPort, QObject *parent = nullptr);

    bool isListening() const { return m_server.isListening(); }
    quint16 port() const { return m_port; }
    QUrl url() const;
    // Down: new connections are refused; the open ones end as their receiver closes them.
    bool setTargetUp(bool up);

private:
    WireLedger &m_ledger;
    int m_endpoint;
    quint16 m_targetPort;
    quint16 m_port = 0;
    QTcpServer m_server;
};
