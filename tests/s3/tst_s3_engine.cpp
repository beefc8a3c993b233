// The transfer engine over S3: a TransferScheduler with S3Protocol and the real network transport
// against a throwaway Ceph cluster with three gateways (ceph-cluster.sh). Objects are read back
// with our own GETs and compared byte for byte; a recording transport counts what was sent.
#include "CephCluster.h"
#include "EndpointPool.h"
#include "HashWorker.h"
#include "RecordingTransport.h"
#include "S3Protocol.h"
#include "S3Replies.h"
#include "S3TestTransport.h"
#include "SigV4Signer.h"
#include "SourceScanner.h"
#include "TcpProxy.h"
#include "TestFiles.h"
#include "TransferScheduler.h"

#include <QCryptographicHash>
#include <QFile>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace multilane;

namespace {

constexpr qint64 MiB = 1 << 20;
const QString Bucket = QStringLiteral("multilane-engine");

QList<Endpoint> endpointsOf(const QList<QUrl> &gateways)
{
    QList<Endpoint> endpoints;
    for (const QUrl &url : gateways) {
        Endpoint endpoint;
        endpoint.url = url;
        endpoints.append(endpoint);
    }
    return endpoints;
}

QByteArray contentsOf(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The real checksum worker, except that each file's whole-file digest is held back until
// release(): a file whose hash takes longer than its first requests (a large one), on cue.
class HeldDigestHasher final : public ChunkHasher {
    Q_OBJECT
public:
    HeldDigestHasher()
        : m_real(ChunkChecksumKind::Md5)
    {
        connect(&m_real, &ChunkHasher::chunkHashed, this, &ChunkHasher::chunkHashed);
        connect(&m_real, &ChunkHasher::fileHashed, this,
                [this](int job, const std::optional<FileDigest> &digest) {
                    m_held.append({job, digest});
                    if (m_released)
                        flush();
                });
    }
    void hashChunk(int job, int chunk, const QString &path, qint64 offset, qint64 length) override
    {
        m_real.hashChunk(job, chunk, path, offset, length);
    }
    void hashFile(int job, const QString &path, qint64 chunkSize) override
    {
        m_real.hashFile(job, path, chunkSize);
    }
    void release()
    {
        m_released = true;
        flush();
    }

private:
    void flush()
    {
        for (const auto &[job, digest] : std::exchange(m_held, {}))
            Q_EMIT fileHashed(job, digest);
    }
    HashWorker m_real;
    QList<std::pair<int, std::optional<FileDigest>>> m_held;
    bool m_released = false;
};

// One upload run: a scheduler over every gateway given, speaking S3, its requests recorded.
struct Run {
    Run(const QList<QUrl> &gateways, std::shared_ptr<const UploadProtocol> protocol, TransferOptions options,
        std::unique_ptr<ChunkHasher> hasher = {})
        : pool(endpointsOf(gateways))
    {
        TransferServices services;
        services.protocol = std::move(protocol);
        services.hasher = std::move(hasher);
        auto recording = std::make_unique<RecordingTransport>(pool, options.transferTimeoutMs);
        wire = recording.get();
        services.transport = std::move(recording);
        scheduler = std::make_unique<TransferScheduler>(pool, options, std::move(services));
    }
    bool upload(const QList<SourceFile> &files, const QList<KnownUpload> &known = {})
    {
        QSignalSpy finished(scheduler.get(), &TransferScheduler::finished);
        scheduler->addFiles(files, known);
        scheduler->start();
        return finished.wait(90000);
    }
    QString errors() const
    {
        QString all;
        for (int id = 0; id < scheduler->jobCount(); ++id)
            all += scheduler->job(id).source().destinationPath() + QStringLiteral(": ") +
                   scheduler->job(id).error() + QLatin1Char('\n');
        return all;
    }

    EndpointPool pool;
    RecordingTransport *wire = nullptr;
    std::unique_ptr<TransferScheduler> scheduler;
};

TransferOptions optionsFor(int connections)
{
    TransferOptions options;
    options.connections = connections;
    options.chunkSize = 5 * MiB;
    options.retryBaseDelayMs = 100;
    options.transferTimeoutMs = 30000;
    return options;
}

} // namespace

class TestS3Engine : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<CephCluster> m_cluster;
    S3TestTransport m_s3;
    quint32 m_seed = 0;

    S3Target target() const
    {
        return S3Target::parse(QStringLiteral("s3://") + Bucket, m_cluster->gateways(), m_cluster->region())
            .value();
    }
    S3Requests requests() const { return S3Requests(target(), m_cluster->credentials()); }
    std::shared_ptr<S3Protocol> protocol(qint64 sha256BeforeCreateUpTo = 256 * MiB) const
    {
        return std::make_shared<S3Protocol>(target(), m_cluster->credentials(),
                                            S3ProtocolOptions{sha256BeforeCreateUpTo, {}});
    }
    QList<SourceFile> files(const QString &folder, const QList<qint64> &sizes)
    {
        for (int i = 0; i < sizes.size(); ++i)
            TestFiles::write(m_dir.filePath(folder + QStringLiteral("/f%1.bin").arg(i)), sizes.at(i),
                             m_seed + i);
        SourceScanner::Result scan = SourceScanner::scan({m_dir.filePath(folder)}, QString());
        std::sort(scan.files.begin(), scan.files.end(),
                  [](const SourceFile &a, const SourceFile &b) { return a.localPath() < b.localPath(); });
        return scan.files;
    }
    std::optional<S3ObjectHead> head(const QString &key)
    {
        const S3Request request = requests().headObject(m_cluster->gateways().first(), key);
        const auto headed = S3Replies::headObject(request.context, m_s3.send(request));
        return headed ? headed.value() : std::nullopt;
    }
    // The object, read back through the last gateway, holds exactly the file's bytes.
    bool storedIntact(const QString &key, const QString &sourcePath, QByteArray *sha256 = nullptr)
    {
        const S3Request request = requests().getObject(m_cluster->gateways().last(), key);
        const S3Reply reply = m_s3.send(request);
        const std::optional<S3ObjectHead> object = head(key);
        if (sha256 && object)
            *sha256 = object->sha256Hex;
        return reply.httpStatus == 200 && reply.body == contentsOf(sourcePath);
    }
    QList<S3OpenUpload> openUploads(const QString &prefix)
    {
        const S3Request request = requests().listMultipartUploads(m_cluster->gateways().first(), prefix);
        const auto page = S3Replies::listMultipartUploads(request.context, m_s3.send(request));
        return page ? page.value().uploads : QList<S3OpenUpload>{S3OpenUpload{}};
    }
    // An upload with some parts sent, as a client killed part-way leaves it.
    QString startUpload(const SourceFile &file, const QList<int> &parts, QHash<int, QByteArray> *receipts)
    {
        const S3Requests builder = requests();
        const QString key = file.destinationPath();
        const S3Request create = builder.createMultipartUpload(m_cluster->gateways().at(2), key, {});
        const auto created = S3Replies::createMultipartUpload(create.context, m_s3.send(create));
        if (!created)
            return {};
        for (int part : parts) {
            const S3FileRange range{(part - 1) * 5 * MiB,
                                    std::min(5 * MiB, file.size - (part - 1) * 5 * MiB)};
            const QByteArray bytes = contentsOf(file.localPath()).mid(range.offset, range.length);
            const QByteArray md5 = QCryptographicHash::hash(bytes, QCryptographicHash::Md5);
            const S3Request request = builder.uploadPart(m_cluster->gateways().at(part % 3), key,
                                                         created.value().uploadId, part, range, md5);
            const auto etag = S3Replies::uploadPart(request.context, m_s3.send(request, file.localPath()));
            if (!etag)
                return {};
            receipts->insert(part - 1, etag.value());
        }
        return created.value().uploadId;
    }

private Q_SLOTS:
    void initTestCase();
    void edgeSizesAcrossEveryGateway();
    void knownUploadSendsOnlyTheMissingParts();
    void lostJournalFindsTheUploadByListing();
    void killedGatewayIsCarriedByTheOthers();
    void corruptedPartIsRefusedAndSentAgain();
    void wrongSecretFailsEveryFile();
    void cancelLeavesNoUploadBehind();
    void unchangedFilesAreSkippedByTheirHash();
    void largeFileGetsItsHashAfterwards();
    void differentFileOfTheSameNameIsRenamed();
};

void TestS3Engine::initTestCase()
{
    m_seed = QRandomGenerator::global()->generate();
    qInfo("seed %u", m_seed);
    QVERIFY(m_dir.isValid());
    m_cluster = std::make_unique<CephCluster>(m_dir.filePath(QStringLiteral("cluster")));
    QVERIFY2(m_cluster->start(3), qPrintable(m_cluster->errorText()));
    // PUT /bucket, signed by hand: the toolkit builds only what an upload needs.
    S3Request create;
    create.method = "PUT";
    create.url = target().bucketUrl(m_cluster->gateways().first());
    create.headers = SigV4Signer(m_cluster->credentials(), m_cluster->region())
                         .sign(create.method, create.url, {}, SigV4Signer::EmptyPayloadHash,
                               QDateTime::currentDateTimeUtc())
                         .headersToAdd;
    QCOMPARE(m_s3.send(create).httpStatus, 200);
}

void TestS3Engine::edgeSizesAcrossEveryGateway()
{
    const QList<SourceFile> sources =
        files(QStringLiteral("edge"), {0, 1, 5 * MiB - 1, 5 * MiB, 5 * MiB + 1, 23 * MiB});
    // Striping is what this checks, not scoring: on a loaded machine the scorer may measure one
    // gateway so much faster that all five parts go there (as it should; tst_tuning tests it).
    TransferOptions options = optionsFor(6);
    options.scoreEndpoints = false;
    Run run(m_cluster->gateways(), protocol(), options);
    QVERIFY(run.upload(sources));
    for (int id = 0; id < run.scheduler->jobCount(); ++id) {
        const TransferJob &job = run.scheduler->job(id);
        QVERIFY2(job.state() == TransferState::Done, qPrintable(run.errors()));
        QByteArray storedSha;
        QVERIFY2(storedIntact(job.remotePath(), job.source().localPath(), &storedSha),
                 qPrintable(job.remotePath()));
        QCOMPARE(storedSha, TestFiles::sha256(job.source().localPath())); // sent with the create
    }
    // Up to 5 MiB in one PutObject; 5 MiB + 1 in two parts, 23 MiB in five.
    QCOMPARE(run.wire->sent(QStringLiteral("PutObject")).size(), 4);
    QCOMPARE(run.wire->partsSent(sources.at(4).destinationPath()).size(), 2);
    QCOMPARE(run.wire->partsSent(sources.at(5).destinationPath()).size(), 5);
    QVERIFY(run.wire->sent(QStringLiteral("CopyObject")).isEmpty());
    // One file's parts went to several gateways, and every gateway carried some.
    QVERIFY(run.wire->endpointsOfParts(sources.at(5).destinationPath()).size() >= 2);
    for (const EndpointStats &stats : run.scheduler->endpointStats())
        QVERIFY(stats.chunks > 0);
    QVERIFY(openUploads(QStringLiteral("edge/")).isEmpty());
}

void TestS3Engine::knownUploadSendsOnlyTheMissingParts()
{
    // A client killed after parts 1 and 3 of 5: the journal hands its upload id and receipts in.
    const QList<SourceFile> sources = files(QStringLiteral("known"), {23 * MiB});
    KnownUpload known;
    known.chunkSize = 5 * MiB;
    known.uploadId = startUpload(sources.first(), {1, 3}, &known.receipts);
    QVERIFY(!known.uploadId.isEmpty());
    Run run(m_cluster->gateways(), protocol(), optionsFor(4));
    QVERIFY(run.upload(sources, {known}));
    QVERIFY2(run.scheduler->job(0).state() == TransferState::Done, qPrintable(run.errors()));
    QList<int> parts = run.wire->partsSent(sources.first().destinationPath());
    std::sort(parts.begin(), parts.end());
    QCOMPARE(parts, (QList<int>{2, 4, 5}));
    QVERIFY(run.wire->sent(QStringLiteral("CreateMultipartUpload")).isEmpty());
    QVERIFY(run.wire->sent(QStringLiteral("ListMultipartUploads")).isEmpty());
    QCOMPARE(run.wire->sent(QStringLiteral("ListParts")).size(), 1);
    QVERIFY(storedIntact(sources.first().destinationPath(), sources.first().localPath()));
}

void TestS3Engine::lostJournalFindsTheUploadByListing()
{
    // The same, with the journal gone: the upload is found by listing the key's open uploads.
    const QList<SourceFile> sources = files(QStringLiteral("lost"), {23 * MiB});
    QHash<int, QByteArray> receipts;
    QVERIFY(!startUpload(sources.first(), {1, 3}, &receipts).isEmpty());
    Run run(m_cluster->gateways(), protocol(), optionsFor(4));
    QVERIFY(run.upload(sources));
    QVERIFY2(run.scheduler->job(0).state() == TransferState::Done, qPrintable(run.errors()));
    QList<int> parts = run.wire->partsSent(sources.first().destinationPath());
    std::sort(parts.begin(), parts.end());
    QCOMPARE(parts, (QList<int>{2, 4, 5}));
    QVERIFY(run.wire->sent(QStringLiteral("CreateMultipartUpload")).isEmpty());
    QCOMPARE(run.wire->sent(QStringLiteral("ListMultipartUploads")).size(), 1);
    QVERIFY(storedIntact(sources.first().destinationPath(), sources.first().localPath()));
    QVERIFY(openUploads(QStringLiteral("lost/")).isEmpty());
}

void TestS3Engine::killedGatewayIsCarriedByTheOthers()
{
    // Gateway 2 is killed the moment it has stored its first part: what it has in flight then and
    // what is sent to it later finds nobody, the other two carry the rest, and the object is whole.
    const QList<SourceFile> sources = files(QStringLiteral("kill"), {60 * MiB});
    Run run(m_cluster->gateways(), protocol(), optionsFor(6));
    bool killed = false;
    connect(run.wire, &RecordingTransport::answered, this, [&](const RecordingTransport::Sent &sent) {
        if (!killed && sent.operation == QLatin1String("UploadPart") && sent.endpoint == 1 &&
            sent.httpStatus == 200)
            killed = m_cluster->killGateway(1);
    });
    QVERIFY(run.upload(sources));
    QVERIFY(killed);
    for (int gateway = 0; gateway < 3; ++gateway)
        qInfo("gateway %d: %d requests with data acknowledged, %d failed", gateway + 1,
              run.scheduler->endpointStats().at(gateway).chunks,
              run.scheduler->endpointStats().at(gateway).failures);
    QVERIFY2(run.scheduler->job(0).state() == TransferState::Done, qPrintable(run.errors()));
    QVERIFY(run.scheduler->endpointStats().at(1).failures >= 1);
    QVERIFY(run.scheduler->endpointStats().at(1).chunks >= 1); // its part before the kill counts
    QVERIFY(storedIntact(sources.first().destinationPath(), sources.first().localPath()));
    QProcess *restart = m_cluster->restartGateway(1);
    QVERIFY(restart->waitForFinished(120000));
    QVERIFY2(restart->exitCode() == 0, restart->readAll().constData());
}

void TestS3Engine::corruptedPartIsRefusedAndSentAgain()
{
    // One connection through a proxy that flips a byte 1 MiB into the stream: inside the first
    // part sent (HEAD, ListMultipartUploads and Create before it are a few hundred bytes each).
    const QList<SourceFile> sources = files(QStringLiteral("corrupt"), {12 * MiB});
    TcpProxy proxy(m_cluster->gateways().first(), 1 * MiB);
    Run run({proxy.url()}, protocol(), optionsFor(1));
    QVERIFY(run.upload(sources));
    QVERIFY(proxy.corrupted());
    QVERIFY2(run.scheduler->job(0).state() == TransferState::Done, qPrintable(run.errors()));
    QCOMPARE(run.scheduler->endpointStats().first().failures, 1); // the part refused by BadDigest
    // The first part out (whichever was hashed first) went twice, the others once.
    const QList<int> parts = run.wire->partsSent(sources.first().destinationPath());
    QCOMPARE(parts.size(), 4);
    QCOMPARE(parts.count(parts.first()), 2);
    QCOMPARE(QSet<int>(parts.begin(), parts.end()), (QSet<int>{1, 2, 3}));
    QVERIFY(storedIntact(sources.first().destinationPath(), sources.first().localPath()));
}

void TestS3Engine::wrongSecretFailsEveryFile()
{
    const QList<SourceFile> sources = files(QStringLiteral("secret"), {1000, 12 * MiB});
    S3Credentials wrong = m_cluster->credentials();
    wrong.secretAccessKey += QLatin1Char('x');
    Run run(m_cluster->gateways(), std::make_shared<S3Protocol>(target(), wrong), optionsFor(6));
    QVERIFY(run.upload(sources));
    for (int id = 0; id < run.scheduler->jobCount(); ++id) {
        const TransferJob &job = run.scheduler->job(id);
        QCOMPARE(job.state(), TransferState::Failed);
        QVERIFY2(job.error().contains(QLatin1String("refused the request's signature")) &&
                     job.error().contains(QLatin1String("check the secret key")),
                 qPrintable(job.error()));
        QVERIFY(!job.error().contains(wrong.secretAccessKey));
    }
    QVERIFY(run.wire->sent(QStringLiteral("UploadPart")).isEmpty());
    QVERIFY(run.wire->sent(QStringLiteral("PutObject")).isEmpty());
}

void TestS3Engine::cancelLeavesNoUploadBehind()
{
    const QList<SourceFile> sources = files(QStringLiteral("cancel"), {60 * MiB});
    TransferOptions options = optionsFor(2);
    options.limitBytesPerSecond = 20e6; // several seconds: the cancel lands mid-upload
    Run run(m_cluster->gateways(), protocol(), options);
    // As a click would: after the event that acknowledged the first part.
    connect(
        run.scheduler.get(), &TransferScheduler::chunkAcknowledged, this,
        [&](int job) { run.scheduler->cancelJob(job); }, Qt::QueuedConnection);
    QVERIFY(run.upload(sources));
    QCOMPARE(run.scheduler->job(0).state(), TransferState::Cancelled);
    const auto aborted = [&] {
        for (const RecordingTransport::Sent &sent : run.wire->sent(QStringLiteral("AbortMultipartUpload"))) {
            if (sent.httpStatus == 204)
                return true;
        }
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(aborted(), 30000);
    QCOMPARE(run.wire->sent(QStringLiteral("AbortMultipartUpload")).size(), 1);
    QVERIFY(openUploads(QStringLiteral("cancel/")).isEmpty());
    QVERIFY(!head(sources.first().destinationPath()));
}

void TestS3Engine::unchangedFilesAreSkippedByTheirHash()
{
    const QList<SourceFile> sources = files(QStringLiteral("again"), {1000, 12 * MiB});
    Run first(m_cluster->gateways(), protocol(), optionsFor(4));
    QVERIFY(first.upload(sources));
    QVERIFY2(first.scheduler->job(1).state() == TransferState::Done, qPrintable(first.errors()));
    // The second run finds both by HEAD and their x-amz-meta-sha256, and sends nothing else.
    Run second(m_cluster->gateways(), protocol(), optionsFor(4));
    QVERIFY(second.upload(sources));
    for (int id = 0; id < second.scheduler->jobCount(); ++id)
        QVERIFY2(second.scheduler->job(id).state() == TransferState::Skipped, qPrintable(second.errors()));
    QCOMPARE(second.wire->sent().size(), 2);
    QCOMPARE(second.wire->sent(QStringLiteral("HeadObject")).size(), 2);
    QCOMPARE(second.scheduler->progress().bytesSent, 0);
}

void TestS3Engine::largeFileGetsItsHashAfterwards()
{
    // Above sha256BeforeCreateUpTo (0 here) the upload starts before the hash is known (held
    // back here until the first part is stored): the object gets it by a copy onto itself after
    // the ETag check, which keeps its bytes and its multipart ETag.
    const QList<SourceFile> sources = files(QStringLiteral("large"), {12 * MiB});
    auto slowHash = std::make_unique<HeldDigestHasher>();
    HeldDigestHasher *firstHasher = slowHash.get();
    Run first(m_cluster->gateways(), protocol(0), optionsFor(4), std::move(slowHash));
    connect(first.wire, &RecordingTransport::answered, this, [&](const RecordingTransport::Sent &sent) {
        if (sent.operation == QLatin1String("UploadPart"))
            firstHasher->release();
    });
    QVERIFY(first.upload(sources));
    QVERIFY2(first.scheduler->job(0).state() == TransferState::Done, qPrintable(first.errors()));
    QVERIFY(!first.wire->sent(QStringLiteral("CreateMultipartUpload")).first().withSha256);
    QCOMPARE(first.wire->sent(QStringLiteral("CopyObject")).size(), 1);
    QByteArray storedSha;
    QVERIFY(storedIntact(sources.first().destinationPath(), sources.first().localPath(), &storedSha));
    QCOMPARE(storedSha, TestFiles::sha256(sources.first().localPath()));
    QVERIFY(head(sources.first().destinationPath())->etag.endsWith("-3"));

    // Again, the hash held until the upload is created: the object's hash goes to the engine,
    // which compares it with its own once it has one, drops the upload it made meanwhile (under
    // "f0 (1).bin", as --on-conflict rename would write a different file) and sends no part.
    slowHash = std::make_unique<HeldDigestHasher>();
    HeldDigestHasher *secondHasher = slowHash.get();
    Run second(m_cluster->gateways(), protocol(0), optionsFor(4), std::move(slowHash));
    connect(second.wire, &RecordingTransport::answered, this, [&](const RecordingTransport::Sent &sent) {
        if (sent.operation == QLatin1String("CreateMultipartUpload"))
            secondHasher->release();
    });
    QVERIFY(second.upload(sources));
    QVERIFY2(second.scheduler->job(0).state() == TransferState::Skipped, qPrintable(second.errors()));
    QCOMPARE(second.scheduler->job(0).remotePath(), sources.first().destinationPath());
    QVERIFY(second.wire->sent(QStringLiteral("UploadPart")).isEmpty());
    QCOMPARE(second.wire->sent(QStringLiteral("AbortMultipartUpload")).size(), 1);
    QVERIFY(openUploads(QStringLiteral("large/")).isEmpty());
}

void TestS3Engine::differentFileOfTheSameNameIsRenamed()
{
    const QList<SourceFile> sources = files(QStringLiteral("rename"), {1000, 7 * MiB});
    Run first(m_cluster->gateways(), protocol(), optionsFor(4));
    QVERIFY(first.upload(sources));
    // Other bytes under the same names: with --on-conflict rename they go to "f0 (1).bin" etc.
    m_seed += 1000;
    const QList<SourceFile> changed = files(QStringLiteral("rename"), {1000, 7 * MiB});
    Run second(m_cluster->gateways(), protocol(), optionsFor(4));
    QVERIFY(second.upload(changed));
    for (int id = 0; id < second.scheduler->jobCount(); ++id) {
        const TransferJob &job = second.scheduler->job(id);
        QVERIFY2(job.state() == TransferState::Done, qPrintable(second.errors()));
        QCOMPARE(job.remotePath(), QStringLiteral("rename/f%1 (1).bin").arg(id));
        QVERIFY(storedIntact(job.remotePath(), job.source().localPath()));
    }
    QVERIFY(!storedIntact(sources.at(0).destinationPath(), changed.at(0).localPath())); // the first is kept
}

QTEST_GUILESS_MAIN(TestS3Engine)
#include "tst_s3_engine.moc"
