// The command line and the window are two front ends over one upload flow (UploadRun for a
// batch, ResumePlan for what the journal left): each scenario runs through both, in-process
// against the real receiver on loopback, and must end the same way. Before the flow was one, the
// window dropped a changed file on resume where the command line sent it again, tuned a batch
// whose connection count the user had fixed, and measured the link with code of its own.
#include "CommandLine.h"
#include "ReachabilityHint.h"
#include "ReceiverProcess.h"
#include "ResumeCommand.h"
#include "ResumeJournal.h"
#include "SettingsStore.h"
#include "TestFiles.h"
#include "TransferController.h"
#include "TransferScheduler.h"
#include "UploadCommand.h"
#include "UploadRun.h"
#include "UploadSession.h"

#include <QFileInfo>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <functional>

using namespace multilane;

enum class FrontEnd { CommandLine, Window };
Q_DECLARE_METATYPE(FrontEnd)

class TestOneFlow : public QObject {
    Q_OBJECT

    // What a run looked like once it started, and how it ended.
    struct Observed {
        bool started = false;
        bool selfTuned = true;
        int connections = 0;
        int filesFailed = -1;
        int remeasured = 0;
    };

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ReceiverProcess> m_receiver;
    QString m_storage;

    QString path(const QString &name) const { return m_dir->filePath(name); }

    QList<Endpoint> endpoints() const
    {
        QList<Endpoint> list;
        for (const QUrl &url : m_receiver->urls()) {
            Endpoint endpoint;
            endpoint.url = url;
            list.append(endpoint);
        }
        return list;
    }

    // A journal that says `source` was being sent to our receiver as `destination`, with the
    // size and mtime it had then.
    void journal(ResumeJournal &journal, const SourceFile &source, int fixedConnections)
    {
        JournalBatch batch;
        batch.endpoints = endpoints();
        batch.connections = fixedConnections;
        batch.chunkSize = 0;
        journal.addFile(journal.addBatch(batch), source);
    }

    static SourceFile sourceFor(const QString &localPath, const QString &destination)
    {
        const QFileInfo info(localPath);
        return {info.absoluteFilePath(), destination, info.size(), info.lastModified().toMSecsSinceEpoch()};
    }

    // Called the moment the transfer starts (the network changing under it, say).
    std::function<void()> m_onStart;
    // After the run ends, wait this long for a link measurement it started to come in.
    bool m_awaitRemeasure = false;

    void watch(const UploadRun &run, Observed &observed)
    {
        connect(&run, &UploadRun::transferStarted, &run, [this, &run, &observed] {
            observed.started = true;
            observed.selfTuned = run.scheduler().isSelfTuned();
            observed.connections = run.scheduler().connectionsInUse();
            if (m_onStart)
                m_onStart();
        });
        connect(&run, &UploadRun::linkRemeasured, &run, [&observed] { ++observed.remeasured; });
    }

    void awaitRemeasure(const Observed &observed)
    {
        if (m_awaitRemeasure)
            (void)QTest::qWaitFor([&observed] { return observed.remeasured > 0; },
                                  15000); // the caller compares
    }

    // A speed limit for both front ends (0: none), so a run outlasts a measurement taken under it.
    qint64 m_limit = 0;

    // `multilane resume` in-process, until it exits.
    Observed resumeFromCommandLine(ResumeJournal &journal, ReachabilityHint &hint)
    {
        QFile out(path(QStringLiteral("out.txt")));
        QFile err(path(QStringLiteral("err.txt")));
        out.open(QIODevice::WriteOnly);
        err.open(QIODevice::WriteOnly);
        QStringList arguments{QStringLiteral("multilane"), QStringLiteral("resume"),
                              QStringLiteral("--quiet")};
        if (m_limit > 0)
            arguments << QStringLiteral("--limit-rate") << QString::number(m_limit);
        const CommandLine::Result parsed = CommandLine::parse(arguments);
        ResumeCommand command(parsed.upload, journal, out, err, false, &hint);
        QSignalSpy finished(&command, &ResumeCommand::finished);
        Observed observed;
        command.start();
        if (command.current() && command.current()->run())
            watch(*command.current()->run(), observed);
        if (!finished.wait(60000))
            return observed;
        observed.filesFailed = finished.first().first().toInt() == 0 ? 0 : 1;
        awaitRemeasure(observed);
        return observed;
    }

    // The window's "Resume" on the same journal, until its batch ends.
    Observed resumeFromWindow(ResumeJournal &journal, ReachabilityHint &hint)
    {
        SettingsStore settings(path(QStringLiteral("settings.json")), path(QStringLiteral("managed.json")));
        settings.load();
        UserSettings values = settings.values();
        values.speedLimitBytesPerSecond = m_limit;
        settings.update(values);
        TransferController controller(settings, &journal, &hint);
        QSignalSpy finished(&controller, &TransferController::batchFinished);
        Observed observed;
        const QStringList problems = controller.resumeUnfinished();
        if (!problems.isEmpty() || controller.sessions().empty())
            return observed;
        watch(controller.sessions().back()->run(), observed);
        if (!finished.wait(60000))
            return observed;
        observed.filesFailed = finished.first().at(1).toBool() ? 1 : 0;
        awaitRemeasure(observed);
        return observed;
    }

    Observed resume(FrontEnd frontEnd, ResumeJournal &journal, ReachabilityHint &hint)
    {
        return frontEnd == FrontEnd::CommandLine ? resumeFromCommandLine(journal, hint)
                                                 : resumeFromWindow(journal, hint);
    }

    static void frontEnds()
    {
        QTest::addColumn<FrontEnd>("frontEnd");
        QTest::newRow("command line") << FrontEnd::CommandLine;
        QTest::newRow("window") << FrontEnd::Window;
    }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        m_storage = path(QStringLiteral("storage"));
        QVERIFY(QDir().mkpath(m_storage));
        m_receiver = std::make_unique<ReceiverProcess>(m_storage);
        QVERIFY2(m_receiver->start(2), qPrintable(m_receiver->errorText()));
    }

    void cleanup()
    {
        m_receiver.reset();
        m_dir.reset();
    }

    void changedFileIsSentAgainOnResume_data() { frontEnds(); }
    void changedFileIsSentAgainOnResume()
    {
        QFETCH(FrontEnd, frontEnd);
        const QString source = path(QStringLiteral("report.bin"));
        QVERIFY(TestFiles::write(source, 3 * 1024 * 1024, 7));
        SourceFile journaled = sourceFor(source, QStringLiteral("in/report.bin"));
        journaled.size += 1; // it was another version when its upload started
        ResumeJournal journal(path(QStringLiteral("state")));
        QCOMPARE(journal.open(), std::nullopt);
        this->journal(journal, journaled, 0);
        ReachabilityHint hint(nullptr);

        const Observed observed = resume(frontEnd, journal, hint);
        QVERIFY(observed.started);
        QCOMPARE(observed.filesFailed, 0);
        QVERIFY(TestFiles::sameContents(source, m_storage + QStringLiteral("/in/report.bin")));
        QVERIFY(journal.state().files.isEmpty());
    }

    void fixedConnectionsStayFixedOnResume_data() { frontEnds(); }
    void fixedConnectionsStayFixedOnResume()
    {
        QFETCH(FrontEnd, frontEnd);
        const QString source = path(QStringLiteral("fixed.bin"));
        QVERIFY(TestFiles::write(source, 2 * 1024 * 1024, 8));
        ResumeJournal journal(path(QStringLiteral("state")));
        QCOMPARE(journal.open(), std::nullopt);
        this->journal(journal, sourceFor(source, QStringLiteral("fixed.bin")), 3);
        ReachabilityHint hint(nullptr);

        const Observed observed = resume(frontEnd, journal, hint);
        QVERIFY(observed.started);
        QCOMPARE(observed.selfTuned, false);
        QCOMPARE(observed.connections, 3);
        QCOMPARE(observed.filesFailed, 0);
    }

    void networkChangeMeasuresTheLinkAgain_data() { frontEnds(); }
    void networkChangeMeasuresTheLinkAgain()
    {
        QFETCH(FrontEnd, frontEnd);
        const QString source = path(QStringLiteral("moving.bin"));
        QVERIFY(TestFiles::write(source, 48 * 1024 * 1024, 9));
        // 16 MB/s: the transfer takes about 3 s, the measurement about 1 s.
        m_limit = 16 * 1000 * 1000;
        ResumeJournal journal(path(QStringLiteral("state")));
        QCOMPARE(journal.open(), std::nullopt);
        this->journal(journal, sourceFor(source, QStringLiteral("moving.bin")), 0);
        ReachabilityHint hint(nullptr);
        hint.onTransportMediumChanged(QNetworkInformation::TransportMedium::Ethernet);
        // The moment the transfer starts, Wi-Fi takes over from Ethernet.
        m_onStart = [&hint] { hint.onTransportMediumChanged(QNetworkInformation::TransportMedium::WiFi); };
        m_awaitRemeasure = true;

        const Observed observed = resume(frontEnd, journal, hint);
        m_onStart = {};
        m_awaitRemeasure = false;
        m_limit = 0;
        QVERIFY(observed.started);
        QCOMPARE(observed.filesFailed, 0);
        QCOMPARE(observed.remeasured, 1);
    }
};

QTEST_MAIN(TestOneFlow)
#include "tst_one_flow.moc"
