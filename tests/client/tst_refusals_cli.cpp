// What a user sees when a receiver refuses: `multilane upload` against a real receiver with
// tokens and limits. Each refusal must end the upload quickly (no endless retries), say which
// endpoint and what to do, and store nothing it should not.
#include "ReceiverProcess.h"
#include "TestFiles.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

class TestRefusalsCli : public QObject {
    Q_OBJECT

    static constexpr char AliceToken[] = "alice-0123456789abcdef0123456789abcdef";

    struct Run {
        int exitCode = -1;
        QString errorText;
        qint64 ms = 0;
    };

    // Starts a receiver whose token file gives alice the folder `alice` and a 6 MiB quota.
    void startReceiver(const QStringList &extra = {})
    {
        const QString tokens = m_work->filePath(QStringLiteral("tokens"));
        QFile file(tokens);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray(AliceToken) + "  id=alice  folder=alice  quota=6M\n");
        file.close();
        m_receiver = std::make_unique<ReceiverProcess>(m_work->filePath(QStringLiteral("storage")));
        QVERIFY2(m_receiver->start(1, QStringList{QStringLiteral("--token-file"), tokens} + extra),
                 qPrintable(m_receiver->errorText()));
    }

    Run upload(const QString &file, const QString &token, const QString &dest)
    {
        QProcess client;
        QSignalSpy done(&client, &QProcess::finished);
        QElapsedTimer clock;
        clock.start();
        client.start(QStringLiteral(MULTILANE_CLIENT_BIN),
                     {QStringLiteral("upload"), QStringLiteral("--endpoint"),
                      m_receiver->urls().first().toString(), QStringLiteral("--token"), token,
                      QStringLiteral("--dest"), dest, QStringLiteral("--chunk-size"), QStringLiteral("1M"),
                      QStringLiteral("--state-dir"), m_work->filePath(QStringLiteral("state")),
                      QStringLiteral("--quiet"), file});
        Run run;
        if (!done.wait(120000))
            return run;
        run.ms = clock.elapsed();
        run.errorText = QString::fromUtf8(client.readAllStandardError());
        run.exitCode = client.exitStatus() == QProcess::NormalExit ? client.exitCode() : -1;
        return run;
    }

    QStringList storedFiles() const
    {
        QStringList found;
        QDirIterator it(m_work->filePath(QStringLiteral("storage")), QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            if (!path.contains(QLatin1String("/.multilane/")))
                found.append(path);
        }
        return found;
    }

private Q_SLOTS:
    void init()
    {
        m_work = std::make_unique<QTemporaryDir>();
        m_file = m_work->filePath(QStringLiteral("report.bin"));
        QVERIFY(TestFiles::write(m_file, 4 * 1024 * 1024 + 5, 3));
    }
    void cleanup() { m_receiver.reset(); }

    void wrongTokenSaysSoAtOnce()
    {
        startReceiver();
        const Run run =
            upload(m_file, QStringLiteral("not-a-token-not-a-token-not-a-token"), QStringLiteral("alice"));
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.errorText.contains(QLatin1String("refused the token")) &&
                     run.errorText.contains(m_receiver->urls().first().authority()),
                 qPrintable(run.errorText));
        QVERIFY2(run.ms < 20000, qPrintable(QString::number(run.ms))); // not retried with backoff
        QCOMPARE(storedFiles(), QStringList());
    }

    void folderOutsideTheTokensIsForbidden()
    {
        startReceiver();
        const Run run = upload(m_file, QString::fromLatin1(AliceToken), QStringLiteral("bob"));
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.errorText.contains(QLatin1String("does not let this token write there")),
                 qPrintable(run.errorText));
        QCOMPARE(storedFiles(), QStringList());

        // The same token into its own folder works: the refusal was about the folder only.
        const Run good = upload(m_file, QString::fromLatin1(AliceToken), QStringLiteral("alice"));
        QCOMPARE(good.exitCode, 0);
        QVERIFY(
            TestFiles::sameContents(m_file, m_work->filePath(QStringLiteral("storage/alice/report.bin"))));
    }

    void quotaSaysHowMuchIsLeft()
    {
        startReceiver();
        QCOMPARE(upload(m_file, QString::fromLatin1(AliceToken), QStringLiteral("alice")).exitCode, 0);
        // 4 MiB stored of a 6 MiB quota: a second 4 MiB file does not fit.
        const QString second = m_work->filePath(QStringLiteral("second.bin"));
        QVERIFY(TestFiles::write(second, 4 * 1024 * 1024 + 5, 4));
        const Run run = upload(second, QString::fromLatin1(AliceToken), QStringLiteral("alice"));
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.errorText.contains(QLatin1String("quota is used up")) &&
                     run.errorText.contains(QLatin1String("of 6.00 MiB used")) &&
                     run.errorText.contains(QLatin1String("left")),
                 qPrintable(run.errorText));
        QVERIFY(!QFile::exists(m_work->filePath(QStringLiteral("storage/alice/second.bin"))));
    }

    void fullDiskIsNamedAndTheUploadKeptForResume()
    {
        // A reserve no disk can meet: every new upload is refused as if the disk were full.
        startReceiver({QStringLiteral("--disk-reserve"), QStringLiteral("1000000T")});
        const Run run = upload(m_file, QString::fromLatin1(AliceToken), QStringLiteral("alice"));
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.errorText.contains(QLatin1String("is out of disk space")) &&
                     run.errorText.contains(QLatin1String("multilane resume")),
                 qPrintable(run.errorText));
        QVERIFY2(run.ms < 20000, qPrintable(QString::number(run.ms))); // 507 is not retried
        QCOMPARE(storedFiles(), QStringList());

        QProcess status;
        QSignalSpy done(&status, &QProcess::finished);
        status.start(QStringLiteral(MULTILANE_CLIENT_BIN),
                     {QStringLiteral("status"), QStringLiteral("--state-dir"),
                      m_work->filePath(QStringLiteral("state"))});
        QVERIFY(done.wait(30000));
        QVERIFY(status.readAllStandardOutput().contains("report.bin")); // kept for `multilane resume`
    }

private:
    std::unique_ptr<QTemporaryDir> m_work;
    std::unique_ptr<ReceiverProcess> m_receiver;
    QString m_file;
};

QTEST_GUILESS_MAIN(TestRefusalsCli)
#include "tst_refusals_cli.moc"
