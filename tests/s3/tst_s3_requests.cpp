// The request builders: each operation's method, URL, headers, body and signature.
#include "Md5Digest.h"
#include "S3Redaction.h"
#include "S3Requests.h"
#include "S3Xml.h"

#include <QTest>
#include <QTimeZone>

using namespace multilane;

namespace {

const QUrl Gateway(QStringLiteral("http://127.0.0.1:7480"));
const QString Secret = QStringLiteral("secret/Key+0123456789abcdefghijklmnopqrst");
const QString Token = QStringLiteral("SESSIONTOKEN0123456789");

QDateTime fixedTime()
{
    return QDateTime(QDate(2024, 3, 1), QTime(12, 30, 5), QTimeZone::utc());
}

S3Requests builder(const QString &token = {})
{
    auto target = S3Target::parse(QStringLiteral("s3://media/in/"), {Gateway}, QStringLiteral("zone-a"));
    return S3Requests(target.value(), {QStringLiteral("AKIATESTKEY"), Secret, token, {}}, fixedTime);
}

// Signs the request's own headers again: the signature it carries must be the one they give.
void verifySignature(const S3Request &request, const QString &token = {})
{
    HttpHeaders ownHeaders;
    for (const HttpHeader &header : request.headers) {
        const QByteArray name = header.name.toLower();
        if (name != "authorization" && name != "content-length" && !name.startsWith("x-amz-date") &&
            name != "x-amz-content-sha256" && name != "x-amz-security-token")
            ownHeaders.append(header);
    }
    const SigV4Signer signer({QStringLiteral("AKIATESTKEY"), Secret, token, {}}, QStringLiteral("zone-a"));
    const SigV4Signature again = signer.sign(request.method, request.url, ownHeaders,
                                             request.header("x-amz-content-sha256"), fixedTime());
    QCOMPARE(request.header("Authorization"), again.authorization);
}

} // namespace

class TestS3Requests : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void createMultipartUpload()
    {
        const S3Request request =
            builder().createMultipartUpload(Gateway, QStringLiteral("in/a b.iso"), {QByteArray(64, 'a'), {}});
        QCOMPARE(request.method, QByteArray("POST"));
        QCOMPARE(request.url.toEncoded(), QByteArray("http://127.0.0.1:7480/media/in/a%20b.iso?uploads="));
        QCOMPARE(request.header("x-amz-meta-sha256"), QByteArray(64, 'a'));
        QCOMPARE(request.header("Content-Type"), QByteArray("application/octet-stream"));
        QCOMPARE(request.header("Content-Length"), QByteArray("0"));
        QCOMPARE(request.header("x-amz-content-sha256"), QByteArray(SigV4Signer::EmptyPayloadHash));
        QCOMPARE(request.header("x-amz-date"), QByteArray("20240301T123005Z"));
        QVERIFY(request.header("Authorization").contains("/20240301/zone-a/s3/aws4_request"));
        QVERIFY(request.header("Authorization").contains("x-amz-meta-sha256"));
        QCOMPARE(request.context.operation, S3Operation::CreateMultipartUpload);
        QCOMPARE(request.context.endpointName, QStringLiteral("127.0.0.1:7480"));
        QCOMPARE(request.context.key, QStringLiteral("in/a b.iso"));
        verifySignature(request);
    }

    void uploadPartDeclaresItsFileRange()
    {
        const QByteArray md5 = Md5Digest::of("part bytes");
        const S3Request request = builder().uploadPart(
            Gateway, QStringLiteral("in/a.iso"), QStringLiteral("2~Ab+c/d"), 7, {30 << 20, 5 << 20}, md5);
        QCOMPARE(request.method, QByteArray("PUT"));
        QCOMPARE(request.url.toEncoded(),
                 QByteArray("http://127.0.0.1:7480/media/in/a.iso?partNumber=7&uploadId=2~Ab%2Bc%2Fd"));
        QVERIFY(request.fileRange);
        QCOMPARE(*request.fileRange, (S3FileRange{30 << 20, 5 << 20}));
        QVERIFY(request.body.isEmpty());
        QCOMPARE(request.header("Content-Length"), QByteArray::number(5 << 20));
        QCOMPARE(request.header("Content-MD5"), md5.toBase64());
        QCOMPARE(request.header("x-amz-content-sha256"), QByteArray("UNSIGNED-PAYLOAD"));
        QVERIFY(request.header("Authorization").contains("content-md5"));
        QVERIFY(request.header("Transfer-Encoding").isEmpty());
        QCOMPARE(request.context.partNumber, 7);
        verifySignature(request);
    }

    void completeListsPartsInXml()
    {
        const S3Request request = builder().completeMultipartUpload(
            Gateway, QStringLiteral("in/a.iso"), QStringLiteral("up1"),
            {{1, "\"0cc175b9c0f1b6a831c399e269772661\""}, {2, "92EB5FFEE6AE2FEC3AD71C777531578F"}});
        QCOMPARE(request.method, QByteArray("POST"));
        QCOMPARE(request.url.query(QUrl::FullyEncoded), QStringLiteral("uploadId=up1"));
        QCOMPARE(request.header("x-amz-content-sha256"), SigV4Signer::payloadHash(request.body));
        QCOMPARE(request.header("Content-Length"), QByteArray::number(request.body.size()));
        QString error;
        const auto root = S3Xml::parse(request.body, &error);
        QVERIFY2(root, qPrintable(error));
        QCOMPARE(root->name, QStringLiteral("CompleteMultipartUpload"));
        const auto parts = root->childrenNamed(QStringLiteral("Part"));
        QCOMPARE(parts.size(), 2);
        QCOMPARE(parts[0]->childText(QStringLiteral("PartNumber")), QStringLiteral("1"));
        QCOMPARE(parts[0]->childText(QStringLiteral("ETag")),
                 QStringLiteral("\"0cc175b9c0f1b6a831c399e269772661\""));
        QCOMPARE(parts[1]->childText(QStringLiteral("ETag")),
                 QStringLiteral("\"92eb5ffee6ae2fec3ad71c777531578f\""));
        verifySignature(request);
    }

    void abortListAndHead()
    {
        const S3Requests requests = builder();
        const S3Request abort =
            requests.abortMultipartUpload(Gateway, QStringLiteral("in/a"), QStringLiteral("u"));
        QCOMPARE(abort.method, QByteArray("DELETE"));
        QCOMPARE(abort.url.toEncoded(), QByteArray("http://127.0.0.1:7480/media/in/a?uploadId=u"));
        QVERIFY(abort.header("Content-Length").isEmpty());
        verifySignature(abort);

        const S3Request firstPage =
            requests.listParts(Gateway, QStringLiteral("in/a"), QStringLiteral("u"), 0, 1);
        QCOMPARE(firstPage.url.query(QUrl::FullyEncoded), QStringLiteral("max-parts=1&uploadId=u"));
        const S3Request nextPage =
            requests.listParts(Gateway, QStringLiteral("in/a"), QStringLiteral("u"), 3, 1);
        QCOMPARE(nextPage.url.query(QUrl::FullyEncoded),
                 QStringLiteral("max-parts=1&uploadId=u&part-number-marker=3"));
        verifySignature(nextPage);

        const S3Request uploads = requests.listMultipartUploads(
            Gateway, QStringLiteral("in/a b+c"), QStringLiteral("in/a"), QStringLiteral("u/1"), 10);
        QCOMPARE(uploads.method, QByteArray("GET"));
        QCOMPARE(uploads.url.toEncoded(),
                 QByteArray("http://127.0.0.1:7480/media/?uploads=&max-uploads=10&prefix=in%2Fa%20b%2Bc"
                            "&key-marker=in%2Fa&upload-id-marker=u%2F1"));
        QCOMPARE(uploads.context.operation, S3Operation::ListMultipartUploads);
        verifySignature(uploads);

        const S3Request head = requests.headObject(Gateway, QStringLiteral("in/ü"));
        QCOMPARE(head.method, QByteArray("HEAD"));
        QCOMPARE(head.url.toEncoded(), QByteArray("http://127.0.0.1:7480/media/in/%C3%BC"));
        verifySignature(head);
        QCOMPARE(requests.headBucket(Gateway).url.toEncoded(), QByteArray("http://127.0.0.1:7480/media/"));
        QCOMPARE(requests.listBuckets(Gateway).url.toEncoded(), QByteArray("http://127.0.0.1:7480/"));
    }

    void putAndCopy()
    {
        const S3Requests requests = builder();
        const QByteArray md5 = Md5Digest::of("x");
        const S3Request put =
            requests.putObject(Gateway, QStringLiteral("in/s.txt"), {0, 1}, md5, {"abc", "text/plain"});
        QCOMPARE(put.method, QByteArray("PUT"));
        QCOMPARE(put.header("Content-Type"), QByteArray("text/plain"));
        QCOMPARE(put.header("x-amz-meta-sha256"), QByteArray("abc"));
        QCOMPARE(put.header("Content-MD5"), md5.toBase64());
        QCOMPARE(put.header("Content-Length"), QByteArray("1"));
        verifySignature(put);

        const S3Request copy =
            requests.copyObjectReplacingMetadata(Gateway, QStringLiteral("in/a b.txt"), {"def", {}});
        QCOMPARE(copy.header("x-amz-copy-source"), QByteArray("media/in/a%20b.txt"));
        QCOMPARE(copy.header("x-amz-metadata-directive"), QByteArray("REPLACE"));
        QCOMPARE(copy.header("x-amz-meta-sha256"), QByteArray("def"));
        QCOMPARE(copy.header("Content-Length"), QByteArray("0"));
        QVERIFY(copy.header("x-amz-copy-source-if-match").isNull());
        verifySignature(copy);
        const S3Request guarded =
            requests.copyObjectReplacingMetadata(Gateway, QStringLiteral("in/a"), {"def", {}}, "ABC-2");
        QCOMPARE(guarded.header("x-amz-copy-source-if-match"), QByteArray("\"abc-2\""));
        QVERIFY(guarded.header("Authorization").contains("x-amz-copy-source-if-match"));
        verifySignature(guarded);
    }

    void sessionTokenAndClockOffset()
    {
        S3Requests requests = builder(Token);
        S3Request head = requests.headObject(Gateway, QStringLiteral("k"));
        QCOMPARE(head.header("x-amz-security-token"), Token.toUtf8());
        verifySignature(head, Token);
        requests.setClockOffsetSeconds(-90);
        head = requests.headObject(Gateway, QStringLiteral("k"));
        QCOMPARE(head.header("x-amz-date"), QByteArray("20240301T122835Z"));
    }

    void redactionHidesSecrets()
    {
        const S3Request request = builder(Token).uploadPart(
            Gateway, QStringLiteral("in/a"), QStringLiteral("u"), 1, {0, 10}, Md5Digest::of("x"));
        const QString shown = S3Redaction::describe(request);
        const QByteArray signature = request.header("Authorization").split('=').last();
        QVERIFY(!shown.contains(Secret));
        QVERIFY(!shown.contains(Token));
        QVERIFY(!shown.contains(QString::fromLatin1(signature)));
        QVERIFY(!shown.contains(QLatin1String("AKIATESTKEY")));
        QVERIFY2(shown.contains(QStringLiteral("Credential=AKIA…/20240301/zone-a/s3/aws4_request")),
                 qPrintable(shown));
        QVERIFY(shown.contains(QLatin1String("SignedHeaders=")));
        QVERIFY(shown.contains(QLatin1String("partNumber=1")));
        QVERIFY(shown.contains(QLatin1String("10 bytes of the file from 0")));
        QCOMPARE(S3Redaction::scrub(QStringLiteral("echo ") + Secret + QLatin1Char(' ') + Token,
                                    {QStringLiteral("AKIATESTKEY"), Secret, Token, {}}),
                 QStringLiteral("echo <redacted> <redacted>"));
    }
};

QTEST_GUILESS_MAIN(TestS3Requests)
#include "tst_s3_requests.moc"
