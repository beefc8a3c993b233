// `multilane upload` as scripts use it: a real process against a real receiver on three ports.
#include "ReceiverProcess.h"
#include "TestFiles.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestUploadCli : public QObject {
    Q_OBJECT

    struct Run {
        int exitCode = -1;
        QList<QJsonObject> events;
        QString stderrText;
        QJsonObject event(const QString &name) const
        {
            for (const QJsonObject &e : events) {
                if (e.value(QLatin1String("event")).toString() == name)
                    return e;
            }
            return {};
        }
        int count(const QString &name, const QString &status = {}) const
        {
            int n = 0;
            for (const QJsonObject &e : events) {
                if (e.value(QLatin1String("event")).toString() == name &&
                    (status.isEmpty() || e.value(QLatin1String("status")).toString() == status))
                    ++n;
            }
            return n;
        }
    };

    Run runClient(const QStringList &arguments)
    {
        QProcess client;
        client.start(QStringLiteral(MULTILANE_CLIENT_BIN), arguments);
        Run run;
        if (!client.waitForFinished(240000)) {
            client.kill();
            return run;
        }
        run.exitCode = client.exitStatus() == QProcess::NormalExit ? client.exitCode() : -1;
        run.stderrText = QString::fromUtf8(client.readAllStandardError());
        for (const QByteArray &line : client.readAllStandardOutput().split('\n')) {
            if (!line.trimmed().isEmpty())
                run.events.append(QJsonDocument::fromJson(line).object());
        }
        return run;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_storage.isValid() && m_source.isValid());
        m_receiver = std::make_unique<ReceiverProcess>(m_storage.path());
        QVERIFY2(m_receiver->start(3), qPrintable(m_receiver->errorText()));
    }

    void fiftyFilesAndABigOneEveryByteIdentical()
    {
        constexpr qint64 chunk = 1024 * 1024;
        const QString folder = m_source.filePath(QStringLiteral("photos"));
        const QList<qint64> edges{0, 1, chunk, chunk + 1};
        for (int i = 0; i < 50; ++i) {
            const qint64 size = i < edges.size() ? edges.at(i) : qint64(i) * 37813 % (3 * chunk);
            QVERIFY(TestFiles::write(folder + QStringLiteral("/sub%1/file%2.dat").arg(i % 4).arg(i), size,
                                     quint32(i)));
        }
        const QString big = m_source.filePath(QStringLiteral("video.mov"));
        QVERIFY(TestFiles::write(big, 200 * 1024 * 1024, 4242));

        const Run run = runClient(QStringList{QStringLiteral("upload")} + m_receiver->endpointArguments() +
                                  QStringList{QStringLiteral("--connections"), QStringLiteral("12"),
                                              QStringLiteral("--chunk-size"), QStringLiteral("1M"),
                                              QStringLiteral("--json"), QStringLiteral("--dest"),
                                              QStringLiteral("cli"), big, folder + QLatin1Char('/')});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        QCOMPARE(run.count(QStringLiteral("fileDone"), QStringLiteral("done")), 51);
        QCOMPARE(run.count(QStringLiteral("error")), 0);

        QVERIFY(TestFiles::sameContents(big, m_storage.filePath(QStringLiteral("cli/video.mov"))));
        QDir sourceRoot(folder);
        const QStringList sources = [&] {
            QStringList list;
            for (int i = 0; i < 50; ++i)
                list.append(QStringLiteral("sub%1/file%2.dat").arg(i % 4).arg(i));
            return list;
        }();
        for (const QString &relative : sources) {
            QVERIFY2(TestFiles::sameContents(sourceRoot.filePath(relative),
                                             m_storage.filePath(QStringLiteral("cli/photos/") + relative)),
                     qPrintable(relative));
        }
        // The reported hash is the file's, and every port carried chunks.
        for (const QJsonObject &e : run.events) {
            if (e.value(QLatin1String("destination")).toString() == QLatin1String("cli/video.mov") &&
                e.value(QLatin1String("event")).toString() == QLatin1String("fileDone"))
                QCOMPARE(e.value(QLatin1String("sha256")).toString().toLatin1(), TestFiles::sha256(big));
        }
        const QJsonObject summary = run.event(QStringLiteral("summary"));
        QCOMPARE(summary.value(QLatin1String("filesDone")).toInt(), 51);
        const auto endpoints = summary.value(QLatin1String("endpoints")).toArray();
        QCOMPARE(endpoints.size(), 3);
        for (const QJsonValue &endpoint : endpoints)
            QVERIFY2(endpoint.toObject().value(QLatin1String("requests")).toInt() >= 10,
                     qPrintable(QString::fromUtf8(QJsonDocument(endpoint.toObject()).toJson())));
    }

    void identicalFilesAreSkippedChangedOnesRenamed()
    {
        const QString file = m_source.filePath(QStringLiteral("again/report.pdf"));
        QVERIFY(TestFiles::write(file, 3 * 1024 * 1024 + 5, 7));
        const QStringList base =
            QStringList{QStringLiteral("upload")} + m_receiver->endpointArguments() +
            QStringList{QStringLiteral("--chunk-size"), QStringLiteral("1M"), QStringLiteral("--json"),
                        QStringLiteral("--dest"), QStringLiteral("again")};
        QCOMPARE(runClient(base + QStringList{file}).exitCode, 0);
        const Run second = runClient(base + QStringList{file});
        QCOMPARE(second.exitCode, 0);
        QCOMPARE(second.count(QStringLiteral("fileDone"), QStringLiteral("skipped")), 1);
        QVERIFY(!QFileInfo::exists(m_storage.filePath(QStringLiteral("again/report (1).pdf"))));

        QVERIFY(TestFiles::write(file, 3 * 1024 * 1024 + 5, 8)); // same size, other bytes
        const Run third = runClient(base + QStringList{file});
        QCOMPARE(third.exitCode, 0);
        const QJsonObject done = third.event(QStringLiteral("fileDone"));
        QCOMPARE(done.value(QLatin1String("destination")).toString(), QStringLiteral("again/report (1).pdf"));
        QVERIFY(TestFiles::sameContents(file, m_storage.filePath(QStringLiteral("again/report (1).pdf"))));

        // Sending that same version again finds the finished upload: nothing is sent twice.
        const Run repeat = runClient(base + QStringList{file});
        QCOMPARE(repeat.count(QStringLiteral("fileDone"), QStringLiteral("skipped")), 1);
        QCOMPARE(repeat.event(QStringLiteral("summary")).value(QLatin1String("bytesSent")).toInteger(), 0);

        // A third version with "fail": report.pdf is taken, so it is refused, and said so.
        QVERIFY(TestFiles::write(file, 3 * 1024 * 1024 + 5, 9));
        const Run failing =
            runClient(base + QStringList{QStringLiteral("--on-conflict"), QStringLiteral("fail"), file});
        QCOMPARE(failing.exitCode, 1);
        QCOMPARE(failing.count(QStringLiteral("error")), 1);
        QVERIFY(!QFileInfo::exists(m_storage.filePath(QStringLiteral("again/report (2).pdf"))));
    }

    void unreachableEndpointsFailClearly()
    {
        const QString file = m_source.filePath(QStringLiteral("lonely.txt"));
        QVERIFY(TestFiles::write(file, 10, 1));
        const Run run = runClient({QStringLiteral("upload"), QStringLiteral("--endpoint"),
                                   QStringLiteral("http://127.0.0.1:1"), file});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.stderrText.contains(QLatin1String("127.0.0.1:1 does not answer")),
                 qPrintable(run.stderrText));
        QVERIFY(run.stderrText.contains(QLatin1String("nothing was sent")));
    }

    void badUsageExitsTwo()
    {
        const Run run =
            runClient({QStringLiteral("upload"), QStringLiteral("--connections"), QStringLiteral("many")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.stderrText.contains(QLatin1String("--help")));
    }

private:
    QTemporaryDir m_storage;
    QTemporaryDir m_source;
    std::unique_ptr<ReceiverProcess> m_receiver;
};

QTEST_GUILESS_MAIN(TestUploadCli)
#include "tst_upload_cli.moc"
