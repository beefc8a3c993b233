// Reading S3 answers: each operation's document with and without namespaces, damaged and odd
// XML, and every error code turned into its kind and a message that names endpoint and fix.
#include "S3FailureClassifier.h"
#include "S3Replies.h"

#include <QTest>
#include <QTimeZone>

using namespace multilane;
using Kind = S3Failure::Kind;

namespace {

const QByteArray Ns = "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"";

S3RequestContext context(S3Operation operation, int partNumber = 0)
{
    return {operation, QStringLiteral("127.0.0.1:7480"), QStringLiteral("media"), QStringLiteral("in/a.iso"),
            partNumber};
}

S3Reply reply(int status, const QByteArray &body = {}, const HttpHeaders &headers = {})
{
    S3Reply answer;
    answer.httpStatus = status;
    answer.body = body;
    answer.headers = headers;
    answer.receivedAt = QDateTime(QDate(2024, 3, 1), QTime(12, 0), QTimeZone::utc());
    return answer;
}

QByteArray errorXml(const char *code, const char *message = "")
{
    return QByteArray("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>") + code + "</Code><Message>" +
           message +
           "</Message><BucketName>media</BucketName><RequestId>tx0001</RequestId>"
           "<HostId>abc</HostId></Error>";
}

QByteArray listParts(const QByteArray &namespaceAttribute, bool truncated)
{
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListPartsResult " + namespaceAttribute +
           "><Bucket>media</Bucket><Key>in/a.iso</Key><UploadId>2~x</UploadId>"
           "<Initiator><ID>u</ID><DisplayName>u</DisplayName></Initiator><StorageClass>STANDARD</"
           "StorageClass>"
           "<PartNumberMarker>0</PartNumberMarker><NextPartNumberMarker>2</NextPartNumberMarker>"
           "<MaxParts>2</MaxParts><IsTruncated>" +
           (truncated ? "true" : "false") +
           "</IsTruncated>"
           "<Part><LastModified>2024-03-01T11:59:58.000Z</LastModified><PartNumber>1</PartNumber>"
           "<ETag>&quot;0CC175B9C0F1B6A831C399E269772661&quot;</ETag><Size>5242880</Size>"
           "<ChecksumCRC32>unknown</ChecksumCRC32></Part>"
           "<Part><PartNumber>2</PartNumber><ETag>\"92eb5ffee6ae2fec3ad71c777531578f\"</ETag><Size>17</"
           "Size></Part>"
           "</ListPartsResult>";
}

} // namespace

class TestS3Replies : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initiate_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("aws namespace")
            << QByteArray("<?xml version=\"1.0\"?><InitiateMultipartUploadResult " + Ns +
                          "><Bucket>media</Bucket><Key>in/a.iso</Key>"
                          "<UploadId>VXBsb2FkIElE</UploadId></InitiateMultipartUploadResult>");
        QTest::newRow("no namespace")
            << QByteArray("<InitiateMultipartUploadResult><Tenant/><Bucket>media</Bucket>"
                          "<Key>in/a.iso</Key><UploadId>VXBsb2FkIElE</UploadId>"
                          "</InitiateMultipartUploadResult>");
        QTest::newRow("prefixed namespace") << QByteArray(
            "<s3:InitiateMultipartUploadResult xmlns:s3=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
            "<s3:Bucket>media</s3:Bucket><s3:Key>in/a.iso</s3:Key><s3:UploadId>VXBsb2FkIElE"
            "</s3:UploadId></s3:InitiateMultipartUploadResult>");
        QTest::newRow("whitespace and comments") << QByteArray(
            "<?xml version=\"1.0\"?>\n<!-- hi -->\n<InitiateMultipartUploadResult>\n  <UploadId>\n"
            "    VXBsb2FkIElE\n  </UploadId>\n  <Key>in/a.iso</Key>\n</InitiateMultipartUploadResult>\n");
    }
    void initiate()
    {
        QFETCH(QByteArray, body);
        const auto result =
            S3Replies::createMultipartUpload(context(S3Operation::CreateMultipartUpload), reply(200, body));
        QVERIFY2(result, qPrintable(result ? QString() : result.failure().userMessage));
        QCOMPARE(result.value().uploadId, QStringLiteral("VXBsb2FkIElE"));
        QCOMPARE(result.value().key, QStringLiteral("in/a.iso"));
    }

    void initiateWithoutUploadIdIsUnreadable()
    {
        const auto result = S3Replies::createMultipartUpload(
            context(S3Operation::CreateMultipartUpload),
            reply(200, "<InitiateMultipartUploadResult><Key>k</Key></InitiateMultipartUploadResult>"));
        QVERIFY(!result);
        QCOMPARE(result.failure().kind, Kind::Retry);
        QVERIFY(result.failure().userMessage.contains(QLatin1String("no UploadId")));
    }

    void truncatedDocumentsNeverPass()
    {
        // Every strict prefix of a valid answer is refused, and none crashes the reader.
        const QByteArray whole = listParts(Ns, false);
        for (qsizetype length = 0; length < whole.size(); ++length) {
            const auto result =
                S3Replies::listParts(context(S3Operation::ListParts), reply(200, whole.left(length)));
            QVERIFY2(!result, qPrintable(QStringLiteral("prefix of %1 bytes passed").arg(length)));
            QCOMPARE(result.failure().kind, Kind::Retry);
        }
        QVERIFY(S3Replies::listParts(context(S3Operation::ListParts), reply(200, whole)));
    }

    void listPartsPages()
    {
        for (const QByteArray &ns : {Ns, QByteArray()}) {
            const auto page =
                S3Replies::listParts(context(S3Operation::ListParts), reply(200, listParts(ns, true)));
            QVERIFY(page);
            QVERIFY(page.value().isTruncated);
            QCOMPARE(page.value().nextPartNumberMarker, 2);
            QCOMPARE(page.value().parts.size(), 2);
            QCOMPARE(page.value().parts[0].partNumber, 1);
            QCOMPARE(page.value().parts[0].etag, QByteArray("0cc175b9c0f1b6a831c399e269772661"));
            QCOMPARE(page.value().parts[0].size, 5242880);
            QCOMPARE(page.value().parts[0].lastModified,
                     QDateTime(QDate(2024, 3, 1), QTime(11, 59, 58), QTimeZone::utc()));
            QCOMPARE(page.value().parts[1].etag, QByteArray("92eb5ffee6ae2fec3ad71c777531578f"));
        }
        const auto last =
            S3Replies::listParts(context(S3Operation::ListParts), reply(200, listParts(Ns, false)));
        QVERIFY(last);
        QVERIFY(!last.value().isTruncated);
    }

    void listPartsRefusesBadParts()
    {
        QByteArray badNumber = listParts(Ns, false);
        badNumber.replace("<PartNumber>2</PartNumber>", "<PartNumber>two</PartNumber>");
        QVERIFY(!S3Replies::listParts(context(S3Operation::ListParts), reply(200, badNumber)));
        QByteArray endless = listParts(Ns, true);
        endless.replace("<NextPartNumberMarker>2</NextPartNumberMarker>", "");
        const auto result = S3Replies::listParts(context(S3Operation::ListParts), reply(200, endless));
        QVERIFY(!result);
        QVERIFY(result.failure().userMessage.contains(QLatin1String("NextPartNumberMarker")));
        const auto wrongRoot = S3Replies::listParts(context(S3Operation::ListParts),
                                                    reply(200, "<ListBucketResult></ListBucketResult>"));
        QVERIFY(!wrongRoot);
        QVERIFY(wrongRoot.failure().userMessage.contains(QLatin1String("<ListPartsResult>")));
    }

    void listUploadsWithEntitiesInKeys()
    {
        const QByteArray body =
            "<ListMultipartUploadsResult " + Ns +
            "><Bucket>media</Bucket><KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker>"
            "<NextKeyMarker>in/R&amp;D &lt;1&gt; "
            "&#x263A;</NextKeyMarker><NextUploadIdMarker>2~b</NextUploadIdMarker>"
            "<MaxUploads>2</MaxUploads><IsTruncated>true</IsTruncated>"
            "<Upload><Key>in/R&amp;D &lt;1&gt; "
            "&#x263A;</Key><UploadId>2~a</UploadId><Initiator><ID>x</ID></Initiator>"
            "<StorageClass>STANDARD</StorageClass><Initiated>2024-03-01T10:00:00.000Z</Initiated></Upload>"
            "<Upload><Key><![CDATA[in/R&D <1> ]]>&#x263A;</Key><UploadId>2~b</UploadId>"
            "<Initiated>2024-03-01T11:00:00.000Z</Initiated></Upload>"
            "<Upload><Key>in/R&amp;D &lt;1&gt; &#x263A;.bak</Key><UploadId>2~c</UploadId>"
            "<Initiated>2024-03-01T11:30:00.000Z</Initiated></Upload>"
            "<CommonPrefixes><Prefix>in/x/</Prefix></CommonPrefixes></ListMultipartUploadsResult>";
        const auto page =
            S3Replies::listMultipartUploads(context(S3Operation::ListMultipartUploads), reply(200, body));
        QVERIFY2(page, qPrintable(page ? QString() : page.failure().userMessage));
        const QString key = QStringLiteral("in/R&D <1> \u263A");
        QVERIFY(page.value().isTruncated);
        QCOMPARE(page.value().nextKeyMarker, key);
        QCOMPARE(page.value().nextUploadIdMarker, QStringLiteral("2~b"));
        QCOMPARE(page.value().uploads.size(), 3);
        QCOMPARE(page.value().uploads[0].key, key);
        QCOMPARE(page.value().uploads[1].key, key);
        // The newest with exactly that key, not the newer ".bak" that shares the prefix.
        const auto newest = S3Replies::newestUploadFor(page.value().uploads, key);
        QVERIFY(newest);
        QCOMPARE(newest->uploadId, QStringLiteral("2~b"));
        QVERIFY(!S3Replies::newestUploadFor(page.value().uploads, QStringLiteral("in/other")));
    }

    void undefinedEntityAndDeepNestingAreRefused()
    {
        const auto entity =
            S3Replies::listMultipartUploads(context(S3Operation::ListMultipartUploads),
                                            reply(200, "<ListMultipartUploadsResult><Upload><Key>&nope;</"
                                                       "Key></Upload></ListMultipartUploadsResult>"));
        QVERIFY(!entity);
        QByteArray deep = "<ListPartsResult>";
        for (int i = 0; i < 100; ++i)
            deep += "<a>";
        const auto nested = S3Replies::listParts(context(S3Operation::ListParts), reply(200, deep));
        QVERIFY(!nested);
        QVERIFY(nested.failure().userMessage.contains(QLatin1String("deeper")));
    }

    void completeAnswers()
    {
        const auto withEtag = S3Replies::completeMultipartUpload(
            context(S3Operation::CompleteMultipartUpload),
            reply(200, "<CompleteMultipartUploadResult " + Ns +
                           "><Location>http://gw/media/in/a.iso</Location>"
                           "<Bucket>media</Bucket><Key>in/a.iso</"
                           "Key><ETag>\"3858f62230ac3c915f300c664312c11f-9\"</ETag>"
                           "</CompleteMultipartUploadResult>"));
        QVERIFY(withEtag);
        QCOMPARE(withEtag.value().etag, QByteArray("3858f62230ac3c915f300c664312c11f-9"));
        // Ceph 16 answers an empty ETag; the caller HEADs the object for it.
        const auto ceph = S3Replies::completeMultipartUpload(
            context(S3Operation::CompleteMultipartUpload),
            reply(200, "<CompleteMultipartUploadResult " + Ns +
                           "><Location>gw/media/in/a.iso</Location>"
                           "<Bucket>media</Bucket><Key>in/a.iso</Key><ETag></ETag></"
                           "CompleteMultipartUploadResult>"));
        QVERIFY(ceph);
        QVERIFY(ceph.value().etag.isEmpty());
    }

    void completeAnswered200WithAnErrorIsAFailure()
    {
        // S3 sends 200 at once and keeps the connection alive with spaces while it assembles.
        const auto failed = S3Replies::completeMultipartUpload(
            context(S3Operation::CompleteMultipartUpload),
            reply(200, errorXml("InternalError", "We encountered an internal error. Please try again.")
                           .replace("?><Error>", "?>\n   \n   <Error>")));
        QVERIFY(!failed);
        QCOMPARE(failed.failure().kind, Kind::Retry);
        QCOMPARE(failed.failure().httpStatus, 200);
        QCOMPARE(failed.failure().code, QStringLiteral("InternalError"));
        QCOMPARE(failed.failure().requestId, QStringLiteral("tx0001"));
        const auto badPart = S3Replies::completeMultipartUpload(context(S3Operation::CompleteMultipartUpload),
                                                                reply(200, errorXml("InvalidPart")));
        QVERIFY(!badPart);
        QCOMPARE(badPart.failure().kind, Kind::InvalidPart);
    }

    void etagHeaders()
    {
        const auto part =
            S3Replies::uploadPart(context(S3Operation::UploadPart, 3),
                                  reply(200, {}, {{"ETag", "\"0CC175B9C0F1B6A831C399E269772661\""}}));
        QVERIFY(part);
        QCOMPARE(part.value(), QByteArray("0cc175b9c0f1b6a831c399e269772661"));
        const auto none = S3Replies::uploadPart(context(S3Operation::UploadPart, 3), reply(200));
        QVERIFY(!none);
        QVERIFY(none.failure().userMessage.contains(QLatin1String("part 3 of 'in/a.iso'")));
        QVERIFY(S3Replies::putObject(context(S3Operation::PutObject), reply(200, {}, {{"etag", "\"ab\""}})));
    }

    void headObject()
    {
        const auto found = S3Replies::headObject(context(S3Operation::HeadObject),
                                                 reply(200, {},
                                                       {{"Content-Length", "1048576"},
                                                        {"ETag", "\"abc-2\""},
                                                        {"x-amz-meta-sha256", "AB12"},
                                                        {"Last-Modified", "Fri, 01 Mar 2024 11:00:00 GMT"}}));
        QVERIFY(found);
        QVERIFY(found.value());
        QCOMPARE(found.value()->size, 1048576);
        QCOMPARE(found.value()->etag, QByteArray("abc-2"));
        QCOMPARE(found.value()->sha256Hex, QByteArray("ab12"));
        QCOMPARE(found.value()->lastModified, QDateTime(QDate(2024, 3, 1), QTime(11, 0), QTimeZone::utc()));
        const auto missing = S3Replies::headObject(context(S3Operation::HeadObject), reply(404));
        QVERIFY(missing);
        QVERIFY(!missing.value());
        const auto denied = S3Replies::headObject(context(S3Operation::HeadObject), reply(403));
        QVERIFY(!denied);
        QCOMPARE(denied.failure().kind, Kind::AccessDenied);
    }

    void copyObject()
    {
        const auto copied = S3Replies::copyObject(
            context(S3Operation::CopyObject),
            reply(200, "<CopyObjectResult><LastModified>2024-03-01T12:00:00.000Z</LastModified>"
                       "<ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag></CopyObjectResult>"));
        QVERIFY(copied);
        QCOMPARE(copied.value(), QByteArray("9b2cf535f27731c974343645a3985328"));
        QVERIFY(
            !S3Replies::copyObject(context(S3Operation::CopyObject), reply(200, errorXml("InternalError"))));
    }

    void errorKinds_data()
    {
        QTest::addColumn<int>("operation");
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("code");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("mentions");
        const int part = int(S3Operation::UploadPart);
        const int list = int(S3Operation::ListParts);
        const int head = int(S3Operation::HeadObject);
        QTest::newRow("signature") << part << 403 << QByteArray("SignatureDoesNotMatch")
                                   << int(Kind::BadCredentials) << "AWS_SECRET_ACCESS_KEY";
        QTest::newRow("access key") << part << 403 << QByteArray("InvalidAccessKeyId")
                                    << int(Kind::BadCredentials) << "AWS_ACCESS_KEY_ID";
        QTest::newRow("token") << part << 400 << QByteArray("ExpiredToken") << int(Kind::BadCredentials)
                               << "AWS_SESSION_TOKEN";
        QTest::newRow("skew") << part << 403 << QByteArray("RequestTimeTooSkewed") << int(Kind::ClockSkew)
                              << "NTP";
        QTest::newRow("denied") << part << 403 << QByteArray("AccessDenied") << int(Kind::AccessDenied)
                                << "permissions";
        QTest::newRow("bucket") << part << 404 << QByteArray("NoSuchBucket") << int(Kind::NoSuchBucket)
                                << "s3://media/";
        QTest::newRow("upload") << part << 404 << QByteArray("NoSuchUpload") << int(Kind::NoSuchUpload)
                                << "aborted";
        QTest::newRow("ceph aborted upload")
            << list << 404 << QByteArray("NoSuchKey") << int(Kind::NoSuchUpload) << "aborted";
        QTest::newRow("no such key on head")
            << head << 400 << QByteArray("NoSuchKey") << int(Kind::Fatal) << "refused";
        QTest::newRow("bad digest") << part << 400 << QByteArray("BadDigest") << int(Kind::BadDigest)
                                    << "part 3 of 'in/a.iso'";
        QTest::newRow("invalid digest")
            << part << 400 << QByteArray("InvalidDigest") << int(Kind::BadDigest) << "MD5";
        QTest::newRow("too small") << int(S3Operation::CompleteMultipartUpload) << 400
                                   << QByteArray("EntityTooSmall") << int(Kind::Fatal) << "5 MiB";
        QTest::newRow("invalid part order")
            << int(S3Operation::CompleteMultipartUpload) << 400 << QByteArray("InvalidPartOrder")
            << int(Kind::InvalidPart) << "part list";
        QTest::newRow("slow down") << part << 503 << QByteArray("SlowDown") << int(Kind::Overloaded)
                                   << "fewer";
        QTest::newRow("503 bare") << part << 503 << QByteArray() << int(Kind::Overloaded) << "HTTP 503";
        QTest::newRow("429") << part << 429 << QByteArray() << int(Kind::Overloaded) << "fewer";
        QTest::newRow("500") << part << 500 << QByteArray("InternalError") << int(Kind::Retry) << "for now";
        QTest::newRow("502 bare") << part << 502 << QByteArray() << int(Kind::Retry) << "HTTP 502";
        QTest::newRow("504 bare") << part << 504 << QByteArray() << int(Kind::Retry) << "for now";
        QTest::newRow("request timeout")
            << part << 400 << QByteArray("RequestTimeout") << int(Kind::Retry) << "for now";
        QTest::newRow("region") << part << 400 << QByteArray("AuthorizationHeaderMalformed")
                                << int(Kind::WrongRegion) << "region";
        QTest::newRow("copy precondition")
            << int(S3Operation::CopyObject) << 412 << QByteArray("PreconditionFailed") << int(Kind::Fatal)
            << "changed since";
        QTest::newRow("quota") << part << 403 << QByteArray("QuotaExceeded") << int(Kind::Fatal) << "quota";
        QTest::newRow("unknown 4xx") << part << 400 << QByteArray("Whatever") << int(Kind::Fatal)
                                     << "Whatever";
        QTest::newRow("head 403") << head << 403 << QByteArray() << int(Kind::AccessDenied) << "clock";
        QTest::newRow("head bucket 404") << int(S3Operation::HeadBucket) << 404 << QByteArray()
                                         << int(Kind::NoSuchBucket) << "bucket 'media'";
    }
    void errorKinds()
    {
        QFETCH(int, operation);
        QFETCH(int, status);
        QFETCH(QByteArray, code);
        QFETCH(int, kind);
        QFETCH(QString, mentions);
        const S3Failure failure = S3FailureClassifier::classify(
            context(S3Operation(operation), 3),
            reply(status, code.isEmpty() ? QByteArray() : errorXml(code.constData())));
        QCOMPARE(S3Failure::kindName(failure.kind), S3Failure::kindName(Kind(kind)));
        QCOMPARE(failure.httpStatus, status);
        QCOMPARE(failure.code, QString::fromLatin1(code));
        QVERIFY2(failure.userMessage.startsWith(QLatin1String("127.0.0.1:7480 ")),
                 qPrintable(failure.userMessage));
        QVERIFY2(failure.userMessage.contains(mentions), qPrintable(failure.userMessage));
        QCOMPARE(failure.isRetriable(),
                 kind == int(Kind::Retry) || kind == int(Kind::Overloaded) || kind == int(Kind::BadDigest));
    }

    void signatureMismatchMeasuresTheClock()
    {
        // Received at 12:00:00 local; the server's Date says 12:00:30: this clock is 30 s behind.
        const S3Failure behind = S3FailureClassifier::classify(
            context(S3Operation::UploadPart, 1),
            reply(403, errorXml("SignatureDoesNotMatch"), {{"Date", "Fri, 01 Mar 2024 12:00:30 GMT"}}));
        QCOMPARE(behind.clockSkewSeconds, std::optional<qint64>(30));
        QVERIFY2(behind.userMessage.contains(QLatin1String("30 s behind the server's")),
                 qPrintable(behind.userMessage));
        const S3Failure ahead = S3FailureClassifier::classify(
            context(S3Operation::UploadPart, 1),
            reply(403, errorXml("RequestTimeTooSkewed"), {{"Date", "Fri, 01 Mar 2024 11:40:00 GMT"}}));
        QCOMPARE(ahead.kind, Kind::ClockSkew);
        QVERIFY2(ahead.userMessage.contains(QLatin1String("1200 s ahead of the server's")),
                 qPrintable(ahead.userMessage));
        const S3Failure same = S3FailureClassifier::classify(
            context(S3Operation::UploadPart, 1),
            reply(403, errorXml("SignatureDoesNotMatch"), {{"Date", "Fri, 01 Mar 2024 12:00:01 GMT"}}));
        QVERIFY(same.userMessage.contains(QLatin1String("agrees with the server's")));
    }

    void serverMessageIsQuotedAndRegionNamed()
    {
        const S3Failure failure = S3FailureClassifier::classify(
            context(S3Operation::UploadPart, 1),
            reply(400,
                  "<Error><Code>AuthorizationHeaderMalformed</Code><Message>the region 'us-east-1' is wrong; "
                  "expecting 'eu-west-1'</Message><Region>eu-west-1</Region></Error>"));
        QVERIFY(failure.userMessage.contains(QLatin1String("AWS_REGION=eu-west-1")));
        QVERIFY(failure.userMessage.contains(QLatin1String("\"the region 'us-east-1' is wrong")));
        // Ceph's empty Message leaves no empty quotes behind.
        const S3Failure ceph = S3FailureClassifier::classify(context(S3Operation::UploadPart, 1),
                                                             reply(400, errorXml("BadDigest")));
        QVERIFY2(ceph.userMessage.contains(QLatin1String("(BadDigest, HTTP 400)")),
                 qPrintable(ceph.userMessage));
    }

    void transportFailures()
    {
        S3Reply timedOut = reply(0);
        timedOut.networkError = QNetworkReply::OperationCanceledError;
        timedOut.networkErrorText = QStringLiteral("Operation canceled");
        QCOMPARE(S3FailureClassifier::classify(context(S3Operation::UploadPart, 2), timedOut).kind,
                 Kind::Retry);
        S3Reply refused = reply(0);
        refused.networkError = QNetworkReply::ConnectionRefusedError;
        const S3Failure failure = S3FailureClassifier::classify(context(S3Operation::UploadPart, 2), refused);
        QCOMPARE(failure.kind, Kind::Retry);
        QVERIFY(failure.userMessage.contains(QLatin1String("127.0.0.1:7480")));
        S3Reply tls = reply(0);
        tls.networkError = QNetworkReply::SslHandshakeFailedError;
        tls.networkErrorText =
            QStringLiteral("The issuer certificate of a locally looked up certificate could not be found");
        const S3Failure untrusted = S3FailureClassifier::classify(context(S3Operation::HeadBucket), tls);
        QCOMPARE(untrusted.kind, Kind::TlsFailure);
        QVERIFY(untrusted.userMessage.contains(QLatin1String("AWS_CA_BUNDLE")));
    }

    void abortAndHealth()
    {
        QVERIFY(S3Replies::abortMultipartUpload(context(S3Operation::AbortMultipartUpload), reply(204)));
        const auto gone = S3Replies::abortMultipartUpload(context(S3Operation::AbortMultipartUpload),
                                                          reply(404, errorXml("NoSuchUpload")));
        QVERIFY(!gone);
        QCOMPARE(gone.failure().kind, Kind::NoSuchUpload);
        QVERIFY(S3Replies::health(context(S3Operation::HeadBucket), reply(200)));
        QCOMPARE(S3Replies::health(context(S3Operation::HeadBucket),
                                   reply(301, {}, {{"x-amz-bucket-region", "eu-north-1"}}))
                     .failure()
                     .kind,
                 Kind::WrongRegion);
    }
};

QTEST_GUILESS_MAIN(TestS3Replies)
#include "tst_s3_replies.moc"
