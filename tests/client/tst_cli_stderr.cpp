// Nothing but the program's own words on stderr: every subcommand, an endpoint that stalls, a
// folder with what cannot be sent. Each `multilane` runs with Qt's messages marked (QtMessages),
// so a warning from inside Qt ("QIODevice::read …: device not open") fails the test.
#include "QtMessages.h"
#include "ReceiverProcess.h"
#include "TcpProxy.h"
#include "TestFiles.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <csignal>
#include <sys/stat.h>

class TestCliStderr : public QObject {
    Q_OBJECT

    struct Run {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
    };

    static void start(QProcess &client, const QStringList &arguments)
    {
        client.setProcessEnvironment(QtMessages::marked());
        client.start(QStringLiteral(MULTILANE_CLIENT_BIN), arguments);
    }

    static Run finish(QProcess &client, int timeoutMs)
    {
        QSignalSpy done(&client, &QProcess::finished);
        Run run;
        if (client.state() != QProcess::NotRunning && !done.wait(timeoutMs)) {
            client.kill();
            client.waitForFinished(10000);
            return run;
        }
        run.exitCode = client.exitStatus() == QProcess::NormalExit ? client.exitCode() : -1;
        run.out = client.readAllStandardOutput();
        run.err = client.readAllStandardError();
        return run;
    }

    static Run runClient(const QStringList &arguments, int timeoutMs = 120000)
    {
        QProcess client;
        start(client, arguments);
        return finish(client, timeoutMs);
    }

    static QString qtLinesIn(const Run &run)
    {
        return (QtMessages::find(run.err) + QtMessages::find(run.out)).join(QLatin1Char('\n'));
    }

    QStringList endpoints() const { return m_receiver->endpointArguments(); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_storage.isValid() && m_work.isValid());
        m_receiver = std::make_unique<ReceiverProcess>(m_storage.path());
        m_receiver->process().setProcessEnvironment(QtMessages::marked());
        QVERIFY2(m_receiver->start(3), qPrintable(m_receiver->errorText()));
        QVERIFY(TestFiles::write(m_work.filePath(QStringLiteral("one.bin")), 3 << 20, 1));
    }

    void everySubcommand_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        const QString state = m_work.filePath(QStringLiteral("state"));
        const QString file = m_work.filePath(QStringLiteral("one.bin"));
        const QStringList stateDir{QStringLiteral("--state-dir"), state};
        QTest::newRow("help") << QStringList{QStringLiteral("help")} << 0;
        QTest::newRow("version") << QStringList{QStringLiteral("version")} << 0;
        for (const char *command : {"upload", "resume", "status", "probe", "speedtest"})
            QTest::newRow(qPrintable(QStringLiteral("%1 --help").arg(QLatin1String(command))))
                << QStringList{QLatin1String(command), QStringLiteral("--help")} << 0;
        QTest::newRow("status") << QStringList{QStringLiteral("status")} + stateDir << 0;
        QTest::newRow("status --json")
            << QStringList{QStringLiteral("status"), QStringLiteral("--json")} + stateDir << 0;
        QTest::newRow("status with an upload option")
            << QStringList{QStringLiteral("status"), QStringLiteral("--pin-sha256"), QString(64, u'a')} << 2;
        QTest::newRow("resume, nothing to resume") << QStringList{QStringLiteral("resume")} + stateDir << 0;
        QTest::newRow("upload") << QStringList{QStringLiteral("upload")} + endpoints() + stateDir +
                                       QStringList{file}
                                << 0;
        QTest::newRow("upload --json") << QStringList{QStringLiteral("upload"), QStringLiteral("--json")} +
                                              endpoints() + stateDir + QStringList{file}
                                       << 0;
        QTest::newRow("probe") << QStringList{QStringLiteral("probe")} + endpoints() << 0;
        QTest::newRow("speedtest") << QStringList{QStringLiteral("speedtest")} + endpoints() << 0;
        QTest::newRow("upload without an endpoint") << QStringList{QStringLiteral("upload"), file} << 2;
        QTest::newRow("upload to nobody")
            << QStringList{QStringLiteral("upload"), QStringLiteral("--endpoint"),
                           QStringLiteral("http://127.0.0.1:1")} +
                   stateDir + QStringList{file}
            << 1;
        QTest::newRow("probe of nobody") << QStringList{QStringLiteral("probe"), QStringLiteral("--endpoint"),
                                                        QStringLiteral("http://127.0.0.1:1")}
                                         << 1;
        QTest::newRow("an unknown command") << QStringList{QStringLiteral("frobnicate")} << 2;
        QTest::newRow("a bad option value")
            << QStringList{QStringLiteral("upload"), QStringLiteral("--chunk-size"), QStringLiteral("1")} +
                   endpoints() + QStringList{file}
            << 2;
    }

    void everySubcommand()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        const Run run = runClient(arguments);
        QVERIFY2(run.exitCode == exitCode, run.err.constData());
        const QString qt = qtLinesIn(run);
        QVERIFY2(qt.isEmpty(), qPrintable(qt));
    }

    // A receiver stopped (SIGSTOP) mid-upload: every request to it stalls and is abandoned after
    // --stall-timeout; they used to print "QIODevice::read (QNetworkReplyHttpImpl): device not
    // open" each. Once it goes on (SIGCONT) the upload finishes.
    void aStalledEndpointIsAbandonedQuietly()
    {
        QTemporaryDir storage;
        ReceiverProcess receiver(storage.path());
        receiver.process().setProcessEnvironment(QtMessages::marked());
        QVERIFY2(receiver.start(2), qPrintable(receiver.errorText()));
        std::vector<std::unique_ptr<TcpProxy>> proxies;
        QStringList arguments{QStringLiteral("upload"),
                              QStringLiteral("--stall-timeout"),
                              QStringLiteral("3s"),
                              QStringLiteral("--limit-rate"),
                              QStringLiteral("20M"),
                              QStringLiteral("--state-dir"),
                              m_work.filePath(QStringLiteral("stall-state"))};
        for (const QUrl &url : receiver.urls()) {
            proxies.push_back(std::make_unique<TcpProxy>(url));
            arguments << QStringLiteral("--endpoint") << proxies.back()->url().toString();
        }
        const QString file = m_work.filePath(QStringLiteral("stalled.bin"));
        QVERIFY(TestFiles::write(file, 48 << 20, 2));
        const qint64 pid = receiver.process().processId();
        bool stopped = false;
        for (const auto &proxy : proxies) {
            connect(proxy.get(), &TcpProxy::forwardedUpstream, this, [&] {
                qint64 total = 0;
                for (const auto &each : proxies)
                    total += each->bytesUpstream();
                if (stopped || total < (8 << 20))
                    return;
                stopped = true;
                ::kill(pid_t(pid), SIGSTOP);
                QTimer::singleShot(5000, this, [pid] { ::kill(pid_t(pid), SIGCONT); });
            });
        }
        QProcess client;
        start(client, arguments + QStringList{file});
        const Run run = finish(client, 120000);
        QVERIFY(stopped);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY(TestFiles::sameContents(file, storage.filePath(QStringLiteral("stalled.bin"))));
        const QString qt = qtLinesIn(run) + QtMessages::find(receiver.takeStderr()).join(u'\n');
        QVERIFY2(qt.isEmpty(), qPrintable(qt));
    }

    // A receiver killed while the probe's streams upload to it: Qt reports some of those failures
    // twice, and the second report used to reach stderr ("QNetworkReplyImplPrivate::error:
    // Internal problem, this method must only be called once."; 7 times in 8 such probes).
    void aProbeWhoseReceiverDiesSaysOnlyWhy()
    {
        for (int round = 0; round < 6; ++round) {
            QTemporaryDir storage;
            ReceiverProcess receiver(storage.path());
            QVERIFY2(receiver.start(3), qPrintable(receiver.errorText()));
            QProcess client;
            start(client, QStringList{QStringLiteral("probe")} + receiver.endpointArguments());
            // The upload streams run for 2 s after a few round trips: it dies while they go.
            QTimer::singleShot(400 + 150 * round, &receiver.process(), &QProcess::kill);
            const Run run = finish(client, 60000);
            QVERIFY2(run.exitCode == 1 && run.err.contains("cannot measure the link"),
                     qPrintable(QStringLiteral("exit %1: %2")
                                    .arg(run.exitCode)
                                    .arg(QString::fromUtf8(run.err + run.out))));
            const QString qt = qtLinesIn(run);
            QVERIFY2(qt.isEmpty(), qPrintable(QStringLiteral("round %1: %2").arg(round).arg(qt)));
        }
    }

    // What is found and not sent is named with its reason, in the summary and in --json.
    void whatIsNotSentIsListedWithItsReason()
    {
        const QString folder = m_work.filePath(QStringLiteral("mixed"));
        QVERIFY(TestFiles::write(folder + QStringLiteral("/kept.bin"), 1000, 3));
        QVERIFY(::mkfifo(QFile::encodeName(folder + QStringLiteral("/pipe")).constData(), 0600) == 0);
        QVERIFY(QFile::link(folder + QStringLiteral("/gone"), folder + QStringLiteral("/dangling")));
        const QStringList common =
            endpoints() + QStringList{QStringLiteral("--state-dir"),
                                      m_work.filePath(QStringLiteral("mixed-state")), folder};
        const Run console = runClient(QStringList{QStringLiteral("upload")} + common);
        QVERIFY2(console.exitCode == 0, console.err.constData());
        QVERIFY2(console.err.contains("not sent, 2 entries that are not regular files:"),
                 console.err.constData());
        QVERIFY2(console.err.contains(QByteArray(folder.toUtf8() + "/pipe: a FIFO (named pipe)")),
                 console.err.constData());
        QVERIFY2(console.err.contains(QByteArray(folder.toUtf8() + "/dangling: a dangling symbolic link")),
                 console.err.constData());

        const Run json = runClient(QStringList{QStringLiteral("upload"), QStringLiteral("--json")} + common);
        QCOMPARE(json.exitCode, 0);
        QJsonArray notSent;
        for (const QByteArray &line : json.out.split('\n')) {
            const QJsonObject event = QJsonDocument::fromJson(line).object();
            if (event.value(QLatin1String("event")).toString() == QLatin1String("summary"))
                notSent = event.value(QLatin1String("notSent")).toArray();
        }
        QCOMPARE(notSent.size(), 2);
        QCOMPARE(notSent.at(1).toObject().value(QLatin1String("path")).toString(),
                 folder + QStringLiteral("/pipe"));
        QCOMPARE(notSent.at(1).toObject().value(QLatin1String("reason")).toString(),
                 QStringLiteral("a FIFO (named pipe)"));
        QVERIFY(qtLinesIn(console).isEmpty() && qtLinesIn(json).isEmpty());
    }

private:
    QTemporaryDir m_storage;
    QTemporaryDir m_work;
    std::unique_ptr<ReceiverProcess> m_receiver;
};

QTEST_GUILESS_MAIN(TestCliStderr)
#include "tst_cli_stderr.moc"
