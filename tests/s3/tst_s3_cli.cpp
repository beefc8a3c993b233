// `multilane upload --s3 …` and `multilane resume` as a user runs them: the real binary against a
// throwaway Ceph cluster with three gateways; and the window's controller, the other front end,
// against the same cluster. Objects are read back by a second client (Debian's aws-cli); what
// reached each gateway comes from the gateways' own access logs.
#include "CephCluster.h"
#include "ResumeJournal.h"
#include "RgwAccessLog.h"
#include "S3Target.h"
#include "S3TestTransport.h"
#include "SettingsStore.h"
#include "SigV4Signer.h"
#include "TestFiles.h"
#include "TransferController.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>

using namespace multilane;

namespace {

constexpr qint64 MiB = 1 << 20;
const QString AwsCli = QStringLiteral("/usr/bin/aws");

QProcessEnvironment cleanEnvironment(const QString &home)
{
    // Only what the test sets: no profile, region or endpoint of the machine's user leaks in.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &name : environment.keys()) {
        if (name.startsWith(QLatin1String("AWS_")))
            environment.remove(name);
    }
    environment.insert(QStringLiteral("HOME"), home);
    return environment;
}

} // namespace

class TestS3Cli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<CephCluster> m_cluster;
    std::unique_ptr<RgwAccessLog> m_log;
    S3TestTransport m_s3;
    QJsonObject m_summary; // the last upload's --json summary
    quint32 m_seed = 0;
    int m_buckets = 0;

    QProcessEnvironment environment(const QString &secret = {}) const
    {
        QProcessEnvironment environment = cleanEnvironment(m_dir.filePath(QStringLiteral("home")));
        environment.insert(QStringLiteral("AWS_ACCESS_KEY_ID"), m_cluster->credentials().accessKeyId);
        environment.insert(QStringLiteral("AWS_SECRET_ACCESS_KEY"),
                           secret.isEmpty() ? m_cluster->credentials().secretAccessKey : secret);
        environment.insert(QStringLiteral("AWS_DEFAULT_REGION"), m_cluster->region());
        return environment;
    }
    QStringList gatewayArguments() const
    {
        QStringList arguments;
        for (const QUrl &gateway : m_cluster->gateways())
            arguments << QStringLiteral("--endpoint") << gateway.toString();
        return arguments;
    }
    // A bucket of its own for each test, all made at the start: after a gateway is killed, a
    // bucket's creation waits some 25 s for the dead gateway's RADOS watch to time out.
    QString newBucket() { return QStringLiteral("cli-%1").arg(++m_buckets); }
    bool createBucket(const QString &name)
    {
        // PUT /bucket, signed by hand: the toolkit builds only what an upload needs.
        const S3Target target =
            S3Target::parse(QStringLiteral("s3://") + name, m_cluster->gateways(), m_cluster->region())
                .value();
        S3Request create;
        create.method = "PUT";
        create.url = target.bucketUrl(m_cluster->gateways().first());
        create.headers = SigV4Signer(m_cluster->credentials(), m_cluster->region())
                             .sign(create.method, create.url, {}, SigV4Signer::EmptyPayloadHash,
                                   QDateTime::currentDateTimeUtc())
                             .headersToAdd;
        return m_s3.send(create).httpStatus == 200;
    }
    std::pair<int, QString> aws(const QStringList &arguments, const QString &gateway = {}) const
    {
        QProcess process;
        process.setProcessEnvironment(environment());
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(AwsCli,
                      QStringList{QStringLiteral("--endpoint-url"),
                                  gateway.isEmpty() ? m_cluster->gateways().last().toString() : gateway} +
                          arguments);
        if (!process.waitForFinished(120000))
            return {-1, QStringLiteral("aws did not finish")};
        return {process.exitCode(), QString::fromUtf8(process.readAll())};
    }
    // Downloads s3://bucket/prefix through another gateway than the first and compares every file.
    bool readBackIdentical(const QString &s3Prefix, const QMap<QString, QString> &expected)
    {
        QTemporaryDir into;
        const auto [exitCode, output] =
            aws({QStringLiteral("s3"), QStringLiteral("cp"), QStringLiteral("--recursive"),
                 QStringLiteral("--only-show-errors"), s3Prefix, into.path()});
        if (exitCode != 0) {
            qWarning("aws s3 cp: %s", qPrintable(output));
            return false;
        }
        for (auto it = expected.cbegin(); it != expected.cend(); ++it) {
            if (!TestFiles::sameContents(into.filePath(it.key()), it.value())) {
                qWarning("%s differs from %s", qPrintable(it.key()), qPrintable(it.value()));
                return false;
            }
        }
        int stored = 0; // and nothing else is there
        for (QDirIterator it(into.path(), QDir::Files, QDirIterator::Subdirectories); it.hasNext(); it.next())
            ++stored;
        return stored == expected.size();
    }
    int openUploads(const QString &bucket)
    {
        const auto [exitCode, output] =
            aws({QStringLiteral("s3api"), QStringLiteral("list-multipart-uploads"),
                 QStringLiteral("--bucket"), bucket, QStringLiteral("--output"), QStringLiteral("json")});
        if (exitCode != 0)
            return -1;
        return int(QJsonDocument::fromJson(output.toUtf8())
                       .object()
                       .value(QLatin1String("Uploads"))
                       .toArray()
                       .size());
    }

    // The client run to its end, its stderr kept.
    int runClient(const QStringList &arguments, QString *errorText = nullptr, const QString &secret = {})
    {
        QProcess client;
        client.setProcessEnvironment(environment(secret));
        QSignalSpy done(&client, &QProcess::finished);
        QElapsedTimer timer;
        timer.start();
        client.start(QStringLiteral(MULTILANE_CLIENT_BIN), arguments);
        if (!done.wait(240000))
            return -1;
        qInfo("multilane %s: %.1f s", qPrintable(arguments.first()), double(timer.elapsed()) / 1000);
        if (errorText)
            *errorText = QString::fromUtf8(client.readAllStandardError());
        return client.exitStatus() == QProcess::NormalExit ? client.exitCode() : -1;
    }

    // Starts an upload with --json and calls `act` once the client says `fraction` of the bytes
    // arrived (acknowledged, so journaled); returns how the client ended.
    QProcess::ExitStatus uploadUntil(const QStringList &arguments, double fraction,
                                     const std::function<void(QProcess &)> &act, int *exitCode = nullptr)
    {
        QProcess client;
        client.setProcessEnvironment(environment());
        bool acted = false;
        connect(&client, &QProcess::readyReadStandardOutput, &client, [&] {
            while (client.canReadLine()) {
                const QJsonObject event = QJsonDocument::fromJson(client.readLine()).object();
                if (event.value(QLatin1String("event")).toString() == QLatin1String("summary"))
                    m_summary = event;
                if (acted || event.value(QLatin1String("event")).toString() != QLatin1String("progress"))
                    continue;
                const double done = event.value(QLatin1String("bytesDone")).toDouble();
                if (done >= fraction * event.value(QLatin1String("bytesTotal")).toDouble()) {
                    acted = true;
                    act(client);
                }
            }
        });
        QSignalSpy finished(&client, &QProcess::finished);
        client.start(QStringLiteral(MULTILANE_CLIENT_BIN), arguments + QStringList{QStringLiteral("--json")});
        if (!finished.wait(240000))
            return QProcess::CrashExit;
        if (!acted)
            qWarning("the upload ended before %.0f %% of it had arrived", fraction * 100);
        if (exitCode)
            *exitCode = client.exitCode();
        return acted ? client.exitStatus() : QProcess::NormalExit;
    }

    // Every part of the object stored exactly once over all gateways: nothing was sent twice.
    void verifyEachPartStoredOnce(const QString &encodedPath, int parts)
    {
        QList<RgwAccessLog::Request> stored;
        // The gateways write their logs on a thread of their own: wait for the last lines.
        QTRY_VERIFY_WITH_TIMEOUT((stored = m_log->storedParts(encodedPath)).size() >= parts, 10000);
        QSet<int> numbers;
        for (const RgwAccessLog::Request &part : std::as_const(stored))
            numbers.insert(part.partNumber());
        QCOMPARE(numbers.size(), parts);
        QCOMPARE(stored.size(), parts);
        QCOMPARE(m_log->creates(encodedPath).size(), 1);
    }

private Q_SLOTS:
    void initTestCase();
    void filesAndFoldersAcrossTheGatewaysReadBackByAwsCli();
    void filesOfOneNameBothArriveAndAnEmptyPrefixNeedsNoHeadEach();
    void aMultipartUploadToAnEmptyPrefixIsCreatedAtOnce();
    void killedClientResumesSendingOnlyTheMissingParts();
    void sigintPausesAndResumeFinishes();
    void wrongSecretSaysWhatToCheck();
    void missingKeysAreAUsageError();
    void windowSendsWithTheKeyringsKeys();
    // Last: a killed gateway slows the cluster's metadata changes for a while.
    void killedGatewayIsCarriedByTheOthers();
};

void TestS3Cli::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("home"))));
    m_seed = QRandomGenerator::global()->generate();
    qInfo("seed %u", m_seed);
    m_cluster = std::make_unique<CephCluster>(m_dir.filePath(QStringLiteral("cluster")));
    QVERIFY2(m_cluster->start(3), qPrintable(m_cluster->errorText()));
    QStringList logs;
    for (int i = 0; i < m_cluster->gateways().size(); ++i)
        logs.append(m_cluster->gatewayLog(i));
    m_log = std::make_unique<RgwAccessLog>(logs);
    QVERIFY2(QFileInfo(AwsCli).isExecutable(), "ceph-cluster.sh installs awscli");
    for (int i = 1; i <= 8; ++i)
        QVERIFY(createBucket(QStringLiteral("cli-%1").arg(i)));
}

void TestS3Cli::filesAndFoldersAcrossTheGatewaysReadBackByAwsCli()
{
    const QString bucket = newBucket();
    QVERIFY(!bucket.isEmpty());
    QTemporaryDir work;
    const QMap<QString, qint64> sizes{{QStringLiteral("photos/empty.bin"), 0},
                                      {QStringLiteral("photos/one.bin"), 1},
                                      {QStringLiteral("photos/sub/ünï côde.bin"), 6 * MiB + 3},
                                      {QStringLiteral("photos/sub/deeper/big.bin"), 23 * MiB},
                                      {QStringLiteral("top.bin"), 11 * MiB}};
    QMap<QString, QString> expected; // key below the prefix -> local file
    quint32 seed = m_seed;
    for (auto it = sizes.cbegin(); it != sizes.cend(); ++it) {
        const QString local = work.filePath(it.key());
        QVERIFY(QDir().mkpath(QFileInfo(local).path()));
        QVERIFY(TestFiles::write(local, it.value(), seed++));
        expected.insert(QStringLiteral("batch/") + it.key(), local);
    }
    QString errorText;
    const int exitCode = runClient(
        QStringList{QStringLiteral("upload"), QStringLiteral("--s3"),
                    QStringLiteral("s3://%1/backups/").arg(bucket), QStringLiteral("--dest"),
                    QStringLiteral("batch"), QStringLiteral("--state-dir"),
                    work.filePath(QStringLiteral("state")), QStringLiteral("--quiet")} +
            gatewayArguments() +
            QStringList{work.filePath(QStringLiteral("photos")), work.filePath(QStringLiteral("top.bin"))},
        &errorText);
    QVERIFY2(exitCode == 0, qPrintable(errorText));
    QVERIFY(readBackIdentical(QStringLiteral("s3://%1/backups/").arg(bucket), expected));
    // The 23 MiB file's parts went to more than one gateway.
    QSet<int> gateways;
    QTRY_VERIFY_WITH_TIMEOUT(
        !m_log->storedParts(QStringLiteral("/%1/backups/batch/photos/sub/deeper/big.bin").arg(bucket))
             .isEmpty(),
        10000);
    for (const auto &part :
         m_log->storedParts(QStringLiteral("/%1/backups/batch/photos/sub/deeper/big.bin").arg(bucket)))
        gateways.insert(part.gateway);
    QVERIFY2(gateways.size() >= 2, "the parts of one file spread over the gateways");
    QCOMPARE(openUploads(bucket), 0);
    // Nothing left to resume.
    QProcess status;
    status.start(
        QStringLiteral(MULTILANE_CLIENT_BIN),
        {QStringLiteral("status"), QStringLiteral("--state-dir"), work.filePath(QStringLiteral("state"))});
    QVERIFY(status.waitForFinished(60000));
    QVERIFY(status.readAllStandardOutput().contains("no unfinished uploads"));
}

// To a prefix that lists no key, small files go without a HEAD each (the round trip that made
// them wait), and their PutObjects are conditional (If-None-Match: *): two files of one name in
// one upload, sent at once, both arrive, the second under the next numbered name, where a HEAD
// then PUT let one overwrite the other.
void TestS3Cli::filesOfOneNameBothArriveAndAnEmptyPrefixNeedsNoHeadEach()
{
    const QString bucket = newBucket();
    QTemporaryDir work;
    const QString first = work.filePath(QStringLiteral("a/same.txt"));
    const QString second = work.filePath(QStringLiteral("b/same.txt"));
    QVERIFY(QDir().mkpath(work.filePath(QStringLiteral("a"))) &&
            QDir().mkpath(work.filePath(QStringLiteral("b"))));
    QVERIFY(TestFiles::write(first, 1000, m_seed) && TestFiles::write(second, 2000, m_seed + 1));
    constexpr int Many = 100;
    QMap<QString, QString> expected;
    for (int i = 0; i < Many; ++i) {
        const QString name = QStringLiteral("many/f%1.bin").arg(i);
        QVERIFY(QDir().mkpath(work.filePath(QStringLiteral("many"))));
        QVERIFY(TestFiles::write(work.filePath(name), 20000 + i, m_seed + 2 + quint32(i)));
        expected.insert(QStringLiteral("p/") + name, work.filePath(name));
    }
    QString errorText;
    const int exitCode =
        runClient(QStringList{QStringLiteral("upload"), QStringLiteral("--s3"),
                              QStringLiteral("s3://%1/p/").arg(bucket), QStringLiteral("--state-dir"),
                              work.filePath(QStringLiteral("state")), QStringLiteral("--quiet")} +
                      gatewayArguments() + QStringList{first, second, work.filePath(QStringLiteral("many"))},
                  &errorText);
    QVERIFY2(exitCode == 0, qPrintable(errorText));
    // Which of the two got the plain name is a race; each name holds one of them.
    const QString plain = QStringLiteral("p/same.txt");
    const QString numbered = QStringLiteral("p/same (1).txt");
    QTemporaryDir into;
    const auto [copied, output] =
        aws({QStringLiteral("s3"), QStringLiteral("cp"), QStringLiteral("--recursive"),
             QStringLiteral("--only-show-errors"), QStringLiteral("s3://%1/").arg(bucket), into.path()});
    QVERIFY2(copied == 0, qPrintable(output));
    const bool firstIsPlain = TestFiles::sameContents(into.filePath(plain), first);
    QVERIFY(TestFiles::sameContents(into.filePath(plain), firstIsPlain ? first : second));
    QVERIFY(TestFiles::sameContents(into.filePath(numbered), firstIsPlain ? second : first));
    for (auto it = expected.cbegin(); it != expected.cend(); ++it)
        QVERIFY2(TestFiles::sameContents(into.filePath(it.key()), it.value()), qPrintable(it.key()));
    // The files dispatched before the listing answered looked first; the others did not.
    const QString many = QStringLiteral("/%1/p/many/").arg(bucket);
    const auto count = [&](const char *method, int status) {
        int n = 0;
        for (const RgwAccessLog::Request &request : m_log->read())
            n += request.method == QLatin1String(method) && request.path.startsWith(many) &&
                 (status == 0 || request.status == status);
        return n;
    };
    // The gateways write their logs on a thread of their own: wait for every stored file's line.
    QTRY_VERIFY_WITH_TIMEOUT(count("PUT", 200) >= Many, 10000);
    const int heads = count("HEAD", 0);
    qInfo("%d of %d files looked before they were written", heads, Many);
    QVERIFY2(heads < Many / 2, qPrintable(QStringLiteral("%1 HEADs for %2 files").arg(heads).arg(Many)));
}

// The destination checks (one key, one unfinished upload under the prefix) answer before any
// file is attached: to an empty prefix, a multipart upload is created without a HEAD of its key
// nor a listing of the key's unfinished uploads (two round trips before its first part).
void TestS3Cli::aMultipartUploadToAnEmptyPrefixIsCreatedAtOnce()
{
    const QString bucket = newBucket();
    QTemporaryDir work;
    const QString file = work.filePath(QStringLiteral("big.bin"));
    QVERIFY(TestFiles::write(file, 11 * MiB, m_seed + 40));
    QString errorText;
    const int exitCode =
        runClient(QStringList{QStringLiteral("upload"), QStringLiteral("--s3"),
                              QStringLiteral("s3://%1/q/").arg(bucket), QStringLiteral("--chunk-size"),
                              QStringLiteral("5M"), QStringLiteral("--state-dir"),
                              work.filePath(QStringLiteral("state")), QStringLiteral("--quiet")} +
                      gatewayArguments() + QStringList{file},
                  &errorText);
    QVERIFY2(exitCode == 0, qPrintable(errorText));
    const QString path = QStringLiteral("/%1/q/big.bin").arg(bucket);
    int parts = 0;
    int heads = 0;
    int keyListings = 0;
    int completes = 0;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            parts = heads = keyListings = completes = 0;
            for (const RgwAccessLog::Request &request : m_log->read()) {
                parts += request.path == path && request.isUploadPart();
                heads += request.path == path && request.method == QLatin1String("HEAD");
                completes += request.path == path && request.method == QLatin1String("POST") &&
                             request.query.hasQueryItem(QStringLiteral("uploadId"));
                keyListings +=
                    request.path == QStringLiteral("/%1/").arg(bucket) &&
                    request.query.hasQueryItem(QStringLiteral("uploads")) &&
                    request.query.queryItemValue(QStringLiteral("prefix")) == QStringLiteral("q/big.bin");
            }
            return completes == 1;
        }(),
        10000);
    QCOMPARE(parts, 3);
    // The one HEAD is the one after the complete (Ceph's complete answers no ETag).
    QCOMPARE(heads, 1);
    QCOMPARE(keyListings, 0);
}

void TestS3Cli::killedClientResumesSendingOnlyTheMissingParts()
{
    const QString bucket = newBucket();
    QTemporaryDir work;
    const QString file = work.filePath(QStringLiteral("video.bin"));
    constexpr int Parts = 8;
    QVERIFY(TestFiles::write(file, Parts * 5 * MiB, m_seed + 10));
    const QString state = work.filePath(QStringLiteral("state"));
    // Slowed down and two parts at a time, so the kill comes with some parts stored, some not.
    const QStringList upload = QStringList{QStringLiteral("upload"),
                                           QStringLiteral("--s3"),
                                           QStringLiteral("s3://%1/in/").arg(bucket),
                                           QStringLiteral("--chunk-size"),
                                           QStringLiteral("5M"),
                                           QStringLiteral("--connections"),
                                           QStringLiteral("2"),
                                           QStringLiteral("--limit-rate"),
                                           QStringLiteral("10M"),
                                           QStringLiteral("--state-dir"),
                                           state} +
                               gatewayArguments() + QStringList{file};
    // SIGKILL: no chance to flush anything but what the journal already wrote.
    QCOMPARE(uploadUntil(upload, 0.2, [](QProcess &client) { client.kill(); }), QProcess::CrashExit);
    const QDateTime resumedAt = QDateTime::currentDateTimeUtc();

    QString errorText;
    QVERIFY2(runClient({QStringLiteral("resume"), QStringLiteral("--state-dir"), state}, &errorText) == 0,
             qPrintable(errorText));
    QVERIFY(
        readBackIdentical(QStringLiteral("s3://%1/in/").arg(bucket), {{QStringLiteral("video.bin"), file}}));
    const QString path = QStringLiteral("/%1/in/video.bin").arg(bucket);
    verifyEachPartStoredOnce(path, Parts);
    int resent = 0;
    for (const auto &part : m_log->storedParts(path))
        resent += part.finishedAt >= resumedAt;
    qInfo("the resume sent %d of %d parts", resent, Parts);
    QVERIFY(resent < Parts);
    QCOMPARE(openUploads(bucket), 0);
}

void TestS3Cli::sigintPausesAndResumeFinishes()
{
    const QString bucket = newBucket();
    QTemporaryDir work;
    const QString file = work.filePath(QStringLiteral("doc.bin"));
    constexpr int Parts = 8;
    QVERIFY(TestFiles::write(file, Parts * 5 * MiB - 7, m_seed + 20));
    const QString state = work.filePath(QStringLiteral("state"));
    int exitCode = -1;
    const auto status = uploadUntil(
        QStringList{QStringLiteral("upload"), QStringLiteral("--s3"), QStringLiteral("s3://%1/").arg(bucket),
                    QStringLiteral("--chunk-size"), QStringLiteral("5M"), QStringLiteral("--connections"),
                    QStringLiteral("2"), QStringLiteral("--limit-rate"), QStringLiteral("10M"),
                    QStringLiteral("--state-dir"), state} +
            gatewayArguments() + QStringList{file},
        0.2, [](QProcess &client) { ::kill(pid_t(client.processId()), SIGINT); }, &exitCode);
    QCOMPARE(status, QProcess::NormalExit);
    QCOMPARE(exitCode, 130);
    QCOMPARE(openUploads(bucket), 1); // paused, not aborted

    QString errorText;
    QVERIFY2(runClient({QStringLiteral("resume"), QStringLiteral("--state-dir"), state}, &errorText) == 0,
             qPrintable(errorText));
    QVERIFY(readBackIdentical(QStringLiteral("s3://%1/").arg(bucket), {{QStringLiteral("doc.bin"), file}}));
    verifyEachPartStoredOnce(QStringLiteral("/%1/doc.bin").arg(bucket), Parts);
    QCOMPARE(openUploads(bucket), 0);
}

void TestS3Cli::killedGatewayIsCarriedByTheOthers()
{
    const QString bucket = newBucket();
    QTemporaryDir work;
    const QString file = work.filePath(QStringLiteral("carried.bin"));
    // 16 parts at 10 MB/s: most of them still to go when the gateway dies, so the client must
    // try it again (with 8, now and then every part left went to the others before it did).
    QVERIFY(TestFiles::write(file, 80 * MiB, m_seed + 30));
    int exitCode = -1;
    const auto status = uploadUntil(
        QStringList{QStringLiteral("upload"), QStringLiteral("--s3"), QStringLiteral("s3://%1/").arg(bucket),
                    QStringLiteral("--chunk-size"), QStringLiteral("5M"), QStringLiteral("--connections"),
                    QStringLiteral("3"), QStringLiteral("--limit-rate"), QStringLiteral("10M"),
                    QStringLiteral("--state-dir"), work.filePath(QStringLiteral("state"))} +
            gatewayArguments() + QStringList{file},
        0.2, [this](QProcess &) { QVERIFY(m_cluster->killGateway(1)); }, &exitCode);
    QProcess *restart = m_cluster->restartGateway(1);
    QSignalSpy restarted(restart, &QProcess::finished);
    QCOMPARE(status, QProcess::NormalExit);
    QCOMPARE(exitCode, 0);
    QVERIFY(
        readBackIdentical(QStringLiteral("s3://%1/").arg(bucket), {{QStringLiteral("carried.bin"), file}}));
    // Every part stored (on the gateways still up for whatever the killed one had in flight).
    const QString path = QStringLiteral("/%1/carried.bin").arg(bucket);
    QSet<int> parts;
    QTRY_VERIFY_WITH_TIMEOUT(m_log->storedParts(path).size() >= 16, 10000);
    for (const auto &part : m_log->storedParts(path))
        parts.insert(part.partNumber());
    QCOMPARE(parts.size(), 16);
    // The client saw its requests to the killed gateway fail, and carried on over the others.
    const QJsonArray endpoints = m_summary.value(QLatin1String("endpoints")).toArray();
    QCOMPARE(endpoints.size(), 3);
    QVERIFY2(endpoints.at(1).toObject().value(QLatin1String("failures")).toInt() >= 1,
             QJsonDocument(m_summary).toJson().constData());
    QVERIFY(restarted.wait(60000));
    QCOMPARE(restart->exitCode(), 0);
}

void TestS3Cli::wrongSecretSaysWhatToCheck()
{
    const QString bucket = newBucket();
    QTemporaryDir work;
    const QString file = work.filePath(QStringLiteral("secret.bin"));
    QVERIFY(TestFiles::write(file, 6 * MiB, m_seed + 40));
    const QString wrongSecret = QStringLiteral("not-the-secret-0000000000000000000000000");
    QString errorText;
    const int exitCode = runClient(
        QStringList{QStringLiteral("upload"), QStringLiteral("--s3"), QStringLiteral("s3://%1/").arg(bucket),
                    QStringLiteral("--state-dir"), work.filePath(QStringLiteral("state"))} +
            gatewayArguments() + QStringList{file},
        &errorText, wrongSecret);
    QCOMPARE(exitCode, 1);
    QVERIFY2(errorText.contains(QLatin1String("refused the request's signature")), qPrintable(errorText));
    QVERIFY2(errorText.contains(QLatin1String("AWS_SECRET_ACCESS_KEY")), qPrintable(errorText));
    QVERIFY(!errorText.contains(wrongSecret));
    QCOMPARE(openUploads(bucket), 0);
    const auto [listed, objects] =
        aws({QStringLiteral("s3"), QStringLiteral("ls"), QStringLiteral("s3://") + bucket});
    QVERIFY(objects.trimmed().isEmpty());
}

void TestS3Cli::missingKeysAreAUsageError()
{
    QTemporaryDir work;
    const QString file = work.filePath(QStringLiteral("x.bin"));
    QVERIFY(TestFiles::write(file, 10, m_seed));
    QProcess client;
    client.setProcessEnvironment(cleanEnvironment(m_dir.filePath(QStringLiteral("home"))));
    client.start(QStringLiteral(MULTILANE_CLIENT_BIN),
                 QStringList{QStringLiteral("upload"), QStringLiteral("--s3"), QStringLiteral("s3://nobody/"),
                             QStringLiteral("--state-dir"), work.filePath(QStringLiteral("state"))} +
                     gatewayArguments() + QStringList{file});
    QVERIFY(client.waitForFinished(60000));
    QCOMPARE(client.exitCode(), 2);
    QVERIFY2(client.readAllStandardError().contains("no S3 credentials found"),
             "the message says what to set");
}

void TestS3Cli::windowSendsWithTheKeyringsKeys()
{
    const QString bucket = newBucket();
    QTemporaryDir work;
    QMap<QString, QString> expected;
    for (int i = 0; i < 3; ++i) {
        const QString name = QStringLiteral("drop/f%1.bin").arg(i);
        QVERIFY(QDir().mkpath(work.filePath(QStringLiteral("drop"))));
        QVERIFY(TestFiles::write(work.filePath(name), (i * 7 + 1) * MiB, m_seed + 50 + i));
        expected.insert(name, work.filePath(name));
    }
    SettingsStore settings(work.filePath(QStringLiteral("settings.json")),
                           work.filePath(QStringLiteral("none.json")));
    settings.load();
    UserSettings values = settings.values();
    values.s3.enabled = true;
    values.s3.target.url = QStringLiteral("s3://%1/").arg(bucket);
    values.s3.gateways = m_cluster->gateways();
    values.s3.accessKeyId = m_cluster->credentials().accessKeyId;
    values.s3.secretAccessKey =
        m_cluster->credentials().secretAccessKey; // as DesktopApp reads it from the keyring
    settings.update(values);
    // Nothing in this process's environment gives keys: they come from the settings.
    qputenv("HOME", m_dir.filePath(QStringLiteral("home")).toUtf8());
    ResumeJournal journal(work.filePath(QStringLiteral("state")));
    QVERIFY(!journal.open());
    TransferController controller(settings, &journal);
    QSignalSpy finished(&controller, &TransferController::batchFinished);
    const TransferController::AddResult added = controller.addPaths({work.filePath(QStringLiteral("drop"))});
    QVERIFY2(added.errors.isEmpty(), qPrintable(added.errors.join(QLatin1Char('\n'))));
    QCOMPARE(added.files, 3);
    QVERIFY(finished.wait(120000));
    QVERIFY2(!finished.at(0).at(1).toBool(), qPrintable(finished.at(0).at(0).toString()));
    QVERIFY(readBackIdentical(QStringLiteral("s3://%1/").arg(bucket), expected));
    QCOMPARE(controller.unfinishedFiles(), 0);
}

QTEST_MAIN(TestS3Cli)
#include "tst_s3_cli.moc"
