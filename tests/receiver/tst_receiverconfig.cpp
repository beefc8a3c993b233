#include "ConfigFileArguments.h"
#include "ReceiverConfigParser.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace multilane;
using namespace std::chrono_literals;
using Action = ReceiverConfigParser::Outcome::Action;

// The receiver's options: read in-process (ReceiverConfigParser: defaults, every kind of value, and
// the message a bad one gets), --config's lines as arguments (ConfigFileArguments), and the real
// receiver reading a file and refusing bad ones with exit status 2.
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

    void defaults()
    {
        const auto outcome = parse({QStringLiteral("--storage"), QStringLiteral("/srv/inbox")});
        QCOMPARE(outcome.action, Action::Run);
        const ReceiverConfig &config = outcome.config;
        QCOMPARE(config.storage, QStringLiteral("/srv/inbox"));
        QCOMPARE(config.listen.size(), 1);
        QCOMPARE(config.listen.first().toString(), QStringLiteral("0.0.0.0:9101"));
        QCOMPARE(config.quiet, false);
        QCOMPARE(config.expireAfter, std::chrono::seconds(7 * 24h));
        QCOMPARE(config.maxConnections, 256);
        QCOMPARE(config.clientConnections, std::nullopt);
        QCOMPARE(config.connectionsPerClient(), 64);
        QCOMPARE(config.idleTimeout, 10s);
        QVERIFY(!config.tls);
        QVERIFY(config.tokens.isEmpty());
        QCOMPARE(config.limits.maxFileSize, qint64(1) << 40);
        QCOMPARE(config.limits.maxChunkSize, qint64(256) << 20);
        QCOMPARE(config.limits.diskReserve, qint64(512) << 20);
        QCOMPARE(config.limits.maxUnfinished, 1000);
        QCOMPARE(config.accessLog, std::optional<QString>(QStringLiteral("-")));
        QVERIFY(!config.metricsAddress);
        QVERIFY(config.metricsToken.isEmpty());
    }

    void helpAndVersion()
    {
        const auto help = parse({QStringLiteral("--help")});
        QCOMPARE(help.action, Action::ShowHelp);
        // The defaults in the help come from ReceiverConfig.
        for (const char *text : {"Default: 0.0.0.0:9101.", "Default: 7d.", "Default: 256.", "Default: 10s.",
                                 "Default: 1T.", "Default: 256M.", "Default: 512M.", "Default: 1000."})
            QVERIFY2(help.text.simplified().contains(QLatin1String(text)), text); // --help wraps lines
        const auto version = parse({QStringLiteral("--version")});
        QCOMPARE(version.action, Action::ShowVersion);
        QVERIFY2(version.text.startsWith(QLatin1String("multilane-receiver 0.")), qPrintable(version.text));
    }

    void values()
    {
        const QString tokens = write("tokens", "0123456789abcdef0123 id=alice folder=alice quota=5G\n");
        const QString metricsToken = write("metrics-token", "s3cret-metrics\nignored\n");
        const auto outcome = parse({QStringLiteral("--storage=/srv/inbox"),
                                    QStringLiteral("--listen"),
                                    QStringLiteral("127.0.0.1:9101,9102"),
                                    QStringLiteral("--listen"),
                                    QStringLiteral("[::1]:0"),
                                    QStringLiteral("--expire-after"),
                                    QStringLiteral("1.5d"),
                                    QStringLiteral("--idle-timeout"),
                                    QStringLiteral("90"),
                                    QStringLiteral("--max-connections"),
                                    QStringLiteral("40"),
                                    QStringLiteral("--max-file-size"),
                                    QStringLiteral("5G"),
                                    QStringLiteral("--max-chunk-size"),
                                    QStringLiteral("1.5M"),
                                    QStringLiteral("--disk-reserve"),
                                    QStringLiteral("0"),
                                    QStringLiteral("--max-unfinished"),
                                    QStringLiteral("3"),
                                    QStringLiteral("--token-file"),
                                    tokens,
                                    QStringLiteral("--metrics-listen"),
                                    QStringLiteral("9100"),
                                    QStringLiteral("--metrics-token-file"),
                                    metricsToken,
                                    QStringLiteral("--quiet"),
                                    QStringLiteral("--access-log"),
                                    QStringLiteral("/var/log/r.log")});
        QCOMPARE(outcome.text, QString());
        QCOMPARE(outcome.action, Action::Run);
        const ReceiverConfig &config = outcome.config;
        QStringList listen;
        for (const ListenAddress &address : config.listen)
            listen.append(address.toString());
        QCOMPARE(listen, QStringList({QStringLiteral("127.0.0.1:9101"), QStringLiteral("127.0.0.1:9102"),
                                      QStringLiteral("[::1]:0")}));
        QCOMPARE(config.expireAfter, std::chrono::seconds(36h));
        QCOMPARE(config.idleTimeout, 90s);
        QCOMPARE(config.maxConnections, 40);
        QCOMPARE(config.connectionsPerClient(), 10); // a quarter of --max-connections
        QCOMPARE(config.limits.maxFileSize, qint64(5) << 30);
        QCOMPARE(config.limits.maxChunkSize, qint64(3) << 19);
        QCOMPARE(config.limits.diskReserve, 0);
        QCOMPARE(config.limits.maxUnfinished, 3);
        QCOMPARE(config.tokenFile, tokens);
        QCOMPARE(config.tokens.size(), 1);
        QCOMPARE(config.tokens.first().id, QStringLiteral("alice"));
        QCOMPARE(config.tokens.first().quota, std::optional<qint64>(qint64(5) << 30));
        QCOMPARE(config.metricsAddress->toString(), QStringLiteral("127.0.0.1:9100"));
        QCOMPARE(config.metricsToken, QByteArray("s3cret-metrics"));
        QVERIFY(config.quiet);
        QCOMPARE(config.accessLog, std::optional<QString>(QStringLiteral("/var/log/r.log")));
    }

    void clientConnections()
    {
        const auto told = parse({QStringLiteral("--storage=/s"), QStringLiteral("--client-connections=7"),
                                 QStringLiteral("--max-connections=40")});
        QCOMPARE(told.config.clientConnections, std::optional(7));
        QCOMPARE(told.config.connectionsPerClient(), 7);
        QCOMPARE(parse({QStringLiteral("--storage=/s"), QStringLiteral("--max-connections=3")})
                     .config.connectionsPerClient(),
                 1); // never none
        QVERIFY(parse({QStringLiteral("--help")})
                    .text.simplified()
                    .contains(QLatin1String("Default: a quarter of --max-connections (64).")));
    }

    void quietMeansNoAccessLogUnlessAsked()
    {
        QCOMPARE(parse({QStringLiteral("--storage=/s"), QStringLiteral("--quiet")}).config.accessLog,
                 std::nullopt);
        QCOMPARE(parse({QStringLiteral("--storage=/s"), QStringLiteral("--quiet"),
                        QStringLiteral("--access-log=-")})
                     .config.accessLog,
                 std::optional<QString>(QStringLiteral("-")));
    }

    void tlsPairIsMadeAbsolute()
    {
        const auto outcome =
            parse({QStringLiteral("--storage=/s"), QStringLiteral("--tls-cert"), QStringLiteral("cert.pem"),
                   QStringLiteral("--tls-key"), QStringLiteral("/k/key.pem")});
        QCOMPARE(outcome.action, Action::Run);
        QCOMPARE(outcome.config.tls->certificateFile,
                 QDir::current().absoluteFilePath(QStringLiteral("cert.pem")));
        QCOMPARE(outcome.config.tls->keyFile, QStringLiteral("/k/key.pem"));
    }

    void configFileAndCommandLine()
    {
        const QString config = write("r.conf", "storage = /from/file\nmax-connections = 7\nlisten = 9200\n");
        auto outcome = parse({QStringLiteral("--config"), config, QStringLiteral("--max-connections=9")});
        QCOMPARE(outcome.action, Action::Run);
        QCOMPARE(outcome.config.storage, QStringLiteral("/from/file"));
        QCOMPARE(outcome.config.maxConnections, 9); // the command line replaces the file's value
        QCOMPARE(outcome.config.listen.first().toString(), QStringLiteral("0.0.0.0:9200"));
        outcome =
            parse({QStringLiteral("--config"), write("bad.conf", "storage = /s\nmax-connections = many\n")});
        QCOMPARE(outcome.text,
                 QStringLiteral("--max-connections takes a number from 1 to 10000, not 'many'"));
    }

    void badValues_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        // Each row but "no storage" names a storage folder, so the value shown is what is refused.
        const auto row = [](const char *name, QStringList arguments, const QString &message) {
            QTest::newRow(name) << (QStringList{QStringLiteral("--storage=/s")} + arguments) << message;
        };
        row("unknown option", {QStringLiteral("--bogus")},
            QStringLiteral("Unknown option 'bogus'. (see --help)"));
        row("stray argument", {QStringLiteral("stray")},
            QStringLiteral("unexpected argument 'stray' (see --help)"));
        QTest::newRow("no storage") << QStringList{QStringLiteral("--quiet")}
                                    << QStringLiteral(
                                           "--storage DIR is required: the folder that receives the files");
        row("port over 65535", {QStringLiteral("--listen"), QStringLiteral("127.0.0.1:70000")},
            QStringLiteral(
                "--listen 127.0.0.1:70000: '70000' is not a port number between 0 and 65535 (expected "
                "[HOST:]PORT[,PORT…], e.g. 127.0.0.1:9101,9102)"));
        row("empty host", {QStringLiteral("--listen=:9101")},
            QStringLiteral("--listen :9101: ':9101' has an empty host (expected [HOST:]PORT[,PORT…], e.g. "
                           "127.0.0.1:9101,9102)"));
        row("expire unit", {QStringLiteral("--expire-after=5x")},
            QStringLiteral("--expire-after takes a duration such as 12h or 7d (0: never), not '5x'"));
        row("expire below a second", {QStringLiteral("--expire-after=0.5s")},
            QStringLiteral("--expire-after takes a duration such as 12h or 7d (0: never), not '0.5s'"));
        row("no connections", {QStringLiteral("--max-connections=0")},
            QStringLiteral("--max-connections takes a number from 1 to 10000, not '0'"));
        row("too many connections", {QStringLiteral("--max-connections=10001")},
            QStringLiteral("--max-connections takes a number from 1 to 10000, not '10001'"));
        row("no client connections", {QStringLiteral("--client-connections=0")},
            QStringLiteral("--client-connections takes a number from 1 to 10000, not '0'"));
        row("too many client connections", {QStringLiteral("--client-connections=10001")},
            QStringLiteral("--client-connections takes a number from 1 to 10000, not '10001'"));
        row("client connections not a number", {QStringLiteral("--client-connections=all")},
            QStringLiteral("--client-connections takes a number from 1 to 10000, not 'all'"));
        row("idle zero", {QStringLiteral("--idle-timeout=0")},
            QStringLiteral("--idle-timeout takes a duration from 1s to 1h, not '0'"));
        row("idle too long", {QStringLiteral("--idle-timeout=2h")},
            QStringLiteral("--idle-timeout takes a duration from 1s to 1h, not '2h'"));
        row("idle fraction", {QStringLiteral("--idle-timeout=1.5s")},
            QStringLiteral("--idle-timeout takes a duration from 1s to 1h, not '1.5s'"));
        row("certificate alone", {QStringLiteral("--tls-cert=c.pem")},
            QStringLiteral(
                "--tls-cert FILE and --tls-key FILE go together: give both for HTTPS, or neither for "
                "HTTP"));
        row("key alone", {QStringLiteral("--tls-key=k.pem")},
            QStringLiteral(
                "--tls-cert FILE and --tls-key FILE go together: give both for HTTPS, or neither for "
                "HTTP"));
        row("zero file size", {QStringLiteral("--max-file-size=0")},
            QStringLiteral("--max-file-size takes a size such as 512M or 2G (at least 1 bytes), not '0'"));
        row("unknown size unit", {QStringLiteral("--max-chunk-size=5Q")},
            QStringLiteral("--max-chunk-size takes a size such as 512M or 2G (at least 1 bytes), not '5Q'"));
        row("negative reserve", {QStringLiteral("--disk-reserve=-1")},
            QStringLiteral("--disk-reserve takes a size such as 512M or 2G (at least 0 bytes), not '-1'"));
        row("no unfinished", {QStringLiteral("--max-unfinished=0")},
            QStringLiteral("--max-unfinished takes a number of at least 1, not '0'"));
        row("two metrics ports", {QStringLiteral("--metrics-listen=1,2")},
            QStringLiteral("--metrics-listen takes one [HOST:]PORT, not '1,2'"));
        row("metrics port", {QStringLiteral("--metrics-listen=x:y")},
            QStringLiteral("--metrics-listen: --listen x:y: 'y' is not a port number between 0 and 65535 "
                           "(expected [HOST:]PORT[,PORT…], e.g. 127.0.0.1:9101,9102)"));
    }

    void badValues()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const auto outcome = parse(arguments);
        QCOMPARE(outcome.action, Action::Refuse);
        QCOMPARE(outcome.text, message);
    }

    void badFilesNameTheFile()
    {
        const QString tokens = write("tokens", "short\n");
        auto outcome = parse({QStringLiteral("--storage=/s"), QStringLiteral("--token-file"), tokens});
        QCOMPARE(outcome.action, Action::Refuse);
        QVERIFY2(outcome.text.startsWith(tokens + QStringLiteral(":1: the token is 5 characters long")),
                 qPrintable(outcome.text));

        const QString missing = m_dir->filePath(QStringLiteral("missing"));
        outcome = parse({QStringLiteral("--storage=/s"), QStringLiteral("--token-file"), missing});
        QVERIFY2(outcome.text.startsWith(QStringLiteral("cannot read the token file ") + missing),
                 qPrintable(outcome.text));

        const QString empty = write("empty", "\n");
        outcome = parse({QStringLiteral("--storage=/s"), QStringLiteral("--metrics-token-file"), empty});
        QCOMPARE(
            outcome.text,
            QStringLiteral("--metrics-token-file %1 is empty; put the token on its first line").arg(empty));

        outcome = parse({QStringLiteral("--config"), write("bad.conf", "storage = /s\nbogus = 1\n")});
        QVERIFY2(outcome.text.endsWith(QStringLiteral("bad.conf:2: unknown key 'bogus'; the keys are the "
                                                      "receiver's long flags without the dashes (see "
                                                      "multilane-receiver --help)")),
                 qPrintable(outcome.text));
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
    static ReceiverConfigParser::Outcome parse(QStringList arguments)
    {
        arguments.prepend(QStringLiteral("multilane-receiver"));
        return ReceiverConfigParser::parse(arguments);
    }

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
