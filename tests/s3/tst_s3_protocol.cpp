// S3Protocol without a network: the request each operation builds (method, URL, signed headers,
// Content-MD5, file body) and how recorded answers are read into outcomes, failures and
// follow-up requests (HEAD -> ListMultipartUploads -> Create, paged listings, Complete -> HEAD
// -> ETag check -> metadata copy, a 200 carrying an <Error>).
#include "Md5Digest.h"
#include "S3Etag.h"
#include "S3ProtocolFixture.h"

#include <QTest>

using namespace S3ProtocolFixture;

namespace {

// A whole file's PutObject of small.bin (1000 bytes) and how its answers read.
void verifyWholePut(const S3Protocol &s3, const UploadContext &file, const Exchange &put,
                    const QByteArray &md5)
{
    QCOMPARE(put.request.method, QByteArray("PUT"));
    QCOMPARE(put.request.url.path(), QStringLiteral("/media/in/small.bin"));
    QCOMPARE(put.request.header("Content-MD5"), md5.toBase64());
    QCOMPARE(put.request.header("x-amz-meta-sha256"), OurSha);
    QVERIFY(isSigned(put.request));
    QCOMPARE(put.request.file->offset, 0);
    QCOMPARE(put.request.file->length, 1000);
    const Step<FinishOutcome> stored =
        s3.readWhole(file, put, answer(200, {}, {{"ETag", '"' + md5.toHex() + '"'}}));
    QVERIFY(stored.outcome() && !stored.outcome()->skipped);
    QCOMPARE(stored.outcome()->remotePath, QStringLiteral("small.bin"));
    const Step<FinishOutcome> wrong = s3.readWhole(file, put, answer(200, {}, {{"ETag", "\"0badc0de\""}}));
    QCOMPARE(wrong.failure()->kind, FailureKind::Fatal);
    QVERIFY(wrong.failure()->message.contains(QLatin1String("0badc0de")));
    QVERIFY(wrong.failure()->message.contains(QString::fromLatin1(md5.toHex())));
}

} // namespace

class TestS3Protocol : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void capabilities();
    void healthAndCredentials();
    void findOrCreateHeadsListsThenCreates();
    void findOrCreateAdoptsTheNewestUploadOfTheKey();
    void conflictPolicies();
    void renameTriesNumberedNames();
    void bodilessRefusalIsDiagnosed();
    void resumeQueryListsEveryPage();
    void partsAreSentWithContentMd5();
    void failuresAreSorted();
    void completeChecksTheEtagAfterHead();
    void completeErrorsLeadToHead();
    void missingSha256IsCopiedOn();
    void wholeFileIsCheckedAndVerified();
    void anEmptyDestinationIsSeenByTwoListings();
    void findOrCreateSkipsWhatTheDestinationChecksAnswered();
    void wholeFileToAnEmptyDestinationGoesWithoutAHead();
    void aNameTakenSinceItWasSeenFreeIsLookedAtAfterAll();
    void abortOfAGoneUploadIsDone();
    void keysS3CannotTakeAreRefused();
};

void TestS3Protocol::capabilities()
{
    const S3Protocol s3 = protocol();
    const ProtocolCapabilities &can = s3.capabilities();
    QCOMPARE(can.name, QStringLiteral("S3"));
    QCOMPARE(can.minChunkSize, 5 * MiB);
    QCOMPARE(can.maxChunkSize, qint64(5) << 30);
    QCOMPARE(can.maxChunks, 10000);
    QCOMPARE(can.firstChunkNumber, 1);
    QCOMPARE(can.chunkChecksum, ChunkChecksumKind::Md5);
    QVERIFY(!can.serverVerifiesFile && !can.serverFixesChunkSize && can.resumesByQuery && !can.hasProbeRoute);
    QCOMPARE(can.maxSingleRequest, qint64(5) << 30);
    QVERIFY(can.finishProvesStorage); // the ETag is checked: unchecked gateways may end files
    QCOMPARE(can.sha256BeforeCreateUpTo, 256 * MiB);

    // Where a copy onto itself only rewrites metadata (not AWS), large files do not wait for it.
    const auto thresholdFor = [](const QString &gateway) {
        const S3Target target =
            S3Target::parse(QStringLiteral("s3://bucket/"), {QUrl(gateway)}, QStringLiteral("eu-west-1"))
                .value();
        return S3ProtocolOptions::forTarget(target).sha256BeforeCreateUpTo;
    };
    QCOMPARE(thresholdFor(QStringLiteral("https://s3.eu-west-1.amazonaws.com")), 256 * MiB);
    QCOMPARE(thresholdFor(QStringLiteral("https://rgw1.example.org:7480")),
             S3ProtocolOptions::Sha256BeforeCreateWhenCopyIsCheap);
    QCOMPARE(S3ProtocolOptions::Sha256BeforeCreateWhenCopyIsCheap, 16 * MiB);
}

void TestS3Protocol::healthAndCredentials()
{
    const S3Protocol s3 = protocol();
    const Exchange health = s3.health(gateway(7481));
    QCOMPARE(health.request.method, QByteArray("HEAD"));
    QCOMPARE(health.request.url.toString(), QStringLiteral("http://127.0.0.1:7481/media/"));
    QVERIFY(isSigned(health.request));
    // Any answer shows a gateway; a 403 is the credentials check's business.
    QVERIFY(s3.readHealth(gateway(), health, answer(403)).outcome());
    QCOMPARE(s3.readHealth(gateway(), health, answer(200, {}, {{"Server", "Ceph"}})).outcome()->version,
             QStringLiteral("Ceph"));
    for (const WireReply &down : {noAnswer(), answer(503)}) {
        const Step<HealthOutcome> step = s3.readHealth(gateway(), health, down);
        QVERIFY(step.failure());
        QCOMPARE(step.failure()->kind, FailureKind::Retry);
        QVERIFY2(step.failure()->message.contains(QLatin1String("check that the S3 gateway runs there")),
                 qPrintable(step.failure()->message));
    }

    const Exchange check = s3.credentialsCheck(gateway());
    QCOMPARE(check.request.method, QByteArray("GET"));
    QVERIFY(check.request.url.hasQuery() && query(check.request, "prefix") == QStringLiteral("in/"));
    QVERIFY(isSigned(check.request));
    QVERIFY(!s3.readCredentialsCheck(gateway(), answer(200, uploadsXml({}))));
    QVERIFY(!s3.readCredentialsCheck(gateway(), noAnswer())); // the health check's to report
    // The server's clock is 20 minutes ahead: the message says so.
    WireReply skewed =
        answer(403, errorXml("SignatureDoesNotMatch"), {{"Date", "Fri, 01 Mar 2024 12:20:00 GMT"}});
    const auto refused = s3.readCredentialsCheck(gateway(), skewed);
    QVERIFY(refused);
    QCOMPARE(refused->kind, FailureKind::BadCredentials);
    QVERIFY2(refused->message.contains(QLatin1String("check the secret key")), qPrintable(refused->message));
    QVERIFY2(refused->message.contains(QLatin1String("1200 s behind")), qPrintable(refused->message));
    QVERIFY(!refused->message.contains(Secret));
    QCOMPARE(s3.readCredentialsCheck(gateway(), answer(403, errorXml("RequestTimeTooSkewed")))->kind,
             FailureKind::BadCredentials);
    const auto noBucket = s3.readCredentialsCheck(gateway(), answer(404, errorXml("NoSuchBucket")));
    QCOMPARE(noBucket->kind, FailureKind::Fatal);
    QVERIFY(noBucket->message.contains(QLatin1String("has no bucket 'media'")));
    QCOMPARE(s3.readCredentialsCheck(gateway(), answer(403, errorXml("AccessDenied")))->kind,
             FailureKind::Fatal);
}

void TestS3Protocol::findOrCreateHeadsListsThenCreates()
{
    const S3Protocol s3 = protocol();
    const UploadContext file = upload();
    const Exchange head = s3.findOrCreate(file);
    QCOMPARE(head.request.method, QByteArray("HEAD"));
    QCOMPARE(head.request.url.toString(), QStringLiteral("http://127.0.0.1:7480/media/in/a.txt"));
    QVERIFY(isSigned(head.request));

    const Exchange list = nextOf(s3.readFindOrCreate(file, head, answer(404)));
    QCOMPARE(list.request.method, QByteArray("GET"));
    QCOMPARE(query(list.request, "prefix"), QStringLiteral("in/a.txt"));
    QVERIFY(list.request.url.query().contains(QLatin1String("uploads")));

    // Another key's upload with the same prefix is not ours.
    const Exchange create =
        nextOf(s3.readFindOrCreate(file, list, answer(200, uploadsXml({{"in/a.txt.bak", "u9"}}))));
    QCOMPARE(create.request.method, QByteArray("POST"));
    QCOMPARE(create.request.url.toString(), QStringLiteral("http://127.0.0.1:7480/media/in/a.txt?uploads="));
    QCOMPARE(create.request.header("x-amz-meta-sha256"), OurSha);
    QVERIFY(create.request.header("Authorization").contains("x-amz-meta-sha256"));

    const QByteArray initiated = "<InitiateMultipartUploadResult " + Ns +
                                 "><Bucket>media</Bucket><Key>in/a.txt</Key><UploadId>2~new</UploadId>"
                                 "</InitiateMultipartUploadResult>";
    const Step<AttachOutcome> step = s3.readFindOrCreate(file, create, answer(200, initiated));
    QVERIFY(step.outcome());
    QCOMPARE(step.outcome()->result, AttachOutcome::Result::Attached);
    QCOMPARE(step.outcome()->uploadId, QStringLiteral("2~new"));
    QCOMPARE(step.outcome()->remotePath, QStringLiteral("a.txt"));
    QVERIFY(step.outcome()->held.isEmpty());
    QVERIFY(step.outcome()->existingSha256.isEmpty());
}

void TestS3Protocol::findOrCreateAdoptsTheNewestUploadOfTheKey()
{
    // A lost journal: the key has two unfinished uploads over two pages; the newer one is taken
    // and its parts (two pages) are held, cut by an earlier run in 6 MiB parts.
    const S3Protocol s3 = protocol();
    const UploadContext file = upload();
    const Exchange list = nextOf(s3.readFindOrCreate(file, s3.findOrCreate(file), answer(404)));
    const Exchange page2 =
        nextOf(s3.readFindOrCreate(file, list, answer(200, uploadsXml({{"in/a.txt", "old"}}, "old"))));
    QCOMPARE(query(page2.request, "upload-id-marker"), QStringLiteral("old"));
    QCOMPARE(query(page2.request, "key-marker"), QStringLiteral("in/a.txt"));
    const Exchange parts = nextOf(s3.readFindOrCreate(
        file, page2,
        answer(200, uploadsXml({{"in/a.txt.bak", "other"}, {"in/a.txt", "new"}, {"in/a.txt", "newest"}}))));
    QCOMPARE(parts.request.method, QByteArray("GET"));
    QCOMPARE(query(parts.request, "uploadId"), QStringLiteral("newest"));
    const Exchange parts2 =
        nextOf(s3.readFindOrCreate(file, parts, answer(200, partsXml({{1, 6 * MiB}, {2, 6 * MiB}}, 2))));
    QCOMPARE(query(parts2.request, "part-number-marker"), QStringLiteral("2"));
    // Part 4 is the last (5 MiB of 23); a part 4 of 4 MiB was cut otherwise and is not held.
    const Step<AttachOutcome> step =
        s3.readFindOrCreate(file, parts2, answer(200, partsXml({{3, 6 * MiB}, {4, 4 * MiB}})));
    QVERIFY(step.outcome());
    QCOMPARE(step.outcome()->uploadId, QStringLiteral("newest"));
    QCOMPARE(step.outcome()->chunkSize, 6 * MiB);
    QCOMPARE(step.outcome()->held.size(), 3);
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(step.outcome()->held.at(i).index, i);                   // part numbers count from 1
        QCOMPARE(step.outcome()->held.at(i).receipt, partMd5Hex(i + 1)); // lowercase, unquoted
    }

    // The listed upload is gone by the time its parts are asked for: a new one is made.
    const Exchange create = nextOf(s3.readFindOrCreate(file, parts, answer(404, errorXml("NoSuchUpload"))));
    QCOMPARE(create.request.method, QByteArray("POST"));
}

void TestS3Protocol::conflictPolicies()
{
    const S3Protocol s3 = protocol();
    UploadContext file = upload();
    const Exchange head = s3.findOrCreate(file);
    const WireReply identical = objectHead(file.source.size, "0123-2", OurSha);

    const Step<AttachOutcome> skipped = s3.readFindOrCreate(file, head, identical);
    QVERIFY(skipped.outcome());
    QCOMPARE(skipped.outcome()->result, AttachOutcome::Result::Skipped);
    QCOMPARE(skipped.outcome()->sha256Hex, OurSha);

    const WireReply other = objectHead(file.source.size, "0123-2", QByteArray(64, 'b'));
    file.onConflict = ConflictPolicy::Skip;
    QCOMPARE(s3.readFindOrCreate(file, head, other).outcome()->result, AttachOutcome::Result::Skipped);
    file.onConflict = ConflictPolicy::Fail;
    const Step<AttachOutcome> refused = s3.readFindOrCreate(file, head, other);
    QCOMPARE(refused.failure()->kind, FailureKind::Fatal);
    QVERIFY2(refused.failure()->message.contains(QLatin1String("s3://media/in/a.txt already exists")),
             qPrintable(refused.failure()->message));
    file.onConflict = ConflictPolicy::Overwrite;
    QCOMPARE(nextOf(s3.readFindOrCreate(file, head, other)).request.method, QByteArray("GET"));

    // A large file starts before its hash is known: the existing object's goes to the engine,
    // which compares once it has hashed the file.
    file.sha256Hex.clear();
    const Exchange list = nextOf(s3.readFindOrCreate(file, head, other));
    const Exchange create = nextOf(s3.readFindOrCreate(file, list, answer(200, uploadsXml({}))));
    QVERIFY(create.request.header("x-amz-meta-sha256").isEmpty());
    const Step<AttachOutcome> attached = s3.readFindOrCreate(
        file, create,
        answer(200,
               "<InitiateMultipartUploadResult><UploadId>u1</UploadId></InitiateMultipartUploadResult>"));
    QCOMPARE(attached.outcome()->existingSha256, QByteArray(64, 'b'));
}

void TestS3Protocol::renameTriesNumberedNames()
{
    const S3Protocol s3 = protocol();
    const UploadContext file = upload(QStringLiteral("photos/a.tar.gz"));
    const Exchange head = s3.findOrCreate(file);
    const WireReply other = objectHead(7, "0123");
    const Exchange head1 = nextOf(s3.readFindOrCreate(file, head, other));
    QCOMPARE(head1.request.method, QByteArray("HEAD"));
    QCOMPARE(head1.request.url.toEncoded(),
             QByteArray("http://127.0.0.1:7480/media/in/photos/a.tar%20%281%29.gz"));
    const Exchange head2 = nextOf(s3.readFindOrCreate(file, head1, other));
    QCOMPARE(head2.request.url.path(), QStringLiteral("/media/in/photos/a.tar (2).gz"));
    const Exchange list = nextOf(s3.readFindOrCreate(file, head2, answer(404)));
    QCOMPARE(query(list.request, "prefix"), QStringLiteral("in/photos/a.tar (2).gz"));
    const Exchange create = nextOf(s3.readFindOrCreate(file, list, answer(200, uploadsXml({}))));
    const Step<AttachOutcome> attached = s3.readFindOrCreate(
        file, create,
        answer(200,
               "<InitiateMultipartUploadResult><UploadId>2~x</UploadId></InitiateMultipartUploadResult>"));
    QCOMPARE(attached.outcome()->remotePath, QStringLiteral("photos/a.tar (2).gz"));
    // The renamed key travels in the upload id, so parts, complete, abort and a later resume
    // (the journal keeps only the id) all write to it.
    UploadContext renamed = file;
    renamed.uploadId = attached.outcome()->uploadId;
    QCOMPARE(renamed.uploadId, QStringLiteral("2~x|in/photos/a.tar (2).gz"));
    const Exchange part = s3.sendChunk(renamed, {0, 0, 5 * MiB, partMd5Hex(1), {}});
    QCOMPARE(part.request.url.path(), QStringLiteral("/media/in/photos/a.tar (2).gz"));
    QCOMPARE(query(part.request, "uploadId"), QStringLiteral("2~x"));
    QCOMPARE(query(s3.resumeQuery(renamed).request, "uploadId"), QStringLiteral("2~x"));
    QCOMPARE(s3.abort(renamed).request.url.path(), QStringLiteral("/media/in/photos/a.tar (2).gz"));
}

void TestS3Protocol::bodilessRefusalIsDiagnosed()
{
    // A HEAD refused with a bare 403 cannot say why; a listing of the key can.
    const S3Protocol s3 = protocol();
    const UploadContext file = upload(QStringLiteral("b.bin"), 3);
    const Exchange head = s3.sendWhole(file);
    const Exchange diagnose = nextOf(s3.readWhole(file, head, answer(403)));
    QCOMPARE(diagnose.request.method, QByteArray("GET"));
    QCOMPARE(query(diagnose.request, "prefix"), QStringLiteral("in/b.bin"));
    const Step<FinishOutcome> badSecret =
        s3.readWhole(file, diagnose, answer(403, errorXml("SignatureDoesNotMatch")));
    QCOMPARE(badSecret.failure()->kind, FailureKind::BadCredentials);
    QVERIFY(badSecret.failure()->message.contains(QLatin1String("check the secret key")));
    // The listing is allowed: the 403 was about the object (a permission).
    const Step<FinishOutcome> denied = s3.readWhole(file, diagnose, answer(200, uploadsXml({})));
    QCOMPARE(denied.failure()->kind, FailureKind::Fatal);
    QCOMPARE(denied.failure()->httpStatus, 403);
    QVERIFY(denied.failure()->message.contains(QLatin1String("permissions")));
}

void TestS3Protocol::resumeQueryListsEveryPage()
{
    const S3Protocol s3 = protocol();
    UploadContext file = upload();
    file.uploadId = QStringLiteral("2~journal");
    const Exchange first = s3.resumeQuery(file);
    QCOMPARE(first.request.method, QByteArray("GET"));
    QCOMPARE(first.request.url.path(), QStringLiteral("/media/in/a.txt"));
    QCOMPARE(query(first.request, "uploadId"), QStringLiteral("2~journal"));
    QVERIFY(isSigned(first.request));
    const Exchange second = nextOf(s3.readResumeQuery(file, first, answer(200, partsXml({{1, 5 * MiB}}, 1))));
    QCOMPARE(query(second.request, "part-number-marker"), QStringLiteral("1"));
    // Parts of another size than the journal's plan are not held (sent again).
    const Step<AttachOutcome> step =
        s3.readResumeQuery(file, second, answer(200, partsXml({{3, 5 * MiB}, {5, 3 * MiB}, {2, 4 * MiB}})));
    QVERIFY(step.outcome());
    QCOMPARE(step.outcome()->uploadId, QStringLiteral("2~journal"));
    QCOMPARE(step.outcome()->chunkSize, 5 * MiB);
    QList<int> held;
    for (const HeldChunk &chunk : step.outcome()->held)
        held.append(chunk.index);
    QCOMPARE(held, (QList<int>{0, 2, 4}));
    // Gone: AWS says NoSuchUpload, Ceph NoSuchKey.
    for (const char *code : {"NoSuchUpload", "NoSuchKey"})
        QCOMPARE(s3.readResumeQuery(file, first, answer(404, errorXml(code))).failure()->kind,
                 FailureKind::Recreate);
}

void TestS3Protocol::partsAreSentWithContentMd5()
{
    const S3Protocol s3 = protocol();
    UploadContext file = attached();
    const QByteArray md5 = Md5Digest::of("the third part");
    const Exchange part = s3.sendChunk(file, {2, 10 * MiB, 5 * MiB, md5.toHex(), {}});
    QCOMPARE(part.request.method, QByteArray("PUT"));
    QCOMPARE(query(part.request, "partNumber"), QStringLiteral("3"));
    QCOMPARE(query(part.request, "uploadId"), QStringLiteral("2~abc"));
    QCOMPARE(part.request.header("Content-MD5"), md5.toBase64());
    QCOMPARE(part.request.header("x-amz-content-sha256"), QByteArray("UNSIGNED-PAYLOAD"));
    QVERIFY(isSigned(part.request) && part.request.header("Authorization").contains("content-md5"));
    QVERIFY(part.request.header("Content-Length").isEmpty()); // the transport sets it from the body
    QVERIFY(part.request.file);
    QCOMPARE(part.request.file->path, QStringLiteral("/data/a.txt"));
    QCOMPARE(part.request.file->offset, 10 * MiB);
    QCOMPARE(part.request.file->length, 5 * MiB);
    QCOMPARE(part.request.bodyLength(), 5 * MiB);

    const Step<ChunkOutcome> ok =
        s3.readChunk(file, part, answer(200, {}, {{"ETag", '"' + md5.toHex().toUpper() + '"'}}));
    QCOMPARE(ok.outcome()->receipt, md5.toHex());
    const Step<ChunkOutcome> damaged = s3.readChunk(file, part, answer(400, errorXml("BadDigest")));
    QCOMPARE(damaged.failure()->kind, FailureKind::Corrupted);
    QCOMPARE(s3.readChunk(file, part, answer(404, errorXml("NoSuchUpload"))).failure()->kind,
             FailureKind::Recreate);
}

void TestS3Protocol::failuresAreSorted()
{
    const S3Protocol s3 = protocol();
    UploadContext file = attached();
    const Exchange part = s3.sendChunk(file, {0, 0, 5 * MiB, partMd5Hex(1), {}});
    const auto kindOf = [&](const WireReply &reply) {
        return s3.readChunk(file, part, reply).failure()->kind;
    };
    QCOMPARE(kindOf(answer(503, errorXml("SlowDown"))), FailureKind::Overloaded);
    QCOMPARE(kindOf(answer(503)), FailureKind::Overloaded);
    QCOMPARE(kindOf(answer(500, errorXml("InternalError"))), FailureKind::Retry);
    QCOMPARE(kindOf(answer(403, errorXml("InvalidAccessKeyId"))), FailureKind::BadCredentials);
    QCOMPARE(kindOf(answer(403, errorXml("AccessDenied"))), FailureKind::Fatal);
    QCOMPARE(kindOf(answer(404, errorXml("NoSuchBucket"))), FailureKind::Fatal);
    QCOMPARE(kindOf(answer(403, errorXml("QuotaExceeded"))), FailureKind::ResumeLater);
    const Step<ChunkOutcome> lost = s3.readChunk(file, part, noAnswer());
    QCOMPARE(lost.failure()->kind, FailureKind::Retry);
    QVERIFY(!lost.failure()->answered()); // the circuit breaker counts it
    // A success cut short is no answer either.
    WireReply cut = answer(200, {}, {{"ETag", "\"" + partMd5Hex(1) + "\""}});
    cut.networkError = QStringLiteral("Connection closed");
    QCOMPARE(s3.readChunk(file, part, cut).failure()->kind, FailureKind::Retry);
    QVERIFY(!s3.readChunk(file, part, cut).failure()->answered());
    WireReply untrusted = noAnswer();
    untrusted.tlsFailure = QStringLiteral("127.0.0.1:7480: certificate not trusted");
    const Step<ChunkOutcome> tls = s3.readChunk(file, part, untrusted);
    QCOMPARE(tls.failure()->kind, FailureKind::Fatal);
    QVERIFY(tls.failure()->message.contains(QLatin1String("AWS_CA_BUNDLE")));
}

void TestS3Protocol::completeChecksTheEtagAfterHead()
{
    const S3Protocol s3 = protocol();
    UploadContext file = attached();
    QList<QByteArray> binary;
    for (int part = 1; part <= 5; ++part) {
        file.receipts.append(partMd5Hex(part));
        file.sourceChunkChecksums.append(partMd5Hex(part));
        binary.append(QByteArray::fromHex(partMd5Hex(part)));
    }
    const QByteArray expected = S3Etag::ofMultipart(binary);
    const Exchange complete = s3.complete(file);
    QCOMPARE(complete.request.method, QByteArray("POST"));
    QCOMPARE(query(complete.request, "uploadId"), QStringLiteral("2~abc"));
    for (int part = 1; part <= 5; ++part) {
        QVERIFY(complete.request.body.contains(
            QByteArray("<PartNumber>" + QByteArray::number(part) + "</PartNumber>")));
        QVERIFY(complete.request.body.contains(partMd5Hex(part)));
    }
    QVERIFY(isSigned(complete.request));

    // Ceph answers an empty ETag: the HEAD has it.
    const QByteArray done = "<CompleteMultipartUploadResult " + Ns +
                            "><Key>in/a.txt</Key><ETag></ETag>"
                            "</CompleteMultipartUploadResult>";
    const Exchange head = nextOf(s3.readComplete(file, complete, answer(200, done)));
    QCOMPARE(head.request.method, QByteArray("HEAD"));
    QCOMPARE(head.request.url.path(), QStringLiteral("/media/in/a.txt"));
    const Step<FinishOutcome> verified = s3.readComplete(file, head, objectHead(23 * MiB, expected, OurSha));
    QVERIFY(verified.outcome());
    QCOMPARE(verified.outcome()->remotePath, QStringLiteral("a.txt"));
    QCOMPARE(verified.outcome()->sha256Hex, OurSha);

    const Step<FinishOutcome> other = s3.readComplete(file, head, objectHead(23 * MiB, "0badc0de-5", OurSha));
    QCOMPARE(other.failure()->kind, FailureKind::Fatal);
    QVERIFY2(other.failure()->message.contains(QLatin1String("ETag 0badc0de-5")),
             qPrintable(other.failure()->message));
    QVERIFY(other.failure()->message.contains(QString::fromLatin1(expected)));
    QCOMPARE(s3.readComplete(file, head, objectHead(22 * MiB, expected, OurSha)).failure()->kind,
             FailureKind::Fatal);
    QCOMPARE(s3.readComplete(file, head, answer(404)).failure()->kind, FailureKind::Retry);
}

void TestS3Protocol::completeErrorsLeadToHead()
{
    const S3Protocol s3 = protocol();
    UploadContext file = attached(7 * MiB);
    file.receipts = {partMd5Hex(1), partMd5Hex(2)};
    file.sourceChunkChecksums = file.receipts;
    const QByteArray expected =
        S3Etag::ofMultipart({QByteArray::fromHex(partMd5Hex(1)), QByteArray::fromHex(partMd5Hex(2))});
    const Exchange complete = s3.complete(file);

    // A 200 whose body is an <Error> failed (AWS sends the status before the work is done).
    const Exchange afterError =
        nextOf(s3.readComplete(file, complete, answer(200, errorXml("InternalError"))));
    QCOMPARE(afterError.request.method, QByteArray("HEAD"));
    QCOMPARE(s3.readComplete(file, afterError, answer(404)).failure()->kind, FailureKind::Retry);
    // No answer at all: no HEAD to a gateway that is not there, the engine sends it again.
    QCOMPARE(s3.readComplete(file, complete, noAnswer()).failure()->kind, FailureKind::Retry);
    // A Complete sent again after its first answer was lost: the upload is gone, the object ours.
    const Exchange afterGone = nextOf(s3.readComplete(file, complete, answer(404, errorXml("NoSuchUpload"))));
    QVERIFY(s3.readComplete(file, afterGone, objectHead(7 * MiB, expected, OurSha)).outcome());
    QCOMPARE(s3.readComplete(file, afterGone, objectHead(7 * MiB, "other-2")).failure()->kind,
             FailureKind::Recreate);
    QCOMPARE(s3.readComplete(file, complete, answer(400, errorXml("InvalidPart"))).failure()->kind,
             FailureKind::Recreate);
    QCOMPARE(s3.readComplete(file, complete, answer(400, errorXml("EntityTooSmall"))).failure()->kind,
             FailureKind::Fatal);
    // Without the file's part MD5s the object cannot be checked: refused before anything is sent.
    file.sourceChunkChecksums.clear();
    const Exchange unverifiable = s3.complete(file);
    QCOMPARE(s3.readComplete(file, unverifiable, answer(200)).failure()->code,
             QStringLiteral("not_verifiable"));
}

void TestS3Protocol::missingSha256IsCopiedOn()
{
    // A file above sha256BeforeCreateUpTo was created without it: after the ETag check the
    // object is copied onto itself with the hash, guarded by the verified ETag.
    const S3Protocol s3 = protocol(0);
    UploadContext file = attached(7 * MiB);
    file.receipts = {partMd5Hex(1), partMd5Hex(2)};
    file.sourceChunkChecksums = file.receipts;
    const QByteArray expected =
        S3Etag::ofMultipart({QByteArray::fromHex(partMd5Hex(1)), QByteArray::fromHex(partMd5Hex(2))});
    const Exchange head =
        nextOf(s3.readComplete(file, s3.complete(file),
                               answer(200, "<CompleteMultipartUploadResult><ETag>\"" + expected +
                                               "\"</ETag></CompleteMultipartUploadResult>")));
    const Exchange copy = nextOf(s3.readComplete(file, head, objectHead(7 * MiB, expected)));
    QCOMPARE(copy.request.method, QByteArray("PUT"));
    QCOMPARE(copy.request.url.path(), QStringLiteral("/media/in/a.txt"));
    QCOMPARE(copy.request.header("x-amz-copy-source"), QByteArray("media/in/a.txt"));
    QCOMPARE(copy.request.header("x-amz-metadata-directive"), QByteArray("REPLACE"));
    QCOMPARE(copy.request.header("x-amz-copy-source-if-match"), '"' + expected + '"');
    QCOMPARE(copy.request.header("x-amz-meta-sha256"), OurSha);
    QVERIFY(isSigned(copy.request));
    const QByteArray copied = "<CopyObjectResult><ETag>\"" + expected + "\"</ETag></CopyObjectResult>";
    QVERIFY(s3.readComplete(file, copy, answer(200, copied)).outcome());
    QCOMPARE(s3.readComplete(file, copy, answer(200, errorXml("InternalError"))).failure()->kind,
             FailureKind::Retry);
    QCOMPARE(s3.readComplete(file, copy, answer(412, errorXml("PreconditionFailed"))).failure()->kind,
             FailureKind::Fatal);
}

void TestS3Protocol::wholeFileIsCheckedAndVerified()
{
    const S3Protocol s3 = protocol();
    UploadContext file = upload(QStringLiteral("small.bin"), 1000);
    const QByteArray md5 = Md5Digest::of("small");
    file.sourceChunkChecksums = {md5.toHex()};
    const Exchange head = s3.sendWhole(file);
    QCOMPARE(head.request.method, QByteArray("HEAD"));
    QVERIFY(s3.readWhole(file, head, objectHead(1000, "x", OurSha)).outcome()->skipped);

    const Exchange put = nextOf(s3.readWhole(file, head, answer(404)));
    QCOMPARE(put.request.header("If-None-Match"), QByteArray("*")); // the HEAD found nothing
    verifyWholePut(s3, file, put, md5);

    // An empty file has no chunk checksum; its MD5 is the empty string's.
    UploadContext empty = upload(QStringLiteral("empty"), 0);
    const Exchange putEmpty = nextOf(s3.readWhole(empty, s3.sendWhole(empty), answer(404)));
    QCOMPARE(putEmpty.request.header("Content-MD5"), QByteArray("1B2M2Y8AsgTpgAmY7PhCfg=="));
    QCOMPARE(putEmpty.request.file->length, 0);
}

void TestS3Protocol::anEmptyDestinationIsSeenByTwoListings()
{
    const S3Protocol s3 = protocol();
    const QList<Exchange> checks = s3.destinationChecks(gateway());
    QCOMPARE(checks.size(), 2);
    const Exchange &objects = checks.at(0);
    QCOMPARE(objects.request.method, QByteArray("GET"));
    QCOMPARE(query(objects.request, "list-type"), QStringLiteral("2"));
    QCOMPARE(query(objects.request, "prefix"), QStringLiteral("in/"));
    QCOMPARE(query(objects.request, "max-keys"), QStringLiteral("1"));
    QVERIFY(isSigned(objects.request));
    const QByteArray none = "<?xml version=\"1.0\"?><ListBucketResult><Name>media</Name><Prefix>in/</Prefix>"
                            "<KeyCount>0</KeyCount><MaxKeys>1</MaxKeys><IsTruncated>false</IsTruncated>"
                            "</ListBucketResult>";
    const QByteArray one =
        "<?xml version=\"1.0\"?><ListBucketResult><Name>media</Name><Prefix>in/</Prefix>"
        "<KeyCount>1</KeyCount><IsTruncated>true</IsTruncated><Contents><Key>in/a.txt</Key>"
        "<Size>3</Size></Contents></ListBucketResult>";
    using Finding = DestinationFinding;
    QCOMPARE(s3.readDestinationCheck(gateway(), objects, answer(200, none)), Finding::NoObjects);
    QCOMPARE(s3.readDestinationCheck(gateway(), objects, answer(200, one)), Finding::Nothing);
    // A refusal (no permission to list) or no answer says nothing: each file looks for itself.
    QCOMPARE(s3.readDestinationCheck(gateway(), objects, answer(403, errorXml("AccessDenied"))),
             Finding::Nothing);
    QCOMPARE(s3.readDestinationCheck(gateway(), objects, noAnswer()), Finding::Nothing);
    QCOMPARE(s3.readDestinationCheck(gateway(), objects, answer(200, errorXml("InternalError"))),
             Finding::Nothing);

    const Exchange &uploads = checks.at(1);
    QCOMPARE(uploads.request.method, QByteArray("GET"));
    QVERIFY(uploads.request.url.query().contains(QLatin1String("uploads")));
    QCOMPARE(query(uploads.request, "prefix"), QStringLiteral("in/"));
    QCOMPARE(query(uploads.request, "max-uploads"), QStringLiteral("1"));
    QVERIFY(isSigned(uploads.request));
    QCOMPARE(s3.readDestinationCheck(gateway(), uploads, answer(200, uploadsXml({}))),
             Finding::NoUnfinishedUploads);
    QCOMPARE(s3.readDestinationCheck(gateway(), uploads, answer(200, uploadsXml({{"in/old.bin", "u1"}}))),
             Finding::Nothing);
    QCOMPARE(s3.readDestinationCheck(gateway(), uploads, answer(403, errorXml("AccessDenied"))),
             Finding::Nothing);
    QCOMPARE(s3.readDestinationCheck(gateway(), uploads, noAnswer()), Finding::Nothing);
}

// What the destination checks found spares the create its steps: an empty destination, seen as
// the file waited, needs no HEAD; no unfinished upload under the prefix needs no listing of the
// key's (the first time only: a second attach may follow a create whose answer was lost).
void TestS3Protocol::findOrCreateSkipsWhatTheDestinationChecksAnswered()
{
    const S3Protocol s3 = protocol();
    UploadContext file = upload();
    file.destinationEmptyAtAttach = true;
    file.noUnfinishedUploads = true;
    const Exchange create = s3.findOrCreate(file);
    QCOMPARE(create.request.method, QByteArray("POST"));
    QCOMPARE(create.request.url.toString(), QStringLiteral("http://127.0.0.1:7480/media/in/a.txt?uploads="));
    const QByteArray initiated = "<InitiateMultipartUploadResult " + Ns +
                                 "><Bucket>media</Bucket><Key>in/a.txt</Key><UploadId>2~new</UploadId>"
                                 "</InitiateMultipartUploadResult>";
    const Step<AttachOutcome> step = s3.readFindOrCreate(file, create, answer(200, initiated));
    QVERIFY(step.outcome());
    QCOMPARE(step.outcome()->uploadId, QStringLiteral("2~new"));
    QCOMPARE(step.outcome()->remotePath, QStringLiteral("a.txt"));

    file.noUnfinishedUploads = false;
    const Exchange list = s3.findOrCreate(file);
    QCOMPARE(list.request.method, QByteArray("GET"));
    QCOMPARE(query(list.request, "prefix"), QStringLiteral("in/a.txt"));

    // Only the uploads known absent: the HEAD still looks at the name, and the create follows it.
    file.destinationEmptyAtAttach = false;
    file.noUnfinishedUploads = true;
    const Exchange head = s3.findOrCreate(file);
    QCOMPARE(head.request.method, QByteArray("HEAD"));
    const Exchange afterHead = nextOf(s3.readFindOrCreate(file, head, answer(404)));
    QCOMPARE(afterHead.request.method, QByteArray("POST"));
    // What the first request knew travels with the operation: a later context does not undo it.
    UploadContext later = file;
    later.noUnfinishedUploads = false;
    QCOMPARE(nextOf(s3.readFindOrCreate(later, head, answer(404))).request.method, QByteArray("POST"));
}

void TestS3Protocol::wholeFileToAnEmptyDestinationGoesWithoutAHead()
{
    const S3Protocol s3 = protocol();
    UploadContext file = upload(QStringLiteral("small.bin"), 1000);
    const QByteArray md5 = Md5Digest::of("small");
    file.sourceChunkChecksums = {md5.toHex()};
    // Where a HEAD found nothing, the PUT is conditional too: nothing may be there when it lands.
    const Exchange afterHead = nextOf(s3.readWhole(file, s3.sendWhole(file), answer(404)));
    QCOMPARE(afterHead.request.header("If-None-Match"), QByteArray("*"));
    // Over a name that is taken and may be overwritten, it is not.
    file.onConflict = ConflictPolicy::Overwrite;
    const Exchange over = nextOf(s3.readWhole(file, s3.sendWhole(file), objectHead(5, "x", "b")));
    QCOMPARE(over.request.method, QByteArray("PUT"));
    QVERIFY(over.request.header("If-None-Match").isEmpty());
    file.onConflict = ConflictPolicy::Rename;

    file.destinationWasEmpty = true;
    const Exchange put = s3.sendWhole(file);
    QCOMPARE(put.request.header("If-None-Match"), QByteArray("*"));
    verifyWholePut(s3, file, put, md5);
}

void TestS3Protocol::aNameTakenSinceItWasSeenFreeIsLookedAtAfterAll()
{
    const S3Protocol s3 = protocol();
    UploadContext file = upload(QStringLiteral("small.bin"), 1000);
    const QByteArray md5 = Md5Digest::of("small");
    file.sourceChunkChecksums = {md5.toHex()};
    file.destinationWasEmpty = true;
    const Exchange put = s3.sendWhole(file);
    const WireReply taken = answer(412, errorXml("PreconditionFailed"));
    // Another writer (or another file of this upload with the same name) got there first: HEAD it
    // and decide as for any taken name; here the next numbered name, written on the same terms.
    const Exchange head = nextOf(s3.readWhole(file, put, taken));
    QCOMPARE(head.request.method, QByteArray("HEAD"));
    QCOMPARE(head.request.url.path(), QStringLiteral("/media/in/small.bin"));
    const Exchange numberedHead = nextOf(s3.readWhole(file, head, objectHead(7, "other", "b")));
    QCOMPARE(numberedHead.request.url.path(), QStringLiteral("/media/in/small (1).bin"));
    const Exchange numbered = nextOf(s3.readWhole(file, numberedHead, answer(404)));
    QCOMPARE(numbered.request.method, QByteArray("PUT"));
    QCOMPARE(numbered.request.url.path(), QStringLiteral("/media/in/small (1).bin"));
    QCOMPARE(numbered.request.header("If-None-Match"), QByteArray("*"));
    // The same file got there first (its earlier answer was lost): already there.
    QVERIFY(s3.readWhole(file, head, objectHead(1000, md5.toHex(), OurSha)).outcome()->skipped);
    // A server that refuses the condition although the HEAD finds the name free: once more
    // without it, not round and round.
    const Exchange again = nextOf(s3.readWhole(file, head, answer(404)));
    QCOMPARE(again.request.method, QByteArray("PUT"));
    QVERIFY(again.request.header("If-None-Match").isEmpty());
    QVERIFY(s3.readWhole(file, again, taken).failure());

    // AWS's answer to a write of the same key under way, and a server without conditional
    // writes: the same look, then the name without the condition.
    const WireReply conflicting = answer(409, errorXml("ConditionalRequestConflict"));
    const WireReply unsupported = answer(501, errorXml("NotImplemented"));
    for (const WireReply &refusal : {conflicting, unsupported}) {
        const Exchange look = nextOf(s3.readWhole(file, put, refusal));
        QCOMPARE(look.request.method, QByteArray("HEAD"));
        const Exchange plain = nextOf(s3.readWhole(file, look, answer(404)));
        QCOMPARE(plain.request.method, QByteArray("PUT"));
        QVERIFY(plain.request.header("If-None-Match").isEmpty());
    }
    // Any other refusal of a conditional PUT is what it says.
    QCOMPARE(s3.readWhole(file, put, answer(403, errorXml("AccessDenied"))).failure()->kind,
             FailureKind::Fatal);
}

void TestS3Protocol::abortOfAGoneUploadIsDone()
{
    const S3Protocol s3 = protocol();
    UploadContext file = attached();
    const Exchange abort = s3.abort(file);
    QCOMPARE(abort.request.method, QByteArray("DELETE"));
    QCOMPARE(query(abort.request, "uploadId"), QStringLiteral("2~abc"));
    QVERIFY(isSigned(abort.request));
    QVERIFY(s3.readAbort(file, abort, answer(204)).outcome());
    QVERIFY(s3.readAbort(file, abort, answer(404, errorXml("NoSuchUpload"))).outcome());
    QCOMPARE(s3.readAbort(file, abort, answer(403, errorXml("AccessDenied"))).failure()->kind,
             FailureKind::Fatal);
}

void TestS3Protocol::keysS3CannotTakeAreRefused()
{
    const S3Protocol s3 = protocol();
    const UploadContext file = upload(QString(1100, QLatin1Char('x')));
    const Exchange head = s3.findOrCreate(file);
    const Step<AttachOutcome> step = s3.readFindOrCreate(file, head, answer(200));
    QCOMPARE(step.failure()->kind, FailureKind::Fatal);
    QVERIFY(step.failure()->message.contains(QLatin1String("longer than S3's 1024 bytes")));
    QCOMPARE(s3.readWhole(file, s3.sendWhole(file), answer(404)).failure()->kind, FailureKind::Fatal);
}

QTEST_GUILESS_MAIN(TestS3Protocol)
#include "tst_s3_protocol.moc"
