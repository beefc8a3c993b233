// Prints what a Ceph RGW answers to each S3 error case and what attaching a SHA-256 after the
// upload costs (CopyObject onto itself vs hashing first), as Markdown rows for docs/s3.md.
// Run through ceph-findings.sh, which starts the cluster and passes its env file.
#include "Md5Digest.h"
#include "S3Etag.h"
#include "S3FailureClassifier.h"
#include "S3PartPlan.h"
#include "S3Replies.h"
#include "S3Requests.h"
#include "S3TestTransport.h"
#include "Sha256.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <cstdio>

using namespace multilane;

namespace {

struct Cluster {
    QList<QUrl> gateways;
    S3Credentials owner;
    S3Credentials stranger; // another user: the owner's bucket is not theirs
    QString region;
    QString workDir;
};

Cluster readCluster(const QString &envPath, const QString &workDir)
{
    QMap<QString, QString> values;
    QFile file(envPath);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(envPath));
    for (const QByteArray &line : file.readAll().split('\n')) {
        const qsizetype equals = line.indexOf('=');
        if (equals > 0)
            values.insert(QString::fromUtf8(line.left(equals)), QString::fromUtf8(line.mid(equals + 1)));
    }
    Cluster cluster;
    for (const QString &endpoint : values.value(QStringLiteral("CEPH_S3_ENDPOINTS")).split(QLatin1Char(',')))
        cluster.gateways.append(QUrl(endpoint));
    cluster.owner = {values.value(QStringLiteral("CEPH_S3_ACCESS_KEY")),
                     values.value(QStringLiteral("CEPH_S3_SECRET_KEY")),
                     {},
                     {}};
    cluster.stranger = {
        qEnvironmentVariable("STRANGER_ACCESS_KEY"), qEnvironmentVariable("STRANGER_SECRET_KEY"), {}, {}};
    cluster.region = values.value(QStringLiteral("CEPH_S3_REGION"));
    cluster.workDir = workDir;
    return cluster;
}

S3Requests builder(const Cluster &cluster, const S3Credentials &credentials, const QString &bucket,
                   S3Clock clock = {})
{
    return S3Requests(
        S3Target::parse(QStringLiteral("s3://") + bucket, cluster.gateways, cluster.region).value(),
        credentials, std::move(clock));
}

void row(const QString &situation, const S3Reply &reply)
{
    if (reply.httpStatus >= 200 && reply.httpStatus < 300) {
        std::printf("| %s | %d | (success) | |\n", qPrintable(situation), reply.httpStatus);
        return;
    }
    const auto error = S3FailureClassifier::parseErrorBody(reply.body);
    const QString message = error && !error->message.isEmpty()
                                ? QLatin1Char('"') + error->message + QLatin1Char('"')
                                : QStringLiteral("(empty)");
    std::printf("| %s | %d | %s | %s |\n", qPrintable(situation), reply.httpStatus,
                error ? qPrintable(error->code)
                      : (reply.httpStatus == 0 ? qPrintable(reply.networkErrorText) : "(no body)"),
                error ? qPrintable(message) : "");
}

QString writeRandomFile(const QString &path, qint64 size)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    QRandomGenerator random(42);
    QByteArray block(8 << 20, Qt::Uninitialized);
    for (qint64 left = size; left > 0; left -= block.size()) {
        random.fillRange(reinterpret_cast<quint32 *>(block.data()), block.size() / 4);
        file.write(block.constData(), std::min<qint64>(left, block.size()));
    }
    return path;
}

QByteArray readRange(const QString &path, S3FileRange range)
{
    QFile file(path);
    file.open(QIODevice::ReadOnly);
    file.seek(range.offset);
    return file.read(range.length);
}

QString createUpload(S3TestTransport &transport, const S3Requests &requests, const QString &key)
{
    const S3Request create = requests.createMultipartUpload(requests.target().endpoints().first(), key, {});
    return S3Replies::createMultipartUpload(create.context, transport.send(create)).value().uploadId;
}

void errorCases(const Cluster &cluster, S3TestTransport &transport)
{
    const QUrl gw = cluster.gateways.first();
    const S3Requests owner = builder(cluster, cluster.owner, QStringLiteral("findings"));
    const QString key = QStringLiteral("errors/part.bin");
    const QString path = writeRandomFile(cluster.workDir + QStringLiteral("/errors.bin"), 6 << 20);
    std::printf("\n| situation | HTTP | code | message |\n|---|---|---|---|\n");

    S3Credentials wrongSecret = cluster.owner;
    wrongSecret.secretAccessKey += QLatin1Char('x');
    row(QStringLiteral("wrong secret (ListMultipartUploads)"),
        transport.send(
            builder(cluster, wrongSecret, QStringLiteral("findings")).listMultipartUploads(gw, {})));
    row(QStringLiteral("wrong secret (HeadObject)"),
        transport.send(builder(cluster, wrongSecret, QStringLiteral("findings")).headObject(gw, key)));
    S3Credentials unknownKey = cluster.owner;
    unknownKey.accessKeyId = QStringLiteral("NOSUCHKEY0000000000");
    row(QStringLiteral("unknown access key"),
        transport.send(
            builder(cluster, unknownKey, QStringLiteral("findings")).listMultipartUploads(gw, {})));
    if (!cluster.stranger.accessKeyId.isEmpty()) {
        const S3Requests stranger = builder(cluster, cluster.stranger, QStringLiteral("findings"));
        row(QStringLiteral("another user's bucket (CreateMultipartUpload)"),
            transport.send(stranger.createMultipartUpload(gw, key, {})));
    }
    row(QStringLiteral("no such bucket (ListMultipartUploads)"),
        transport.send(
            builder(cluster, cluster.owner, QStringLiteral("nosuchbucket")).listMultipartUploads(gw, {})));
    row(QStringLiteral("no such bucket (HeadBucket)"),
        transport.send(builder(cluster, cluster.owner, QStringLiteral("nosuchbucket")).headBucket(gw)));
    for (const int minutes : {-16, -14, 14, 16}) {
        const S3Clock skewed = [minutes] { return QDateTime::currentDateTimeUtc().addSecs(minutes * 60); };
        row(QStringLiteral("clock %1 min %2")
                .arg(std::abs(minutes))
                .arg(minutes < 0 ? QStringLiteral("behind") : QStringLiteral("ahead")),
            transport.send(builder(cluster, cluster.owner, QStringLiteral("findings"), skewed)
                               .listMultipartUploads(gw, {})));
    }

    const QString uploadId = createUpload(transport, owner, key);
    const S3FileRange small{0, 1 << 20};
    const QByteArray smallBody = readRange(path, small);
    S3Request wrongMd5 = owner.uploadPart(gw, key, uploadId, 1, small, Md5Digest::of("other"));
    row(QStringLiteral("wrong Content-MD5 (UploadPart)"), transport.send(wrongMd5, path));
    // Content-MD5 is signed, so a malformed one is built, not edited in afterwards.
    row(QStringLiteral("Content-MD5 of 5 bytes (UploadPart)"),
        transport.send(owner.uploadPart(gw, key, uploadId, 1, small, QByteArray("short")), path));
    row(QStringLiteral("no such upload id (UploadPart)"),
        transport.send(
            owner.uploadPart(gw, key, QStringLiteral("2~nosuchupload"), 1, small, Md5Digest::of(smallBody)),
            path));

    // Part 1 of 5 MiB, parts 2 and 3 of 1 MiB each: only the last part may be that small.
    const auto sendPart = [&](int number, S3FileRange range) {
        const S3Request part =
            owner.uploadPart(gw, key, uploadId, number, range, Md5Digest::of(readRange(path, range)));
        return S3Replies::uploadPart(part.context, transport.send(part, path)).value();
    };
    const QByteArray etag1 = sendPart(1, {0, 5 << 20});
    const QByteArray etag2 = sendPart(2, {5 << 20, 1 << 20});
    const QByteArray etag3 = sendPart(3, small);
    row(QStringLiteral("Complete: a part below 5 MiB before the last"),
        transport.send(
            owner.completeMultipartUpload(gw, key, uploadId, {{1, etag1}, {2, etag2}, {3, etag3}})));
    row(QStringLiteral("Complete: a wrong ETag"),
        transport.send(
            owner.completeMultipartUpload(gw, key, uploadId, {{1, "00000000000000000000000000000000"}})));
    row(QStringLiteral("Complete: parts out of order"),
        transport.send(owner.completeMultipartUpload(gw, key, uploadId, {{2, etag2}, {1, etag1}})));
    row(QStringLiteral("Complete: a part never sent"),
        transport.send(owner.completeMultipartUpload(gw, key, uploadId, {{1, etag1}, {4, etag2}})));
    row(QStringLiteral("Complete: no parts"),
        transport.send(owner.completeMultipartUpload(gw, key, uploadId, {})));
    row(QStringLiteral("Abort"), transport.send(owner.abortMultipartUpload(gw, key, uploadId)));
    row(QStringLiteral("ListParts after Abort"), transport.send(owner.listParts(gw, key, uploadId)));
    row(QStringLiteral("UploadPart after Abort"),
        transport.send(owner.uploadPart(gw, key, uploadId, 1, small, Md5Digest::of(smallBody)), path));
    row(QStringLiteral("Complete after Abort"),
        transport.send(owner.completeMultipartUpload(gw, key, uploadId, {{1, etag1}, {2, etag2}})));
    row(QStringLiteral("Abort after Abort"), transport.send(owner.abortMultipartUpload(gw, key, uploadId)));
    const QString doneId = createUpload(transport, owner, key);
    const QByteArray only =
        S3Replies::uploadPart(
            {}, transport.send(owner.uploadPart(gw, key, doneId, 1, small, Md5Digest::of(smallBody)), path))
            .value();
    row(QStringLiteral("Complete"),
        transport.send(owner.completeMultipartUpload(gw, key, doneId, {{1, only}})));
    row(QStringLiteral("Complete again (its answer was lost)"),
        transport.send(owner.completeMultipartUpload(cluster.gateways.last(), key, doneId, {{1, only}})));
    row(QStringLiteral("ListParts after Complete"), transport.send(owner.listParts(gw, key, doneId)));
    row(QStringLiteral("CopyObject onto itself, x-amz-copy-source-if-match of another ETag"),
        transport.send(owner.copyObjectReplacingMetadata(gw, key, {}, "00000000000000000000000000000000")));
    row(QStringLiteral("HeadObject of a missing key"),
        transport.send(owner.headObject(gw, QStringLiteral("missing"))));
}

// Uploads `path` in 8 MiB parts over both gateways; returns the local multipart ETag.
QByteArray uploadMultipart(const Cluster &cluster, S3TestTransport &transport, const S3Requests &requests,
                           const QString &key, const QString &path, qint64 size)
{
    const S3PartPlan plan = S3PartPlan::forFile(size, 8 << 20).value();
    const QString uploadId = createUpload(transport, requests, key);
    QList<QByteArray> md5s;
    QList<S3CompletedPart> parts;
    for (int part = 1; part <= plan.partCount(); ++part) {
        const S3FileRange range{plan.partOffset(part), plan.partLength(part)};
        md5s.append(Md5Digest::of(readRange(path, range)));
        const S3Request request = requests.uploadPart(cluster.gateways[part % cluster.gateways.size()], key,
                                                      uploadId, part, range, md5s.last());
        parts.append({part, S3Replies::uploadPart(request.context, transport.send(request, path)).value()});
    }
    const S3Request complete =
        requests.completeMultipartUpload(cluster.gateways.first(), key, uploadId, parts);
    const auto done = S3Replies::completeMultipartUpload(complete.context, transport.send(complete));
    if (!done)
        qFatal("complete failed: %s", qPrintable(done.failure().userMessage));
    return S3Etag::ofMultipart(md5s);
}

std::optional<S3ObjectHead> head(S3TestTransport &transport, const S3Requests &requests, const QString &key)
{
    const S3Request request = requests.headObject(requests.target().endpoints().first(), key);
    return S3Replies::headObject(request.context, transport.send(request)).value();
}

void copyCost(const Cluster &cluster, S3TestTransport &transport, qint64 size)
{
    const S3Requests requests = builder(cluster, cluster.owner, QStringLiteral("findings"));
    const QString key = QStringLiteral("copy/%1.bin").arg(size);
    const QString path = writeRandomFile(cluster.workDir + QStringLiteral("/copy.bin"), size);
    QElapsedTimer timer;
    timer.start();
    const QByteArray sha256 = *Sha256::ofFile(path);
    const qint64 hashMs = timer.restart();
    const QByteArray localEtag = uploadMultipart(cluster, transport, requests, key, path, size);
    const qint64 uploadMs = timer.restart();
    const S3Request copy =
        requests.copyObjectReplacingMetadata(cluster.gateways.first(), key, {sha256, {}}, localEtag);
    const S3Reply copyReply = transport.send(copy);
    const qint64 copyMs = timer.restart();
    const auto copied = S3Replies::copyObject(copy.context, copyReply);
    const auto after = head(transport, requests, key);
    std::printf("| %lld MiB | %lld ms | %lld ms | %s | %lld ms | %s | %s | %s |\n", size >> 20, hashMs,
                uploadMs, localEtag.constData(), copyMs,
                copied ? copied.value().constData() : qPrintable(copied.failure().userMessage),
                after ? after->etag.constData() : "?", after && after->sha256Hex == sha256 ? "yes" : "no");
    // Whether the bytes survived: ceph-findings.sh reads the object back with aws-cli.
    std::printf("COPIED_KEY %s %s\n", qPrintable(key), sha256.constData());
    QFile::remove(path);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc < 3)
        qFatal("usage: s3_ceph_findings CLUSTER_ENV WORK_DIR [SIZE_MIB...]");
    const Cluster cluster = readCluster(QString::fromLocal8Bit(argv[1]), QString::fromLocal8Bit(argv[2]));
    S3TestTransport transport;
    errorCases(cluster, transport);
    std::printf(
        "\n| object | SHA-256 first | upload | local ETag | CopyObject REPLACE | copy's ETag | ETag after | "
        "sha256 kept |\n|---|---|---|---|---|---|---|---|\n");
    for (int i = 3; i < argc; ++i)
        copyCost(cluster, transport, QByteArray(argv[i]).toLongLong() << 20);
    return 0;
}
