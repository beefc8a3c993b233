// HTTPS end to end: a receiver with a self-signed certificate, the CLI trusting it by CA file or
// by pin, and refusing it (fast, with the fix in the message, nothing sent) otherwise.
#include "ReceiverProcess.h"
#include "TestCertificate.h"
#include "TestFiles.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

class TestTls : public QObject {
    Q_OBJECT

    struct Run {
        int exitCode = -1;
        QString stderrText;
        qint64 elapsedMs = 0;
    };

    Run runClient(const QStringList &arguments)
    {
        QProcess client;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("XDG_STATE_HOME"), m_state.path());
        // Under ASan: see the file for why (OpenSSL's per-thread state in Qt's network threads).
        QString leakOptions = environment.value(QStringLiteral("LSAN_OPTIONS"));
        leakOptions += (leakOptions.isEmpty() ? QString() : QStringLiteral(":")) +
                       QStringLiteral("suppressions=") + QStringLiteral(CLIENT_LSAN_SUPPRESSIONS);
        environment.insert(QStringLiteral("LSAN_OPTIONS"), leakOptions);
        client.setProcessEnvironment(environment);
        QElapsedTimer clock;
        clock.start();
        client.start(QStringLiteral(MULTILANE_CLIENT_BIN), arguments);
        Run run;
        if (!client.waitForFinished(60000)) {
            client.kill();
            return run;
        }
        run.elapsedMs = clock.elapsed();
        run.exitCode = client.exitStatus() == QProcess::NormalExit ? client.exitCode() : -1;
        run.stderrText = QString::fromUtf8(client.readAllStandardError());
        return run;
    }

    QStringList upload(const QString &dest, const QStringList &extra, const QStringList &endpoints = {})
    {
        return QStringList{QStringLiteral("upload")} +
               (endpoints.isEmpty() ? m_secure->endpointArguments() : endpoints) +
               QStringList{QStringLiteral("--chunk-size"), QStringLiteral("1M"), QStringLiteral("--dest"),
                           dest} +
               extra + QStringList{m_source.filePath(QStringLiteral("set")) + QLatin1Char('/')};
    }

    void verifyArrived(const QString &dest)
    {
        const QDir set(m_source.filePath(QStringLiteral("set")));
        for (const QString &name : set.entryList(QDir::Files)) {
            QVERIFY2(TestFiles::sameContents(set.filePath(name),
                                             m_storage.filePath(dest + QStringLiteral("/set/") + name)),
                     qPrintable(dest + QLatin1Char('/') + name));
        }
    }

    // Every file in the storage folder, hidden ones too (unfinished uploads, records), with sizes.
    QStringList storageListing() const
    {
        QStringList listing;
        QDirIterator it(m_storage.path(), QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            listing.append(path + QLatin1Char(' ') + QString::number(QFileInfo(path).size()));
        }
        listing.sort();
        return listing;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_storage.isValid() && m_source.isValid() && m_keys.isValid() && m_state.isValid());
        m_certificate = TestCertificate::create(m_keys.path());
        QVERIFY(m_certificate.isValid());
        // A 5 MiB file in 1 MiB chunks, an empty one and a few small ones.
        const QString set = m_source.filePath(QStringLiteral("set"));
        QVERIFY(TestFiles::write(set + QStringLiteral("/big.bin"), 5 * 1024 * 1024 + 3, 1));
        QVERIFY(TestFiles::write(set + QStringLiteral("/empty.bin"), 0, 2));
        for (int i = 0; i < 6; ++i)
            QVERIFY(
                TestFiles::write(set + QStringLiteral("/small%1.bin").arg(i), 1000 * i + 7, quint32(10 + i)));

        startSecureReceiver(QStringLiteral("access.log"));
        for (const QUrl &url : m_secure->urls())
            QCOMPARE(url.scheme(), QStringLiteral("https"));
    }

    void receiverPrintsItsPin()
    {
        QProcess receiver;
        receiver.start(QStringLiteral(MULTILANE_RECEIVER_BIN),
                       {QStringLiteral("--storage"), m_storage.path(), QStringLiteral("--listen"),
                        QStringLiteral("127.0.0.1:0"), QStringLiteral("--quiet"),
                        QStringLiteral("--tls-cert"), m_certificate.certificateFile,
                        QStringLiteral("--tls-key"), m_certificate.keyFile});
        QByteArray output;
        QDeadlineTimer deadline(10000);
        while (output.count('\n') < 2 && receiver.waitForReadyRead(int(deadline.remainingTime())))
            output += receiver.readAllStandardOutput();
        receiver.terminate();
        QVERIFY(receiver.waitForFinished(10000));
        const QList<QByteArray> lines = output.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QVERIFY2(lines.at(0).startsWith("listening on https://127.0.0.1:"), lines.at(0).constData());
        QCOMPARE(QString::fromLatin1(lines.at(1)),
                 QStringLiteral("certificate sha256 ") + m_certificate.sha256Hex);
    }

    void caFileUploadIsByteIdentical()
    {
        const Run run = runClient(
            upload(QStringLiteral("ca"), {QStringLiteral("--ca-file"), m_certificate.certificateFile}));
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        verifyArrived(QStringLiteral("ca"));
    }

    void pinUploadIsByteIdentical()
    {
        // Upper case with colons, as `openssl x509 -fingerprint -sha256` prints it.
        QString pin;
        for (qsizetype i = 0; i < m_certificate.sha256Hex.size(); i += 2)
            pin += (i ? QStringLiteral(":") : QString()) + m_certificate.sha256Hex.mid(i, 2).toUpper();
        const Run run = runClient(upload(QStringLiteral("pin"), {QStringLiteral("--pin-sha256"), pin}));
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        verifyArrived(QStringLiteral("pin"));
    }

    void endpointsFileCarriesCaFileAndPin()
    {
        // caFile relative to the endpoints file; pinSha256 on another endpoint.
        QFile file(m_keys.filePath(QStringLiteral("endpoints.json")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        const QList<QUrl> &urls = m_secure->urls();
        file.write(QStringLiteral("{\"endpoints\":[{\"url\":\"%1\",\"caFile\":\"receiver.crt\"},"
                                  "{\"url\":\"%2\",\"pinSha256\":\"%3\"}]}")
                       .arg(urls.at(0).toString(), urls.at(1).toString(), m_certificate.sha256Hex)
                       .toUtf8());
        file.close();
        const Run run = runClient(
            upload(QStringLiteral("file"), {}, {QStringLiteral("--endpoints-file"), file.fileName()}));
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        verifyArrived(QStringLiteral("file"));
    }

    void untrustedCertificateFailsFastAndSendsNothing()
    {
        const QStringList before = storageListing();
        const Run run = runClient(upload(QStringLiteral("untrusted"), {}));
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.elapsedMs < 10000, qPrintable(QString::number(run.elapsedMs)));
        for (const QUrl &url : m_secure->urls()) {
            const QString expected =
                url.toString() + QStringLiteral(": the receiver's certificate is not trusted");
            QVERIFY2(run.stderrText.contains(expected), qPrintable(run.stderrText));
        }
        QVERIFY2(run.stderrText.contains(QStringLiteral("--ca-file FILE, or pin it with --pin-sha256 HEX")),
                 qPrintable(run.stderrText));
        QVERIFY2(run.stderrText.contains(QStringLiteral("no endpoint is usable, nothing was sent")),
                 qPrintable(run.stderrText));
        QCOMPARE(storageListing(), before); // not one byte reached the storage
    }

    void wrongPinIsRefusedEvenWithATrustedCa()
    {
        const QString wrong = QString(64, QLatin1Char('a'));
        for (const QStringList &extra :
             {QStringList{QStringLiteral("--pin-sha256"), wrong},
              QStringList{QStringLiteral("--ca-file"), m_certificate.certificateFile,
                          QStringLiteral("--pin-sha256"), wrong}}) {
            const QStringList before = storageListing();
            const Run run = runClient(upload(QStringLiteral("wrongpin"), extra));
            QCOMPARE(run.exitCode, 1);
            QVERIFY2(run.elapsedMs < 10000, qPrintable(QString::number(run.elapsedMs)));
            const QString expected =
                QStringLiteral("%1 presented a certificate with SHA-256 %2, not the pinned %3")
                    .arg(m_secure->urls().first().toString(), m_certificate.sha256Hex, wrong);
            QVERIFY2(run.stderrText.contains(expected), qPrintable(run.stderrText));
            QCOMPARE(storageListing(), before);
        }
    }

    void plainHttpToATlsPortSaysUseHttps()
    {
        QString url = m_secure->urls().first().toString();
        url.replace(QStringLiteral("https://"), QStringLiteral("http://"));
        const Run run = runClient({QStringLiteral("upload"), QStringLiteral("--endpoint"), url,
                                   m_source.filePath(QStringLiteral("set/small1.bin"))});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.stderrText.contains(url + QStringLiteral(" does not answer")),
                 qPrintable(run.stderrText));
        QVERIFY2(
            run.stderrText.contains(QStringLiteral("(a receiver started with --tls-cert needs https://)")),
            qPrintable(run.stderrText));
    }

    void probeTakesThePinToo()
    {
        const QStringList endpoint{QStringLiteral("probe"), QStringLiteral("--endpoint"),
                                   m_secure->urls().first().toString()};
        Run run = runClient(endpoint);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.stderrText.contains(QStringLiteral("the receiver's certificate is not trusted")),
                 qPrintable(run.stderrText));
        run = runClient(endpoint + QStringList{QStringLiteral("--pin-sha256"), m_certificate.sha256Hex});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
    }

    void badTlsOptionsAreUsageErrors()
    {
        Run run0 = runClient({QStringLiteral("upload"), QStringLiteral("--endpoint"),
                              QStringLiteral("http://127.0.0.1:1"), QStringLiteral("--pin-sha256"),
                              m_certificate.sha256Hex, m_keys.path()});
        QCOMPARE(run0.exitCode, 2);
        QVERIFY2(
            run0.stderrText.contains(QStringLiteral("--ca-file and --pin-sha256 are for https:// endpoints")),
            qPrintable(run0.stderrText));
        Run run =
            runClient(upload(QStringLiteral("x"), {QStringLiteral("--pin-sha256"), QStringLiteral("12ab")}));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.stderrText.contains(QStringLiteral("'12ab' is not a SHA-256 pin")),
                 qPrintable(run.stderrText));
        const QString missing = m_keys.filePath(QStringLiteral("missing.pem"));
        run = runClient(upload(QStringLiteral("x"), {QStringLiteral("--ca-file"), missing}));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.stderrText.contains(QStringLiteral("cannot read the CA file ") + missing),
                 qPrintable(run.stderrText));
    }

    void receiverRefusesBadTlsFiles()
    {
        const TestCertificate other = TestCertificate::create(m_keys.path(), QStringLiteral("other"));
        QVERIFY(other.isValid());
        const QList<std::pair<QStringList, QString>> cases{
            {{QStringLiteral("--tls-cert"), m_certificate.certificateFile},
             QStringLiteral("--tls-cert FILE and --tls-key FILE go together")},
            {{QStringLiteral("--tls-cert"), m_certificate.certificateFile, QStringLiteral("--tls-key"),
              other.keyFile},
             QStringLiteral("the TLS key %1 does not belong to the certificate %2")
                 .arg(other.keyFile, m_certificate.certificateFile)},
            {{QStringLiteral("--tls-cert"), m_keys.filePath(QStringLiteral("none.crt")),
              QStringLiteral("--tls-key"), other.keyFile},
             QStringLiteral("cannot read the TLS certificate %1")
                 .arg(m_keys.filePath(QStringLiteral("none.crt")))},
            {{QStringLiteral("--tls-cert"), other.keyFile, QStringLiteral("--tls-key"), other.keyFile},
             QStringLiteral("%1 holds no usable PEM certificate").arg(other.keyFile)},
        };
        for (const auto &[arguments, message] : cases) {
            QProcess receiver;
            receiver.start(QStringLiteral(MULTILANE_RECEIVER_BIN),
                           QStringList{QStringLiteral("--storage"), m_storage.path(),
                                       QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")} +
                               arguments);
            QVERIFY(receiver.waitForFinished(10000));
            QCOMPARE(receiver.exitCode(), 2);
            const QString errors = QString::fromUtf8(receiver.readAllStandardError());
            QVERIFY2(errors.contains(message), qPrintable(errors));
        }
    }

    void plainHttpStillWorks()
    {
        QTemporaryDir storage;
        ReceiverProcess plain(storage.path());
        QVERIFY2(plain.start(2), qPrintable(plain.errorText()));
        QCOMPARE(plain.urls().first().scheme(), QStringLiteral("http"));
        const QStringList arguments = QStringList{QStringLiteral("upload")} + plain.endpointArguments() +
                                      QStringList{QStringLiteral("--chunk-size"), QStringLiteral("1M"),
                                                  m_source.filePath(QStringLiteral("set/big.bin"))};
        const Run run = runClient(arguments);
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        QVERIFY(TestFiles::sameContents(m_source.filePath(QStringLiteral("set/big.bin")),
                                        QDir(storage.path()).filePath(QStringLiteral("big.bin"))));

        // And an https:// URL on that plain port says what is wrong.
        QString url = plain.urls().first().toString();
        url.replace(QStringLiteral("http://"), QStringLiteral("https://"));
        const Run wrongScheme = runClient({QStringLiteral("upload"), QStringLiteral("--endpoint"), url,
                                           m_source.filePath(QStringLiteral("set/small1.bin"))});
        QCOMPARE(wrongScheme.exitCode, 1);
        QVERIFY2(wrongScheme.stderrText.contains(QStringLiteral("the TLS handshake with %1 failed").arg(url)),
                 qPrintable(wrongScheme.stderrText));
        QVERIFY2(wrongScheme.stderrText.contains(QStringLiteral("needs an http:// URL")),
                 qPrintable(wrongScheme.stderrText));
    }

    // The journal keeps the pin: `resume` needs no --pin-sha256 to finish a pinned upload.
    void resumeReusesTheJournaledPin()
    {
        const QString file = m_source.filePath(QStringLiteral("resume/slow.bin"));
        QVERIFY(TestFiles::write(file, 4 * 1024 * 1024, 77));
        const QString state = m_state.filePath(QStringLiteral("resume-state"));
        QProcess client;
        client.start(QStringLiteral(MULTILANE_CLIENT_BIN),
                     QStringList{QStringLiteral("upload")} + m_secure->endpointArguments() +
                         QStringList{QStringLiteral("--pin-sha256"), m_certificate.sha256Hex,
                                     QStringLiteral("--state-dir"), state, QStringLiteral("--chunk-size"),
                                     QStringLiteral("256K"), QStringLiteral("--limit-rate"),
                                     QStringLiteral("256K"), QStringLiteral("--json"),
                                     QStringLiteral("--dest"), QStringLiteral("resume"), file});
        // Killed at its first progress event: well before the 16 s the rate limit makes it last.
        bool progressed = false;
        const QDeadlineTimer deadline(30000);
        while (!progressed && client.waitForReadyRead(int(deadline.remainingTime()))) {
            while (client.canReadLine())
                progressed = progressed || client.readLine().contains("\"event\":\"progress\"");
        }
        QVERIFY(progressed);
        client.kill();
        QVERIFY(client.waitForFinished(10000));
        QVERIFY(!TestFiles::sameContents(file, m_storage.filePath(QStringLiteral("resume/slow.bin"))));

        const Run run = runClient({QStringLiteral("resume"), QStringLiteral("--state-dir"), state});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        QVERIFY(TestFiles::sameContents(file, m_storage.filePath(QStringLiteral("resume/slow.bin"))));
    }

    // Keep-alive holds over TLS: far fewer handshakes than requests. (Whether a session is
    // resumed here depends on timing: the connections open beside the endpoint check, before its
    // session is known; tst_directtransport checks that connections opened after it resume it.)
    // Runs last: it stops the receiver. A receiver of its
    // own counts this upload's handshakes and requests alone: the other tests' clients each
    // open their connections for a few requests, or fail on purpose before any. The count is
    // fixed: a self-tuned upload starts from the level the earlier tests' uploads settled at on
    // this "network" (the journal remembers it), which under the sanitizers has been 60 and more.
    void connectionsAreKeptAlive()
    {
        const QString many = m_source.filePath(QStringLiteral("many"));
        for (int i = 0; i < 120; ++i)
            QVERIFY(TestFiles::write(many + QStringLiteral("/f%1.bin").arg(i), 64 * 1024, quint32(100 + i)));
        m_secure->process().terminate();
        QVERIFY(m_secure->process().waitForFinished(10000));
        startSecureReceiver(QStringLiteral("keepalive-access.log"));
        const Run run = runClient(QStringList{QStringLiteral("upload")} + m_secure->endpointArguments() +
                                  QStringList{QStringLiteral("--pin-sha256"), m_certificate.sha256Hex,
                                              QStringLiteral("--connections"), QStringLiteral("6"),
                                              QStringLiteral("--dest"), QStringLiteral("many"), many});
        QVERIFY2(run.exitCode == 0, qPrintable(run.stderrText));
        m_secure->process().terminate();
        QVERIFY(m_secure->process().waitForFinished(10000));
        const QString log = QString::fromUtf8(m_secure->stderrTail());
        static const QRegularExpression handshakes(
            QStringLiteral("tls handshakes: (\\d+) \\((\\d+) resumed\\)"));
        const QRegularExpressionMatch match = handshakes.match(log);
        QVERIFY2(match.hasMatch(), qPrintable(log));
        const int completed = match.captured(1).toInt();
        const int resumed = match.captured(2).toInt();
        // Every request of the upload, as the receiver's access log has them.
        QFile accessLog(m_keys.filePath(QStringLiteral("keepalive-access.log")));
        QVERIFY(accessLog.open(QIODevice::ReadOnly));
        const int requests = int(accessLog.readAll().count('\n'));
        qInfo("TLS handshakes of the upload: %d (%d resumed) for %d requests", completed, resumed, requests);
        // Six connections and the three checks' own, against 120 files and the checks: one
        // handshake a request would be 126.
        QVERIFY2(completed > 0 && completed * 4 < requests, qPrintable(log));
    }

private:
    void startSecureReceiver(const QString &accessLogName)
    {
        m_secure = std::make_unique<ReceiverProcess>(m_storage.path());
        // The access log goes to a file: on stderr its 250 lines would fill the pipe this test
        // reads only at the end, and the receiver drops lines rather than block (the handshake
        // count it logs at stop among them).
        QVERIFY2(m_secure->start(3, {QStringLiteral("--tls-cert"), m_certificate.certificateFile,
                                     QStringLiteral("--tls-key"), m_certificate.keyFile,
                                     QStringLiteral("--access-log"), m_keys.filePath(accessLogName)}),
                 qPrintable(m_secure->errorText()));
    }

    QTemporaryDir m_storage;
    QTemporaryDir m_source;
    QTemporaryDir m_keys;
    QTemporaryDir m_state;
    TestCertificate m_certificate;
    std::unique_ptr<ReceiverProcess> m_secure;
};

QTEST_GUILESS_MAIN(TestTls)
#include "tst_tls.moc"
