#pragma once

#include "ChaosData.h"
#include "ChaosProfile.h"
#include "KillPlan.h"
#include "LinksimProcess.h"
#include "ReceiverProcess.h"
#include "WireLedger.h"

#include <QEventLoop>
#include <QObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>
#include <memory>
#include <vector>

class LedgerProxy;

// One chaos run: the data set uploaded by the real client to the real receiver (three ports)
// through a counting proxy and, when the profile says, linksim; each round kills the client or
// the receiver at its moment (KillPlan) and brings it back the way a user would (`multilane
// resume`, a restarted receiver). It records what the wire carried, what was in flight at each
// kill, how long each restart took to its first data byte, and every process's stderr.
class ChaosRun : public QObject {
    Q_OBJECT
public:
    struct Kill {
        int round = 0;
        KillPlan::Victim victim = KillPlan::Victim::Client;
        KillPlan::Moment moment = KillPlan::Moment::Time;
        bool fellBack = false; // its moment did not come in time: killed at the fallback
        qint64 atMs = 0;
        qint64 backMs = -1;      // the client started again, or the receiver listening again
        qint64 firstDataMs = -1; // the first data byte after that, -1: none before the next kill
    };
    struct Log {
        QString what; // "client 3 (resume)", "receiver 2"
        QByteArray stderrText;
        QByteArray stdoutText;
        int exitCode = -1; // -1: killed
    };

    explicit ChaosRun(const ChaosProfile &profile, QObject *parent = nullptr);
    ~ChaosRun() override;

    // Writes the data, starts the receiver, the proxies and the link. Empty when it worked.
    QString prepare();
    // The rounds, then the upload to its end. Empty when the client finished with 0.
    QString run();

    const ChaosData &data() const { return m_data; }
    const WireLedger &ledger() const { return m_ledger; }
    const QList<Kill> &kills() const { return m_kills; }
    const QList<Log> &logs() const { return m_logs; }
    QString storage() const { return m_storage.path(); }
    QString stateDir() const { return m_work.filePath(QStringLiteral("state")); }
    // Bytes the client put on the link (linksim's count), -1 without a link.
    qint64 linkBytes() const;
    int refusedResumes() const { return m_refusedResumes; }
    // Stops the receiver and adds its last log to logs().
    void stopReceiver();

private:
    void startClient();
    void onClientExited(int exitCode, QProcess::ExitStatus status);
    void beginRound();
    void arm();
    void disarm();
    void onRequestStarted(int id);
    void onRequestSent(int id);
    void onAnswerStarted(int id);
    // The armed round kills `victim` at a create or a complete, and request `id` is one.
    bool atFileMoment(int id, KillPlan::Victim victim) const;
    void fire(bool fellBack);
    void killReceiver();
    void restartReceiver();
    void endWith(const QString &problem);
    void keepReceiverLog();
    QStringList clientArguments() const;
    const KillPlan::Round *armedRound() const;

    ChaosProfile m_profile;
    KillPlan m_plan;
    QTemporaryDir m_work;
    QTemporaryDir m_storage;
    ChaosData m_data;
    WireLedger m_ledger;
    std::unique_ptr<ReceiverProcess> m_receiver;
    std::vector<std::unique_ptr<LedgerProxy>> m_proxies;
    std::unique_ptr<LinksimProcess> m_link;
    QString m_linkReport;
    std::unique_ptr<QProcess> m_client;
    int m_clientRuns = 0;
    int m_round = 0; // the round under way (== rounds: all done)
    bool m_armed = false;
    bool m_clientKilled = false;
    bool m_receiverDown = false;
    bool m_resumeWhenUp = false;
    int m_refusedResumes = 0;
    qint64 m_roundData = 0; // the ledger's data bytes when the round began
    QTimer m_moment;        // Time: the kill; Bytes: polls the count
    QTimer m_fallback;
    QTimer m_deadline;
    QList<Kill> m_kills;
    QList<Log> m_logs;
    QEventLoop m_loop;
    QString m_problem;
    bool m_finished = false;
};
