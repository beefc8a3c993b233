// Resume does not pay twice: what the tuner settled at goes into the journal with its time and
// network, and a run soon after on the same network starts there (UploadRun against a real
// receiver on three loopback ports).
#include "LinksimProcess.h"
#include "NetworkIdentity.h"
#include "ReceiverProcess.h"
#include "ResumeJournal.h"
#include "TestFiles.h"
#include "TransferScheduler.h"
#include "UploadRun.h"

#include <QDateTime>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace multilane;

class TestLinkMemory : public QObject {
    Q_OBJECT

    UploadPlan plan() const
    {
        UploadPlan plan;
        for (const QUrl &url : m_receiver->urls())
            plan.endpoints.append(*EndpointParser::fromUrl(url.toString()).value);
        plan.autoChunkSize = true;
        return plan;
    }

    LinkMemory memoryOf(const UploadPlan &plan, qint64 ageMs, int connections,
                        double bytesPerSecond = 30e6) const
    {
        return {NetworkIdentity::of(plan.endpoints),
                QDateTime::currentMSecsSinceEpoch() - ageMs,
                connections,
                bytesPerSecond,
                1,
                4 << 20};
    }

    // Starts a run of the 32 MiB file; returns the level its transfer starts at.
    static int startingLevel(UploadRun &run, const SourceFile &file)
    {
        run.addNewFiles({file});
        QSignalSpy started(&run, &UploadRun::transferStarted);
        run.start();
        if (!started.wait(30000))
            return -1;
        const int level = run.scheduler().progress().connections;
        run.pauseAndFlush();
        return level;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_storage.isValid() && m_work.isValid());
        m_receiver = std::make_unique<ReceiverProcess>(m_storage.path());
        QVERIFY2(m_receiver->start(3), qPrintable(m_receiver->errorText()));
        const QString path = m_work.filePath(QStringLiteral("big.bin"));
        QVERIFY(TestFiles::write(path, qint64(32) << 20, 9));
        m_file = {path, QStringLiteral("memory/big.bin"), qint64(32) << 20,
                  QFileInfo(path).lastModified().toMSecsSinceEpoch()};
    }

    void aRecentEstimateOfThisNetworkIsWhereTheTunerStarts()
    {
        QTemporaryDir state;
        ResumeJournal journal(state.path());
        QVERIFY(!journal.open());
        const UploadPlan plan = this->plan();
        journal.rememberLink(memoryOf(plan, 60000, 7));
        UploadRun run(plan, &journal, nullptr);
        QSignalSpy remembered(&run, &UploadRun::startsFromRememberedLink);
        QCOMPARE(startingLevel(run, m_file), 7);
        QCOMPARE(remembered.size(), 1);
        // The file's chunks are sized for the 7 connections expected, under the remembered cap:
        // 32 MiB / (16 x 7) rounds down to 256 KiB (for the 12 it would expect otherwise: 128 KiB).
        QCOMPARE(run.scheduler().job(0).planner().chunkSize(), 256 * 1024);
    }

    void aSlowConnectionRememberedKeepsChunksShort()
    {
        // The same level remembered where loss held each connection to 0.25 MB/s (a lossy long
        // path): a 256 KiB chunk would take a second there, and the file's end would wait on the
        // last of them. A quarter of a second of one connection: the 64 KiB floor.
        QTemporaryDir state;
        ResumeJournal journal(state.path());
        QVERIFY(!journal.open());
        const UploadPlan plan = this->plan();
        journal.rememberLink(memoryOf(plan, 60000, 7, 7 * 0.25e6));
        UploadRun run(plan, &journal, nullptr);
        QCOMPARE(startingLevel(run, m_file), 7);
        QCOMPARE(run.scheduler().job(0).planner().chunkSize(), 64 * 1024);
    }

    void anOldOrForeignEstimateIsNotUsed_data()
    {
        QTest::addColumn<qint64>("ageMs");
        QTest::addColumn<bool>("sameNetwork");
        QTest::newRow("older than 10 minutes") << qint64(UploadRun::RememberedLinkMs + 1000) << true;
        QTest::newRow("of another network") << qint64(1000) << false;
    }

    void anOldOrForeignEstimateIsNotUsed()
    {
        QFETCH(qint64, ageMs);
        QFETCH(bool, sameNetwork);
        QTemporaryDir state;
        ResumeJournal journal(state.path());
        QVERIFY(!journal.open());
        const UploadPlan plan = this->plan();
        LinkMemory memory = memoryOf(plan, ageMs, 7);
        if (!sameNetwork) // the same endpoints reached from another address
            memory.network =
                memory.network.section(QStringLiteral(" via "), 0, 0) + QStringLiteral(" via 192.0.2.1%eth9");
        journal.rememberLink(memory);
        UploadRun run(plan, &journal, nullptr);
        QSignalSpy remembered(&run, &UploadRun::startsFromRememberedLink);
        QCOMPARE(startingLevel(run, m_file), 12); // 4 per endpoint, its own start
        QCOMPARE(remembered.size(), 0);
    }

    // A run whose tuner settles leaves the level in the journal, under the network it ran on:
    // over linksim (0.5 MB/s a connection, 4 MB/s in all) the 32 MiB take 8 s, the search about
    // one: room for the slower search of a busy machine under the sanitizers (the wait ends as
    // soon as the estimate is written).
    void aSettledRunLeavesItsEstimate()
    {
        QList<quint16> ports;
        for (const QUrl &url : m_receiver->urls())
            ports.append(quint16(url.port()));
        LinksimProcess link;
        QVERIFY2(
            link.start(ports, {QStringLiteral("--per-connection-rate"), QStringLiteral("500KB/s"),
                               QStringLiteral("--total-rate"), QStringLiteral("4MB/s"),
                               QStringLiteral("--rtt"), QStringLiteral("10"), QStringLiteral("--quiet")}),
            qPrintable(link.errorText()));
        UploadPlan plan;
        for (quint16 port : link.ports())
            plan.endpoints.append(
                *EndpointParser::fromUrl(QStringLiteral("http://127.0.0.1:%1").arg(port)).value);
        QTemporaryDir state;
        ResumeJournal journal(state.path());
        QVERIFY(!journal.open());
        UploadRun run(plan, &journal, nullptr);
        SourceFile file = m_file;
        file.setDestinationPath(QStringLiteral("memory/settled.bin"));
        run.addNewFiles({file});
        run.start();
        const QString network = NetworkIdentity::of(plan.endpoints);
        QTRY_VERIFY_WITH_TIMEOUT(journal.rememberedLink(network).has_value() || run.scheduler().isFinished(),
                                 60000);
        const std::optional<LinkMemory> memory = journal.rememberedLink(network);
        QVERIFY2(memory.has_value(),
                 qPrintable(QStringLiteral("the tuner did not settle during the upload: %1 (%2)")
                                .arg(run.scheduler().tuner().level())
                                .arg(run.scheduler().tuner().reason())));
        QCOMPARE(memory->connections, run.scheduler().tuner().level());
        QVERIFY(memory->bytesPerSecond > 0);
        QVERIFY(qAbs(QDateTime::currentMSecsSinceEpoch() - memory->takenMs) < 60000);
        run.pauseAndFlush();
    }

private:
    QTemporaryDir m_storage;
    QTemporaryDir m_work;
    std::unique_ptr<ReceiverProcess> m_receiver;
    SourceFile m_file;
};

QTEST_GUILESS_MAIN(TestLinkMemory)
#include "tst_link_memory.moc"
