// The transfer engine against a real receiver process on three loopback ports.
#include "EndpointPool.h"
#include "NoDelaySockets.h"
#include "ReceiverProcess.h"
#include "SourceScanner.h"
#include "TcpProxy.h"
#include "TestFiles.h"
#include "TransferScheduler.h"

#include <QDir>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace multilane;

class TestUploadCore : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_storage.isValid() && m_source.isValid());
        m_receiver = std::make_unique<ReceiverProcess>(m_storage.path());
        QVERIFY2(m_receiver->start(3), qPrintable(m_receiver->errorText()));
    }

    void folderOfEdgeSizesAcrossThreePorts()
    {
        constexpr qint64 chunk = 256 * 1024;
        const QString folder = m_source.filePath(QStringLiteral("edge"));
        const QList<qint64> sizes{0,         1,         chunk - 1,     chunk,
                                  chunk + 1, 2 * chunk, 7 * chunk + 3, 3 * 1024 * 1024};
        for (int i = 0; i < sizes.size(); ++i)
            QVERIFY(
                TestFiles::write(folder + QStringLiteral("/f%1.bin").arg(i), sizes.at(i), quint32(i + 1)));

        const SourceScanner::Result scan = SourceScanner::scan({folder}, QStringLiteral("core"));
        QCOMPARE(scan.files.size(), sizes.size());
        QList<Endpoint> endpoints;
        for (const QUrl &url : m_receiver->urls())
            endpoints.append(*EndpointParser::fromUrl(url.toString()).value);
        EndpointPool pool(endpoints);
        TransferOptions options;
        options.connections = 6;
        options.chunkSize = chunk;
        TransferScheduler scheduler(pool, options);
        QSignalSpy finished(&scheduler, &TransferScheduler::finished);
        QSignalSpy fileFinished(&scheduler, &TransferScheduler::fileFinished);
        // The SHA-256 each file was sent with, read as the JSON front end reads it; a job that
        // arrived keeps none (a batch holds every job to its end).
        QHash<int, QByteArray> sentSha256;
        connect(&scheduler, &TransferScheduler::fileFinished, this,
                [&](int id) { sentSha256.insert(id, scheduler.job(id).sha256()); });
        QList<qint64> progressSeen;
        connect(&scheduler, &TransferScheduler::progressChanged, this,
                [&](const TransferProgress &p) { progressSeen.append(p.bytesDone); });
        scheduler.addFiles(scan.files);
        scheduler.start();
        QVERIFY(finished.wait(60000));

        QCOMPARE(fileFinished.count(), sizes.size());
        for (int i = 0; i < scheduler.jobCount(); ++i) {
            const TransferJob &job = scheduler.job(i);
            QVERIFY2(job.state() == TransferState::Done, qPrintable(job.error()));
            const QString stored = m_storage.filePath(job.remotePath());
            QVERIFY2(TestFiles::sameContents(job.source().localPath(), stored), qPrintable(stored));
            QCOMPARE(sentSha256.value(i), TestFiles::sha256(job.source().localPath()));
            QVERIFY(job.sha256().isEmpty());
        }
        // Chunks went to every port, and progress ended exactly at the total.
        for (const EndpointStats &stats : scheduler.endpointStats())
            QVERIFY(stats.chunks > 0);
        const TransferProgress last = scheduler.progress();
        QCOMPARE(last.bytesDone, last.bytesTotal);
        QCOMPARE(progressSeen.last(), last.bytesTotal);
        // Nothing half-done is left on the receiver.
        QVERIFY(QDir(m_storage.filePath(QStringLiteral(".multilane/uploads")))
                    .entryList({QStringLiteral("*.part")}, QDir::Files)
                    .isEmpty());
    }

    void orderOfFiles_data()
    {
        QTest::addColumn<bool>("filesInOrder");
        QTest::newRow("throughput") << false;
        QTest::newRow("files") << true;
    }

    void orderOfFiles()
    {
        // Given small files first and two big ones last. --order throughput starts the biggest
        // first and sends the smallest last (the end of an upload is then short requests on every
        // connection); --order files keeps the order given.
        QFETCH(bool, filesInOrder);
        const QString folder = m_source.filePath(QStringLiteral("order-%1").arg(filesInOrder));
        const QList<qint64> sizes{1000, 30000, 20000, 10000, 3 << 20, (3 << 20) + 5};
        for (int i = 0; i < sizes.size(); ++i)
            QVERIFY(
                TestFiles::write(folder + QStringLiteral("/f%1.bin").arg(i), sizes.at(i), quint32(i + 40)));
        SourceScanner::Result scan = SourceScanner::scan({folder}, QStringLiteral("order"));
        std::sort(scan.files.begin(), scan.files.end(),
                  [](const SourceFile &a, const SourceFile &b) { return a.localPath() < b.localPath(); });
        EndpointPool pool(receiverEndpoints());
        TransferOptions options;
        options.connections = 1; // one request at a time: the order shows
        options.chunkSize = 1 << 20;
        options.filesInOrder = filesInOrder;
        TransferScheduler scheduler(pool, options);
        QList<qint64> startedSizes;
        QList<qint64> finishedSizes;
        connect(&scheduler, &TransferScheduler::fileStarted, this,
                [&](int id) { startedSizes.append(scheduler.job(id).source().size); });
        connect(&scheduler, &TransferScheduler::fileFinished, this,
                [&](int id) { finishedSizes.append(scheduler.job(id).source().size); });
        QSignalSpy finished(&scheduler, &TransferScheduler::finished);
        scheduler.addFiles(scan.files);
        scheduler.start();
        QVERIFY(finished.wait(60000));
        QCOMPARE(finishedSizes.size(), sizes.size());
        for (int i = 0; i < scheduler.jobCount(); ++i)
            QVERIFY2(scheduler.job(i).state() == TransferState::Done, qPrintable(scheduler.job(i).error()));
        if (filesInOrder) {
            QCOMPARE(startedSizes, sizes);
            return;
        }
        QList<qint64> biggestFirst = sizes;
        std::sort(biggestFirst.begin(), biggestFirst.end(), std::greater<>());
        QCOMPARE(startedSizes, biggestFirst);
        QCOMPARE(finishedSizes.last(), qint64(1000));
    }

    void aLaterBatchDoesNotWaitForAnEarlierOnesChunks()
    {
        // The window's second drop (a folder of small files) while a big file's chunks go: its
        // whole files take turns with those chunks instead of waiting for all of them (issue #15).
        const QString folder = m_source.filePath(QStringLiteral("batches"));
        QVERIFY(TestFiles::write(folder + QStringLiteral("/big.bin"), 12 << 20, 60));
        for (int i = 0; i < 3; ++i)
            QVERIFY(TestFiles::write(folder + QStringLiteral("/small%1.bin").arg(i), 5000, quint32(61 + i)));
        EndpointPool pool(receiverEndpoints());
        TransferOptions options;
        options.connections = 1; // one request at a time: the order shows
        options.chunkSize = 1 << 20;
        // Paced, so the scheduler is asked for work more often than it can send (a pass the
        // limit holds back must not skip a later batch's turn), and the big file lasts a second,
        // so the small files' checksums are ready long before it ends even on a loaded machine.
        options.limitBytesPerSecond = 10e6;
        TransferScheduler scheduler(pool, options);
        QList<int> finishedOrder;
        connect(&scheduler, &TransferScheduler::fileFinished, this,
                [&](int id) { finishedOrder.append(id); });
        bool added = false;
        connect(&scheduler, &TransferScheduler::chunkAcknowledged, this, [&] {
            if (!added) {
                added = true; // the second batch arrives once the big file's chunks are going
                scheduler.addFiles(SourceScanner::scan({folder + QStringLiteral("/small0.bin"),
                                                        folder + QStringLiteral("/small1.bin"),
                                                        folder + QStringLiteral("/small2.bin")},
                                                       QStringLiteral("batches"))
                                       .files);
            }
        });
        QSignalSpy finished(&scheduler, &TransferScheduler::finished);
        scheduler.addFiles(
            SourceScanner::scan({folder + QStringLiteral("/big.bin")}, QStringLiteral("batches")).files);
        scheduler.start();
        QVERIFY(finished.wait(60000));
        for (int i = 0; i < scheduler.jobCount(); ++i)
            QVERIFY2(scheduler.job(i).state() == TransferState::Done, qPrintable(scheduler.job(i).error()));
        QCOMPARE(finishedOrder.size(), 4);
        QCOMPARE(finishedOrder.last(), 0); // the big file, 12 chunks, ends after the small ones
    }

    void requestsGoWithoutNagle()
    {
        // Qt leaves Nagle's algorithm on for its HTTP connections; a watched reply's connection
        // gets TCP_NODELAY, so a sweep afterwards finds nothing to change. The control: an
        // unwatched reply's kept-alive connection still has Nagle on, and the sweep finds it.
        const QUrl health = m_receiver->urls().first().resolved(QUrl(QStringLiteral("/v1/health")));
        const auto fetch = [&health](QNetworkAccessManager &manager, bool watched) {
            QNetworkReply *reply = manager.get(QNetworkRequest(health));
            if (watched)
                NoDelaySockets::watch(reply);
            QSignalSpy finished(reply, &QNetworkReply::finished);
            const bool ok = finished.wait(30000) && reply->error() == QNetworkReply::NoError;
            // The watch sweeps on the turn after requestSent; on a loaded machine finished()
            // can come in the same turn, before it.
            QCoreApplication::processEvents();
            reply->deleteLater();
            return ok;
        };
        NoDelaySockets::sweep(); // what this process had open before
        QNetworkAccessManager plain;
        QVERIFY(fetch(plain, false));
        QVERIFY(NoDelaySockets::sweep() >= 1);
        QNetworkAccessManager watched;
        QVERIFY(fetch(watched, true));
        QCOMPARE(NoDelaySockets::sweep(), 0);
    }

    void corruptedChunkIsRefusedAndSentAgain()
    {
        const QString file = m_source.filePath(QStringLiteral("corrupt-me.bin"));
        QVERIFY(TestFiles::write(file, 4 * 1024 * 1024, 99));
        // One connection through a proxy that flips a byte well inside the first chunk's body.
        TcpProxy proxy(m_receiver->urls().first(), 200 * 1024);
        EndpointPool pool({*EndpointParser::fromUrl(proxy.url().toString()).value});
        TransferOptions options;
        options.connections = 1;
        options.chunkSize = 1024 * 1024;
        TransferScheduler scheduler(pool, options);
        QSignalSpy finished(&scheduler, &TransferScheduler::finished);
        scheduler.addFiles(SourceScanner::scan({file}, QStringLiteral("corrupt")).files);
        scheduler.start();
        QVERIFY(finished.wait(60000));

        QVERIFY(proxy.corrupted());
        const TransferJob &job = scheduler.job(0);
        QVERIFY2(job.state() == TransferState::Done, qPrintable(job.error()));
        QCOMPARE(scheduler.endpointStats().first().failures, 1); // the refused chunk
        QVERIFY(TestFiles::sameContents(file, m_storage.filePath(job.remotePath())));
    }

    void chunkedFilesEndWithoutACompleteOfTheirOwn()
    {
        // The chunk that ends a file brings its SHA-256 and the receiver completes the upload with
        // it: no POST .../complete, one round trip fewer per file. Its own receiver, so that its
        // access log holds this upload's requests alone.
        QTemporaryDir storage;
        ReceiverProcess receiver(storage.path());
        const QString accessLog = storage.filePath(QStringLiteral("access.log"));
        QVERIFY2(receiver.start(3, {QStringLiteral("--access-log"), accessLog}),
                 qPrintable(receiver.errorText()));
        const QString folder = m_source.filePath(QStringLiteral("whole-by-chunk"));
        constexpr qint64 chunk = 256 * 1024;
        for (int i = 0; i < 3; ++i)
            QVERIFY(TestFiles::write(folder + QStringLiteral("/f%1.bin").arg(i), 9 * chunk + 100 * i,
                                     quint32(40 + i)));
        QList<Endpoint> endpoints;
        for (const QUrl &url : receiver.urls())
            endpoints.append(*EndpointParser::fromUrl(url.toString()).value);
        EndpointPool pool(endpoints);
        TransferOptions options;
        options.connections = 4;
        options.chunkSize = chunk;
        // On loopback a file's last chunk can leave before its SHA-256 is known; then the client
        // completes it itself (and must). A rate limit lets the hash come first, as on a link.
        options.limitBytesPerSecond = 16.0 * 1024 * 1024;
        TransferScheduler scheduler(pool, options);
        QSignalSpy finished(&scheduler, &TransferScheduler::finished);
        scheduler.addFiles(SourceScanner::scan({folder}, QStringLiteral("whole")).files);
        scheduler.start();
        QVERIFY(finished.wait(60000));
        for (int i = 0; i < scheduler.jobCount(); ++i) {
            const TransferJob &job = scheduler.job(i);
            QVERIFY2(job.state() == TransferState::Done, qPrintable(job.error()));
            QVERIFY(TestFiles::sameContents(job.source().localPath(), storage.filePath(job.remotePath())));
        }
        // Stopped, so that every line is written.
        receiver.process().terminate();
        QVERIFY(receiver.process().waitForFinished(10000));
        QFile log(accessLog);
        QVERIFY(log.open(QIODevice::ReadOnly));
        const QByteArray lines = log.readAll();
        QCOMPARE(lines.count("route=/v1/uploads/{id}/chunks/{n} "), 9 + 10 + 10);
        QCOMPARE(lines.count("route=/v1/uploads/{id}/complete "), 0);
    }

private:
    QList<Endpoint> receiverEndpoints() const
    {
        QList<Endpoint> endpoints;
        for (const QUrl &url : m_receiver->urls())
            endpoints.append(*EndpointParser::fromUrl(url.toString()).value);
        return endpoints;
    }

    QTemporaryDir m_storage;
    QTemporaryDir m_source;
    std::unique_ptr<ReceiverProcess> m_receiver;
};

QTEST_GUILESS_MAIN(TestUploadCore)
#include "tst_upload_core.moc"
