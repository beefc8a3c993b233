#include "ConfigFileArguments.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace multilane;

// --config: the file's lines as arguments (ConfigFileArguments), and the real receiver reading one.
class TestReceiverConfig : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void linesBecomeArguments()
    {
        const QByteArray file = "# comment\n"
                                "; another comment\n"
                                "\n"
                                "storage = /srv/my inbox\n"
                                "listen=127.0.0.1:9101,9102\n"
                                "  listen = 9200  \n"
                                "quiet = true\n"
                                "verbose = off\n"
                                "expire-after = \" 3d \"\n";
        const auto result = reader().parse(file, QStringLiteral("r.conf"), {});
        QCOMPARE(result.error, QString());
        QCOMPARE(result.arguments,
                 QStringList({QStringLiteral("--storage=/srv/my inbox"),
                              QStringLiteral("--listen=127.0.0.1:9101,9102"), QStringLiteral("--listen=9200"),
                              QStringLiteral("--quiet"), QStringLiteral("--expire-after= 3d ")}));
    }

    void commandLineReplacesTheFile()
    {
        const auto result =
            reader().parse("storage = /a\nlisten = 1\nlisten = 2\nquiet = yes\n", QStringLiteral("r.conf"),
                           {QStringLiteral("listen"), QStringLiteral("quiet")});
        QCOMPARE(result.error, QString());
        QCOMPARE(result.arguments, QStringList({QStringLiteral("--storage=/a")}));
    }

    void errorsNameFileAndLine_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("error");
        QTest::newRow("unknown key") << QByteArray("storage = /a\n\nbogus = 1\n")
                                     << QStringLiteral("r.conf:3: unknown key 'bogus'");
        QTest::newRow("no equals") << QByteArray("# x\nstorage /a\n")
                                   << QStringLiteral("r.conf:2: expected 'key = value'");
        QTest::newRow("dashes") << QByteArray("--storage = /a\n")
                                << QStringLiteral("r.conf:1: unknown key '--storage'");
        QTest::newRow("switch") << QByteArray("quiet = maybe\n")
                                << QStringLiteral("r.conf:1: 'quiet' is a switch");
        QTest::newRow("empty value") << QByteArray("storage =\n")
                                     << QStringLiteral("r.conf:1: 'storage' needs a value");
        QTest::newRow("nested") << QByteArray("config = other.conf\n")
                                << QStringLiteral("r.conf:1: a config file cannot");
        QTest::newRow("section") << QByteArray("[receiver]\n")
                                 << QStringLiteral("r.conf:1: expected 'key = value'");
    }

    void errorsNameFileAndLine()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, error);
        const auto result = reader().parse(content, QStringLiteral("r.conf"), {});
        QVERIFY2(result.error.startsWith(error), qPrintable(result.error));
        QVERIFY(result.arguments.isEmpty());
    }

    void receiverRunsFromTheFile()
    {
        const QString storage = m_dir->filePath(QStringLiteral("inbox"));
        const QString config =
            write("r.conf", "# test\nstorage = " + storage.toUtf8() +
                                "\nlisten = 127.0.0.1:0\nquiet = true\nmax-connections = 0\n");
        // max-connections = 0 would be refused: the command line's value replaces it.
        QProcess process;
        process.start(
            QStringLiteral(MULTILANE_RECEIVER_BIN),
            {QStringLiteral("--config"), config, QStringLiteral("--max-connections"), QStringLiteral("4")});
        QVERIFY(process.waitForStarted(10000));
        QDeadlineTimer deadline(15000);
        QString listening;
        while (listening.isEmpty() && !deadline.hasExpired() &&
               (process.canReadLine() || process.waitForReadyRead(int(deadline.remainingTime()))))
            listening = QString::fromUtf8(process.readLine()).trimmed();
        QVERIFY2(QRegularExpression(QStringLiteral("^listening on http://127\\.0\\.0\\.1:[1-9][0-9]*$"))
                     .match(listening)
                     .hasMatch(),
                 qPrintable(listening + QString::fromUtf8(process.readAllStandardError())));
        QVERIFY(QFileInfo(storage).isDir());                    // the file's storage folder was made
        QCOMPARE(process.readAllStandardError(), QByteArray()); // quiet = true
        process.kill();
        process.waitForFinished(10000);

        // Without the override, the file's bad value is refused like the flag's would be.
        const auto [code, error] = run({QStringLiteral("--config"), config});
        QCOMPARE(code, 2);
        QVERIFY2(error.contains("--max-connections takes a number from 1 to 10000, not '0'"),
                 error.constData());
    }

    void badFilesExitWithFileAndLine()
    {
        const QString config = write("bad.conf", "storage = /tmp\nlisten = 0\nmetrics-token = x\n");
        auto [code, error] = run({QStringLiteral("--config"), config});
        QCOMPARE(code, 2);
        QVERIFY2(error.startsWith(QByteArray("multilane-receiver: " + config.toUtf8() +
                                             ":3: unknown key 'metrics-token'")),
                 error.constData());

        const QString missing = m_dir->filePath(QStringLiteral("missing.conf"));
        std::tie(code, error) =
            run({QStringLiteral("--config"), missing, QStringLiteral("--storage"), m_dir->path()});
        QCOMPARE(code, 2);
        QVERIFY2(error.contains(QByteArray(missing.toUtf8() + ": cannot read the config file")),
                 error.constData());

        // --version after --config checks the file without starting.
        const QString good = write("good.conf", "storage = /srv/inbox\nquiet = false\n");
        std::tie(code, error) = run({QStringLiteral("--config"), good, QStringLiteral("--version")});
        QCOMPARE(code, 0);
    }

private:
    static ConfigFileArguments reader()
    {
        return ConfigFileArguments(
            {QCommandLineOption(QStringLiteral("storage"), QString(), QStringLiteral("DIR")),
             QCommandLineOption(QStringLiteral("listen"), QString(), QStringLiteral("ADDRESSES")),
             QCommandLineOption(QStringLiteral("expire-after"), QString(), QStringLiteral("DURATION")),
             QCommandLineOption(QStringLiteral("quiet"), QString()),
             QCommandLineOption(QStringLiteral("verbose"), QString())});
    }

    QString write(const char *name, const QByteArray &content)
    {
        const QString path = m_dir->filePath(QString::fromLatin1(name));
        QFile file(path);
        if (file.open(QIODevice::WriteOnly))
            file.write(content);
        return path;
    }

    // Runs a receiver expected to exit by itself; its exit code and stderr.
    static std::pair<int, QByteArray> run(const QStringList &arguments)
    {
        QProcess process;
        process.start(QStringLiteral(MULTILANE_RECEIVER_BIN), arguments);
        if (!process.waitForFinished(10000)) {
            process.kill();
            process.waitForFinished(10000);
            return {-1, "did not exit"};
        }
        return {process.exitCode(), process.readAllStandardError()};
    }

    std::unique_ptr<QTemporaryDir> m_dir;
};

QTEST_GUILESS_MAIN(TestReceiverConfig)
#include "tst_receiverconfig.moc"
