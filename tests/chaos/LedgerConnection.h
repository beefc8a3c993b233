#pragma once

#include "HttpFramer.h"

#include <QList>
#include <QObject>
#include <QTcpSocket>

class WireLedger;

// One proxied connection: what the client sends goes to the receiver and into the ledger request
// by request, the receiver's answers come back and mark their requests answered. It reads from
// one side only while the other takes the bytes (backpressure), so it holds at most about a
// megabyte per direction and the link's own pace shows through.
class LedgerConnection : public QObject {
    Q_OBJECT
public:
    LedgerConnection(WireLedger &ledger, int endpoint, QTcpSocket *client, quint16 targetPort,
                     QObject *parent = nullptr);

private:
    void pumpUp();
    void pumpDown();
    void onUpstreamGone();
    void onClientGone();
    void finishIfDone();
    void recordRequests(const QByteArray &bytes);
    void recordAnswers(const QByteArray &bytes);

    WireLedger &m_ledger;
    int m_endpoint;
    int m_connection; // the ledger's number for it
    QTcpSocket *m_client;
    QTcpSocket m_upstream;
    HttpFramer m_requests{HttpFramer::Direction::Requests};
    HttpFramer m_answers{HttpFramer::Direction::Answers};
    QList<int> m_awaiting; // requests sent on this connection whose answers have not ended
    int m_sending = -1;    // the request whose body is coming in
    bool m_upstreamConnected = false;
    bool m_upstreamGone = false;
    bool m_clientGone = false;
};
