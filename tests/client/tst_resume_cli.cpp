// Crash and resume as a user lives it: `multilane upload` killed with SIGKILL mid-upload, then
// `multilane resume`. Bytes are counted where they arrive (proxies in front of the receiver).
#include "ReceiverProcess.h"
#include "TcpProxy.h"
#include "TestFiles.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

class TestResumeCli : public QObject {
    Q_OBJECT

    static constexpr qint64 FileSize = 300 * 1024 * 1024;
    static constexpr qint64 ChunkSize = 4 * 1024 * 1024;
    static constexpr int Connections = 6;
    // A connection carries at most two chunks: one waiting for its answer, one behind it
    // (pipelining); a kill catches at most these.
    static constexpr int ChunksInFlight = 2 * Connections;

    qint64 bytesAtReceiver() const
    {
        qint64 total = 0;
        for (const auto &proxy : m_proxies)
            total += proxy->bytesUpstream();
        return total;
    }

    QStringList endpointArguments() const
    {
        QStringList arguments;
        for (const auto &proxy : m_proxies)
            arguments << QStringLiteral("--endpoint") << proxy->url().toString();
        return arguments;
    }

    // Runs the client to its end, with the event loop (and so the proxies) running meanwhile.
    int runToEnd(QProcess &client, const QStringList &arguments, QString *errorText = nullptr)
    {
        QSignalSpy done(&client, &QProcess::finished);
        client.start(QStringLiteral(MULTILANE_CLIENT_BIN), arguments);
        if (!done.wait(240000))
            return -1;
        if (errorText)
            *errorText = QString::fromUtf8(client.readAllStandardError());
        return client.exitStatus() == QProcess::NormalExit ? client.exitCode() : -1;
    }

    // Starts an upload and kills it with SIGKILL once `fraction` of the file reached the receiver.
    void startAndKill(const QString &file, const QString &stateDir, double fraction)
    {
        QProcess client;
        QSignalSpy done(&client, &QProcess::finished);
        for (const auto &proxy : m_proxies) {
            connect(proxy.get(), &TcpProxy::forwardedUpstream, &client, [&] {
                if (client.state() == QProcess::Running && bytesAtReceiver() >= qint64(fraction * FileSize))
                    client.kill();
            });
        }
        client.start(QStringLiteral(MULTILANE_CLIENT_BIN),
                     QStringList{QStringLiteral("upload")} + endpointArguments() +
                         QStringList{QStringLiteral("--state-dir"), stateDir, QStringLiteral("--chunk-size"),
                                     QStringLiteral("4M"), QStringLiteral("--connections"),
                                     QString::number(Connections), QStringLiteral("--quiet"), file});
        QVERIFY(done.wait(240000));
        QCOMPARE(client.exitStatus(), QProcess::CrashExit); // killed, not finished
    }

    int resumeWithPolicy(const QString &stateDir, bool restart, QString *errorText)
    {
        QProcess resume;
        return runToEnd(resume,
                        {QStringLiteral("resume"), QStringLiteral("--state-dir"), stateDir,
                         QStringLiteral("--on-change"),
                         restart ? QStringLiteral("restart") : QStringLiteral("fail")},
                        errorText);
    }

    static void onChangePolicies()
    {
        QTest::addColumn<bool>("restart");
        QTest::newRow("--on-change restart") << true;
        QTest::newRow("--on-change fail") << false;
    }

private Q_SLOTS:
    void init()
    {
        m_storage = std::make_unique<QTemporaryDir>();
        m_receiver = std::make_unique<ReceiverProcess>(m_storage->path());
        QVERIFY2(m_receiver->start(3), qPrintable(m_receiver->errorText()));
        m_proxies.clear();
        for (const QUrl &url : m_receiver->urls())
            m_proxies.push_back(std::make_unique<TcpProxy>(url));
    }

    void killedClientResumesAndResendsAtMostTheChunksInFlight()
    {
        QTemporaryDir work;
        const QString file = work.filePath(QStringLiteral("big.bin"));
        QVERIFY(TestFiles::write(file, FileSize, 4));
        const QString state = work.filePath(QStringLiteral("state"));
        startAndKill(file, state, 0.4);
        const qint64 beforeResume = bytesAtReceiver();
        QVERIFY(beforeResume < FileSize);

        QProcess status;
        QCOMPARE(runToEnd(status, {QStringLiteral("status"), QStringLiteral("--state-dir"), state,
                                   QStringLiteral("--json")}),
                 0);
        QVERIFY(status.readAllStandardOutput().contains("big.bin"));

        QProcess resume;
        QString errorText;
        QCOMPARE(
            runToEnd(resume, {QStringLiteral("resume"), QStringLiteral("--state-dir"), state}, &errorText),
            0);
        QCOMPARE(TestFiles::sha256(m_storage->filePath(QStringLiteral("big.bin"))), TestFiles::sha256(file));

        // Everything that reached the receiver, minus the file once, minus request overhead, is
        // what was sent twice: at most the chunks in flight at the kill.
        const qint64 chunks = FileSize / ChunkSize;
        const qint64 overhead = (chunks + 10) * 1024; // request lines and headers, generously
        const qint64 resent = bytesAtReceiver() - FileSize - overhead;
        qInfo("killed after %lld bytes had arrived; re-sent %lld bytes (%.2f chunks)", beforeResume,
              std::max<qint64>(0, resent), double(std::max<qint64>(0, resent)) / double(ChunkSize));
        QVERIFY2(resent <= ChunksInFlight * ChunkSize, qPrintable(QString::number(resent)));

        QCOMPARE(runToEnd(status, {QStringLiteral("status"), QStringLiteral("--state-dir"), state}), 0);
        QVERIFY(status.readAllStandardOutput().contains("no unfinished uploads"));
    }

    void changedSourceStartsOverOrIsRefused_data() { onChangePolicies(); }
    void changedSourceStartsOverOrIsRefused()
    {
        QFETCH(bool, restart);
        QTemporaryDir work;
        const QString file = work.filePath(QStringLiteral("doc.bin"));
        QVERIFY(TestFiles::write(file, FileSize, 5));
        const QString state = work.filePath(QStringLiteral("state"));
        startAndKill(file, state, 0.3);
        QVERIFY(TestFiles::write(file, FileSize, 6)); // same size, new bytes, new mtime

        QString errorText;
        const int exitCode = resumeWithPolicy(state, restart, &errorText);
        QVERIFY2(errorText.contains(QLatin1String("changed since its upload started")),
                 qPrintable(errorText));
        const QString stored = m_storage->filePath(QStringLiteral("doc.bin"));
        if (restart) {
            QCOMPARE(exitCode, 0);
            QCOMPARE(TestFiles::sha256(stored), TestFiles::sha256(file)); // the new version, whole
        } else {
            QCOMPARE(exitCode, 1);
            QVERIFY(!QFileInfo::exists(stored)); // never a file stitched from two versions
        }
    }

    void sourceChangedInPlaceIsCaughtByTheChunkHashes_data() { onChangePolicies(); }
    // Size and mtime unchanged, bytes changed in a chunk the receiver already holds: only the
    // receiver's per-chunk XXH3 against the source as it reads now can tell.
    void sourceChangedInPlaceIsCaughtByTheChunkHashes()
    {
        QFETCH(bool, restart);
        QTemporaryDir work;
        const QString file = work.filePath(QStringLiteral("edited.bin"));
        QVERIFY(TestFiles::write(file, FileSize, 7));
        const QString state = work.filePath(QStringLiteral("state"));
        startAndKill(file, state, 0.4);
        const qint64 beforeResume = bytesAtReceiver();

        const QDateTime mtime = QFileInfo(file).lastModified();
        {
            QFile edit(file);
            QVERIFY(edit.open(QIODevice::ReadWrite));
            QVERIFY(edit.seek(ChunkSize + 12345)); // inside chunk 1, long held by now
            QVERIFY(edit.write(QByteArray(4096, 'E')) == 4096);
            QVERIFY(edit.flush()); // the write must land before the mtime is put back
            QVERIFY(edit.setFileTime(mtime, QFileDevice::FileModificationTime));
        }
        QCOMPARE(QFileInfo(file).lastModified(), mtime);

        QString errorText;
        const int exitCode = resumeWithPolicy(state, restart, &errorText);
        QVERIFY2(errorText.contains(QLatin1String("changed since its upload started: 1 of the chunks")),
                 qPrintable(errorText));
        const QString stored = m_storage->filePath(QStringLiteral("edited.bin"));
        if (!restart) {
            QCOMPARE(exitCode, 1);
            QVERIFY(!QFileInfo::exists(stored)); // never a file stitched from two versions
            return;
        }
        QCOMPARE(exitCode, 0);
        QCOMPARE(TestFiles::sha256(stored), TestFiles::sha256(file)); // the edited version, whole
        // Only the changed chunk went again on top of what a plain resume sends: the held chunks
        // that still match were not re-sent.
        const qint64 chunks = FileSize / ChunkSize;
        const qint64 overhead = (chunks + 10) * 1024;
        const qint64 resent = bytesAtReceiver() - FileSize - overhead;
        QVERIFY2(
            resent <= (ChunksInFlight + 1) * ChunkSize,
            qPrintable(
                QStringLiteral("killed after %1 bytes, %2 bytes sent twice").arg(beforeResume).arg(resent)));
    }

private:
    std::unique_ptr<QTemporaryDir> m_storage;
    std::unique_ptr<ReceiverProcess> m_receiver;
    std::vector<std::unique_ptr<TcpProxy>> m_proxies;
};

QTEST_GUILESS_MAIN(TestResumeCli)
#include "tst_resume_cli.moc"
