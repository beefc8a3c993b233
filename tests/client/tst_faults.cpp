// Faults a real link and a real receiver throw at a transfer: the receiver killed and restarted,
// an endpoint gone for good, every endpoint gone for a while, a pause. Real receiver processes on
// loopback, the real engine, assertions on the bytes that arrive.
#include "EndpointPool.h"
#include "ReceiverProcess.h"
#include "SourceScanner.h"
#include "TcpProxy.h"
#include "TestFiles.h"
#include "TransferScheduler.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace multilane;

namespace {

QList<Endpoint> endpointsFor(const QList<QUrl> &urls)
{
    QList<Endpoint> endpoints;
    for (const QUrl &url : urls)
        endpoints.append(*EndpointParser::fromUrl(url.toString()).value);
    return endpoints;
}

TransferOptions fastRecoveryOptions()
{
    TransferOptions options;
    options.connections = 6;
    options.chunkSize = 4 * 1024 * 1024;
    options.transferTimeoutMs = 5000;
    options.monitor.firstProbeDelayMs = 50;
    options.monitor.maxProbeDelayMs = 500; // so "back" is noticed within half a second
    return options;
}

// Calls `action` once, the first time the transfer has moved `fraction` of its bytes.
void onceProgressReaches(TransferScheduler &scheduler, double fraction, std::function<void()> action)
{
    auto fired = std::make_shared<bool>(false);
    QObject::connect(&scheduler, &TransferScheduler::progressChanged, &scheduler,
                     [fired, fraction, action](const TransferProgress &p) {
                         if (*fired || double(p.bytesDone) < fraction * double(p.bytesTotal))
                             return;
                         *fired = true;
                         action();
                     });
}

} // namespace

class TestFaults : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_source.isValid());
        m_big = m_source.filePath(QStringLiteral("big.bin"));
        QVERIFY(TestFiles::write(m_big, 300 * 1024 * 1024, 300));
        m_bigSha = TestFiles::sha256(m_big);
    }

    void receiverKilledAndRestarted_data()
    {
        QTest::addColumn<int>("downMs");
        QTest::newRow("killed, back after 2 s") << 2000;
        QTest::newRow("every endpoint down for 10 s") << 10000;
    }
    void receiverKilledAndRestarted()
    {
        QFETCH(int, downMs);
        QTemporaryDir storage;
        ReceiverProcess receiver(storage.path());
        QVERIFY2(receiver.start(3), qPrintable(receiver.errorText()));
        EndpointPool pool(endpointsFor(receiver.urls()));
        TransferScheduler scheduler(pool, fastRecoveryOptions());
        QSignalSpy finished(&scheduler, &TransferScheduler::finished);
        QSignalSpy online(&scheduler, &TransferScheduler::onlineChanged);
        QElapsedTimer sinceBack;
        qint64 backToBytesMs = -1;
        qint64 bytesAtRestart = -1;
        onceProgressReaches(scheduler, 0.3, [&] {
            receiver.kill();
            QTimer::singleShot(downMs, this, [&] {
                QVERIFY(receiver.restart());
                sinceBack.start();
                bytesAtRestart = scheduler.progress().bytesSent;
            });
        });
        connect(&scheduler, &TransferScheduler::progressChanged, this, [&](const TransferProgress &p) {
            if (backToBytesMs < 0 && bytesAtRestart >= 0 && p.bytesSent > bytesAtRestart)
                backToBytesMs = sinceBack.elapsed();
        });
        scheduler.addFiles(SourceScanner::scan({m_big}, QString()).files);
        scheduler.start();
        QVERIFY(finished.wait(180000));

        const TransferJob &job = scheduler.job(0);
        QVERIFY2(job.state() == TransferState::Done, qPrintable(job.error()));
        QCOMPARE(TestFiles::sha256(storage.filePath(job.remotePath())), m_bigSha);
        // The client said it was waiting for the network, and then that it was back.
        QVERIFY(online.count() >= 2);
        QCOMPARE(online.first().first().toBool(), false);
        QCOMPARE(online.last().first().toBool(), true);
        const qint64 resent = scheduler.progress().bytesSent - job.source().size;
        qInfo("re-sent %lld bytes (%.1f chunks); bytes flowing %lld ms after the receiver was back", resent,
              double(resent) / double(job.planner().chunkSize()), backToBytesMs);
    }

    void oneEndpointGoneForGood()
    {
        QTemporaryDir storage;
        // Three receiver processes over one storage folder, one port each.
        std::vector<std::unique_ptr<ReceiverProcess>> receivers;
        QList<QUrl> urls;
        for (int i = 0; i < 3; ++i) {
            receivers.push_back(std::make_unique<ReceiverProcess>(storage.path()));
            QVERIFY2(receivers.back()->start(1), qPrintable(receivers.back()->errorText()));
            urls += receivers.back()->urls();
        }
        EndpointPool pool(endpointsFor(urls));
        TransferScheduler scheduler(pool, fastRecoveryOptions());
        QSignalSpy finished(&scheduler, &TransferScheduler::finished);
        QSignalSpy down(&scheduler, &TransferScheduler::endpointDown);
        onceProgressReaches(scheduler, 0.3, [&] { receivers.at(1)->kill(); });
        scheduler.addFiles(SourceScanner::scan({m_big}, QString()).files);
        scheduler.start();
        QVERIFY(finished.wait(180000));

        const TransferJob &job = scheduler.job(0);
        QVERIFY2(job.state() == TransferState::Done, qPrintable(job.error()));
        QCOMPARE(TestFiles::sha256(storage.filePath(job.remotePath())), m_bigSha);
        QCOMPARE(down.count(), 1);
        QCOMPARE(down.first().first().toInt(), 1);
        QVERIFY(scheduler.isOnline());
    }

    void pauseSendsNothingAndHoldsNoConnection()
    {
        QTemporaryDir storage;
        ReceiverProcess receiver(storage.path());
        QVERIFY2(receiver.start(3), qPrintable(receiver.errorText()));
        std::vector<std::unique_ptr<TcpProxy>> proxies;
        QList<QUrl> urls;
        for (const QUrl &url : receiver.urls()) {
            proxies.push_back(std::make_unique<TcpProxy>(url));
            urls.append(proxies.back()->url());
        }
        const auto bytesAtReceiver = [&] {
            qint64 total = 0;
            for (const auto &proxy : proxies)
                total += proxy->bytesUpstream();
            return total;
        };
        const auto connectionsAtReceiver = [&] {
            int total = 0;
            for (const auto &proxy : proxies)
                total += proxy->openConnections();
            return total;
        };
        EndpointPool pool(endpointsFor(urls));
        TransferScheduler scheduler(pool, fastRecoveryOptions());
        QSignalSpy finished(&scheduler, &TransferScheduler::finished);
        bool pausedOnce = false;
        onceProgressReaches(scheduler, 0.2, [&] {
            scheduler.pause();
            pausedOnce = true;
        });
        scheduler.addFiles(SourceScanner::scan({m_big}, QString()).files);
        scheduler.start();
        QTRY_VERIFY_WITH_TIMEOUT(pausedOnce, 60000);
        // What was already in socket buffers drains first; from then on nothing may move.
        QTRY_COMPARE_WITH_TIMEOUT(connectionsAtReceiver(), 0, 30000);
        const qint64 before = bytesAtReceiver();
        QTest::qWait(5000); // the pause itself, with the event loop (and the proxies) running
        QCOMPARE(bytesAtReceiver(), before);
        QCOMPARE(connectionsAtReceiver(), 0);
        QVERIFY(!scheduler.isFinished());

        scheduler.resume();
        QVERIFY(finished.wait(180000));
        const TransferJob &job = scheduler.job(0);
        QVERIFY2(job.state() == TransferState::Done, qPrintable(job.error()));
        QCOMPARE(TestFiles::sha256(storage.filePath(job.remotePath())), m_bigSha);
    }

private:
    QTemporaryDir m_source;
    QString m_big;
    QByteArray m_bigSha;
};

QTEST_GUILESS_MAIN(TestFaults)
#include "tst_faults.moc"
