// Issue #14: crashes and restarts cost nothing but the bytes in flight. The real client and the
// real receiver are killed with SIGKILL, alternately, at their endpoint check, a create, a last
// chunk, a complete and random moments; every file must arrive byte for byte with nothing extra,
// the wire must carry no more than the data plus what the kills caught in flight (+1 %), and no
// process may print Qt's internals. MULTILANE_CHAOS=bench runs issue #14's long version.
#include "ChaosRun.h"
#include "QtMessages.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTest>

namespace {

QString mib(qint64 bytes)
{
    return QString::number(double(bytes) / 1048576.0, 'f', 1) + QStringLiteral(" MiB");
}

QString msOrNone(qint64 ms)
{
    return ms < 0 ? QStringLiteral("-") : QString::number(ms) + QStringLiteral(" ms");
}

} // namespace

class TestChaos : public QObject {
    Q_OBJECT

    static void printKills(const ChaosRun &run, qint64 *clientWorst, qint64 *receiverWorst)
    {
        qInfo("round  victim    moment           at (s)   back->first data byte");
        for (const ChaosRun::Kill &kill : run.kills()) {
            const qint64 ttfb = kill.firstDataMs < 0 ? -1 : kill.firstDataMs - kill.backMs;
            qint64 *worst = kill.victim == KillPlan::Victim::Client ? clientWorst : receiverWorst;
            *worst = std::max(*worst, ttfb);
            qInfo(
                "%5d  %-8s  %-15s  %7.2f  %s", kill.round + 1, qPrintable(KillPlan::nameOf(kill.victim)),
                qPrintable(KillPlan::nameOf(kill.moment) + (kill.fellBack ? QStringLiteral("*") : QString())),
                double(kill.atMs) / 1000.0, qPrintable(msOrNone(ttfb)));
        }
    }

    static QStringList qtLines(const ChaosRun &run)
    {
        QStringList found;
        for (const ChaosRun::Log &log : run.logs()) {
            for (const QString &line : QtMessages::find(log.stderrText))
                found.append(log.what + QStringLiteral(": ") + line);
        }
        return found;
    }

    // MULTILANE_CHAOS_LOGS=DIR keeps every process's stderr and stdout there, to be read.
    static void keepLogs(const ChaosRun &run)
    {
        const QString folder = qEnvironmentVariable("MULTILANE_CHAOS_LOGS");
        if (folder.isEmpty())
            return;
        QDir().mkpath(folder);
        int index = 0;
        for (const ChaosRun::Log &log : run.logs()) {
            QFile file(QDir(folder).filePath(
                QStringLiteral("%1 %2.log").arg(++index, 2, 10, QLatin1Char('0')).arg(log.what)));
            if (file.open(QIODevice::WriteOnly))
                file.write("exit " + QByteArray::number(log.exitCode) + "\n--- stderr\n" + log.stderrText +
                           "--- stdout\n" + log.stdoutText);
        }
    }

private Q_SLOTS:

    void killCycleLosesOnlyTheBytesInFlight()
    {
        const ChaosProfile profile = ChaosProfile::fromEnvironment();
        qInfo("%s", qPrintable(profile.describe()));
        ChaosRun run(profile);
        const QString prepared = run.prepare();
        QVERIFY2(prepared.isEmpty(), qPrintable(prepared));
        const QString problem = run.run();
        run.stopReceiver();
        keepLogs(run);

        qint64 clientWorst = -1;
        qint64 receiverWorst = -1;
        printKills(run, &clientWorst, &receiverWorst);
        const WireLedger::Totals totals = run.ledger().totals();
        const qint64 data = run.data().totalBytes();
        const qint64 allowed = data + totals.inFlight + data / 100;
        qInfo("data %s; wire %s (%.3fx), of which in flight at the kills %s in %d requests; "
              "answered data sent again %s, refused %s, probes %s, control %s; link carried %s; "
              "resumes refused at the check %d",
              qPrintable(mib(data)), qPrintable(mib(totals.wire)), double(totals.wire) / double(data),
              qPrintable(mib(totals.inFlight)), totals.inFlightRequests, qPrintable(mib(totals.dataTwice)),
              qPrintable(mib(totals.dataRefused)), qPrintable(mib(totals.probe)),
              qPrintable(mib(totals.control)),
              qPrintable(run.linkBytes() < 0 ? QStringLiteral("-") : mib(run.linkBytes())),
              run.refusedResumes());
        qInfo("chaos-result profile=%s seed=%u rate=%.0f rtt=%d kills=%d data=%lld wire=%lld inflight=%lld "
              "twice=%lld link=%lld ttfb_client_max=%lld ttfb_receiver_max=%lld",
              qPrintable(profile.name), profile.seed, profile.linkBytesPerSecond, profile.rttMs,
              int(run.kills().size()), data, totals.wire, totals.inFlight, totals.dataTwice, run.linkBytes(),
              clientWorst, receiverWorst);

        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        const QStringList wrong = run.data().problemsIn(run.storage());
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QLatin1Char('\n'))));
        const QStringList qt = qtLines(run);
        QVERIFY2(qt.isEmpty(), qPrintable(qt.join(QLatin1Char('\n'))));
        QVERIFY2(totals.wire <= allowed,
                 qPrintable(QStringLiteral("the wire carried %1 bytes, more than the data and what was in "
                                           "flight at the kills allow (%2)")
                                .arg(totals.wire)
                                .arg(allowed)));
        // Most rounds must have found their moment: a run that ended before its kills tests little.
        QVERIFY2(
            run.kills().size() >= profile.rounds - 2,
            qPrintable(
                QStringLiteral("only %1 of %2 kills happened").arg(run.kills().size()).arg(profile.rounds)));

        QProcess status;
        status.start(QStringLiteral(MULTILANE_CLIENT_BIN),
                     {QStringLiteral("status"), QStringLiteral("--state-dir"), run.stateDir()});
        QVERIFY(status.waitForFinished(30000));
        QCOMPARE(status.readAllStandardOutput(), QByteArray("no unfinished uploads\n"));
    }
};

QTEST_GUILESS_MAIN(TestChaos)
#include "tst_chaos.moc"
