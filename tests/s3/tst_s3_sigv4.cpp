// SigV4 signing against AWS's published examples (S3 API reference, "Examples: Signature
// Calculations" for header-based auth), and against what curl --aws-sigv4 signs.
#include "SigV4Signer.h"

#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimeZone>

using namespace multilane;

namespace {

// AWS's example credentials and time, from the documentation.
S3Credentials exampleCredentials()
{
    return {QStringLiteral("AKIAIOSFODNN7EXAMPLE"),
            QStringLiteral("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            {},
            {}};
}

QDateTime exampleTime()
{
    return QDateTime(QDate(2013, 5, 24), QTime(0, 0), QTimeZone::utc());
}

QByteArray signatureOf(const QByteArray &method, const char *url, const HttpHeaders &headers,
                       const QByteArray &payloadHash)
{
    const SigV4Signer signer(exampleCredentials(), QStringLiteral("us-east-1"));
    return signer.sign(method, QUrl::fromEncoded(url), headers, payloadHash, exampleTime()).signature;
}

// The request line and headers curl sent, read off a loopback socket.
struct CapturedRequest {
    QByteArray method;
    QByteArray target;
    HttpHeaders headers;
};

} // namespace

class TestSigV4 : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void signingKeyMatchesAwsExample();
    void getObjectWithRangeMatchesAwsExample();
    void putObjectMatchesAwsExample();
    void queryExamplesMatchAws();
    void canonicalUriEncodesEachSegmentOnce();
    void canonicalQuerySortsAndEncodes();
    void hostHeaderFollowsQt();
    void headersAreLowercasedTrimmedAndFolded();
    void sessionTokenIsSentAndSigned();
    void callerCannotOverrideSigningHeaders();
    void matchesCurlAwsSigv4();
    void matchesCurlAwsSigv4_data();
};

void TestSigV4::signingKeyMatchesAwsExample()
{
    const QByteArray key = SigV4Signer::signingKey(exampleCredentials().secretAccessKey, "20130524",
                                                   QStringLiteral("us-east-1"), QStringLiteral("s3"));
    QCOMPARE(key.toHex(), QByteArray("dbb893acc010964918f1fd433add87c70e8b0db6be30c1fbeafefa5ec6ba8378"));
}

void TestSigV4::getObjectWithRangeMatchesAwsExample()
{
    const SigV4Signer signer(exampleCredentials(), QStringLiteral("us-east-1"));
    const SigV4Signature signed_ =
        signer.sign("GET", QUrl(QStringLiteral("https://examplebucket.s3.amazonaws.com/test.txt")),
                    {{"Range", "bytes=0-9"}}, SigV4Signer::EmptyPayloadHash, exampleTime());
    QCOMPARE(signed_.canonicalRequest,
             QByteArray("GET\n/test.txt\n\n"
                        "host:examplebucket.s3.amazonaws.com\n"
                        "range:bytes=0-9\n"
                        "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b"
                        "934ca495991b7852b855\n"
                        "x-amz-date:20130524T000000Z\n\n"
                        "host;range;x-amz-content-sha256;x-amz-date\n"
                        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    QCOMPARE(signed_.stringToSign,
             QByteArray("AWS4-HMAC-SHA256\n20130524T000000Z\n"
                        "20130524/us-east-1/s3/aws4_request\n"
                        "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972"));
    QCOMPARE(signed_.signature,
             QByteArray("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"));
    QCOMPARE(signed_.authorization,
             QByteArray("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"));
    QCOMPARE(headerValue(signed_.headersToAdd, "Authorization"), signed_.authorization);
    QCOMPARE(headerValue(signed_.headersToAdd, "x-amz-date"), QByteArray("20130524T000000Z"));
}

void TestSigV4::putObjectMatchesAwsExample()
{
    // The key is "test$file.text"; S3 signs the path as sent: '$' encoded once.
    const SigV4Signer signer(exampleCredentials(), QStringLiteral("us-east-1"));
    const QByteArray payloadHash = "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072";
    const SigV4Signature signed_ = signer.sign(
        "PUT", QUrl::fromEncoded("https://examplebucket.s3.amazonaws.com/test%24file.text"),
        {{"Date", "Fri, 24 May 2013 00:00:00 GMT"}, {"x-amz-storage-class", "REDUCED_REDUNDANCY"}},
        payloadHash, exampleTime());
    QVERIFY(signed_.canonicalRequest.startsWith("PUT\n/test%24file.text\n\n"));
    QVERIFY(
        signed_.stringToSign.endsWith("9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d"));
    QCOMPARE(signed_.signedHeaders,
             QByteArray("date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class"));
    QCOMPARE(signed_.signature,
             QByteArray("98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"));
}

void TestSigV4::queryExamplesMatchAws()
{
    // GET Bucket Lifecycle (a parameter without a value) and GET Bucket (two sorted parameters).
    QCOMPARE(signatureOf("GET", "https://examplebucket.s3.amazonaws.com/?lifecycle", {},
                         SigV4Signer::EmptyPayloadHash),
             QByteArray("fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"));
    QCOMPARE(signatureOf("GET", "https://examplebucket.s3.amazonaws.com/?prefix=J&max-keys=2", {},
                         SigV4Signer::EmptyPayloadHash),
             QByteArray("34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"));
}

void TestSigV4::canonicalUriEncodesEachSegmentOnce()
{
    QCOMPARE(SigV4Signer::canonicalUri(QUrl::fromEncoded("http://gw/")), QByteArray("/"));
    QCOMPARE(SigV4Signer::canonicalUri(QUrl::fromEncoded("http://gw")), QByteArray("/"));
    QCOMPARE(SigV4Signer::canonicalUri(QUrl::fromEncoded("http://gw/b/a%20b/c%2Bd/%C3%A9~x_y-z.1")),
             QByteArray("/b/a%20b/c%2Bd/%C3%A9~x_y-z.1"));
    // Characters Qt leaves bare in a path come out in SigV4's form, the same as if encoded.
    QCOMPARE(SigV4Signer::canonicalUri(QUrl::fromEncoded("http://gw/b/x!y*z(1)'")),
             QByteArray("/b/x%21y%2Az%281%29%27"));
    // '%2F' inside a segment is a slash in a key segment, not a separator: it stays encoded.
    QCOMPARE(SigV4Signer::canonicalUri(QUrl::fromEncoded("http://gw/b/a%2Fb")), QByteArray("/b/a%2Fb"));
    QCOMPARE(SigV4Signer::canonicalUri(QUrl::fromEncoded("http://gw/b//double")), QByteArray("/b//double"));
}

void TestSigV4::canonicalQuerySortsAndEncodes()
{
    QCOMPARE(SigV4Signer::canonicalQuery(QUrl::fromEncoded("http://gw/b?uploads")), QByteArray("uploads="));
    QCOMPARE(SigV4Signer::canonicalQuery(QUrl::fromEncoded("http://gw/b/k?uploadId=2~x%2By&partNumber=10")),
             QByteArray("partNumber=10&uploadId=2~x%2By"));
    QCOMPARE(SigV4Signer::canonicalQuery(QUrl::fromEncoded("http://gw/b?prefix=a%20b/c&uploads=")),
             QByteArray("prefix=a%20b%2Fc&uploads="));
    QCOMPARE(SigV4Signer::canonicalQuery(QUrl::fromEncoded("http://gw/b")), QByteArray());
}

void TestSigV4::hostHeaderFollowsQt()
{
    QCOMPARE(SigV4Signer::hostHeader(QUrl(QStringLiteral("http://127.0.0.1:7480/b"))),
             QByteArray("127.0.0.1:7480"));
    QCOMPARE(SigV4Signer::hostHeader(QUrl(QStringLiteral("http://gw:80/b"))), QByteArray("gw"));
    QCOMPARE(SigV4Signer::hostHeader(QUrl(QStringLiteral("https://GW.example:443/b"))),
             QByteArray("gw.example"));
    QCOMPARE(SigV4Signer::hostHeader(QUrl(QStringLiteral("https://gw:8443/b"))), QByteArray("gw:8443"));
    QCOMPARE(SigV4Signer::hostHeader(QUrl(QStringLiteral("http://[::1]:7480/b"))), QByteArray("[::1]:7480"));
}

void TestSigV4::headersAreLowercasedTrimmedAndFolded()
{
    const SigV4Signer signer(exampleCredentials(), QStringLiteral("us-east-1"));
    const SigV4Signature signed_ =
        signer.sign("PUT", QUrl(QStringLiteral("http://gw/b/k")),
                    {{"X-Amz-Meta-Note", "  two   spaces  "}, {"x-amz-meta-note", "again"}},
                    SigV4Signer::UnsignedPayload, exampleTime());
    QVERIFY2(signed_.canonicalRequest.contains("\nx-amz-meta-note:two spaces,again\n"),
             signed_.canonicalRequest.constData());
    QCOMPARE(signed_.signedHeaders, QByteArray("host;x-amz-content-sha256;x-amz-date;x-amz-meta-note"));
    QVERIFY(signed_.canonicalRequest.endsWith("\nUNSIGNED-PAYLOAD"));
}

void TestSigV4::sessionTokenIsSentAndSigned()
{
    S3Credentials credentials = exampleCredentials();
    credentials.sessionToken = QStringLiteral("FQoGZXIvYXdzEXAMPLETOKEN");
    const SigV4Signer signer(credentials, QStringLiteral("eu-west-1"));
    const SigV4Signature signed_ = signer.sign("GET", QUrl(QStringLiteral("http://gw/b/k")), {},
                                               SigV4Signer::EmptyPayloadHash, exampleTime());
    QCOMPARE(headerValue(signed_.headersToAdd, "x-amz-security-token"),
             QByteArray("FQoGZXIvYXdzEXAMPLETOKEN"));
    QVERIFY(signed_.signedHeaders.contains("x-amz-security-token"));
    QVERIFY(signed_.authorization.contains("/20130524/eu-west-1/s3/aws4_request,"));
}

void TestSigV4::callerCannotOverrideSigningHeaders()
{
    // A stale x-amz-date or a Host from the caller must not be signed next to ours.
    const SigV4Signer signer(exampleCredentials(), QStringLiteral("us-east-1"));
    const SigV4Signature signed_ =
        signer.sign("GET", QUrl(QStringLiteral("https://examplebucket.s3.amazonaws.com/test.txt")),
                    {{"Range", "bytes=0-9"}, {"X-Amz-Date", "19990101T000000Z"}, {"Host", "elsewhere"}},
                    SigV4Signer::EmptyPayloadHash, exampleTime());
    QCOMPARE(signed_.signature,
             QByteArray("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"));
}

void TestSigV4::matchesCurlAwsSigv4_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("pathAndQuery");
    QTest::newRow("list buckets") << QByteArray("GET") << QByteArray("/");
    QTest::newRow("object") << QByteArray("GET") << QByteArray("/bucket/dir/file.bin");
    QTest::newRow("part") << QByteArray("PUT")
                          << QByteArray("/bucket/big.iso?partNumber=3&uploadId=2~abc.DEF");
    QTest::newRow("encoded key") << QByteArray("PUT") << QByteArray("/bucket/a%20b%2Bc/%C3%BC%24.txt");
    QTest::newRow("list uploads") << QByteArray("GET")
                                  << QByteArray("/bucket/?max-uploads=5&prefix=a&uploads=");
}

void TestSigV4::matchesCurlAwsSigv4()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, pathAndQuery);
    const QString curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
    if (curl.isEmpty())
        QSKIP("curl is not installed");
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost));
    const QByteArray url = "http://127.0.0.1:" + QByteArray::number(server.serverPort()) + pathAndQuery;
    QProcess process;
    process.start(curl, {QStringLiteral("-s"), QStringLiteral("-X"), QString::fromLatin1(method),
                         QStringLiteral("--aws-sigv4"), QStringLiteral("aws:amz:us-east-1:s3"),
                         QStringLiteral("--user"), QStringLiteral("AKIDTEST:secret/with+chars"),
                         QStringLiteral("-H"), QStringLiteral("x-amz-content-sha256: UNSIGNED-PAYLOAD"),
                         QString::fromLatin1(url)});
    QVERIFY(server.waitForNewConnection(30000));
    QTcpSocket *socket = server.nextPendingConnection();
    QByteArray head;
    while (!head.contains("\r\n\r\n")) {
        QVERIFY(socket->waitForReadyRead(30000));
        head += socket->readAll();
    }
    socket->write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    socket->flush();
    QVERIFY(process.waitForFinished(30000));
    if (process.readAllStandardError().contains("aws-sigv4"))
        QSKIP("this curl has no --aws-sigv4");

    CapturedRequest request;
    const QList<QByteArray> lines = head.left(head.indexOf("\r\n\r\n")).split('\n');
    const QList<QByteArray> requestLine = lines.first().trimmed().split(' ');
    request.method = requestLine.at(0);
    request.target = requestLine.at(1);
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines.at(i).indexOf(':');
        request.headers.append({lines.at(i).left(colon).trimmed(), lines.at(i).mid(colon + 1).trimmed()});
    }
    const QByteArray authorization = headerValue(request.headers, "Authorization");
    const QByteArray signedList =
        authorization.mid(authorization.indexOf("SignedHeaders=") + 14).split(',').first();
    HttpHeaders toSign;
    for (const QByteArray &name : signedList.split(';')) {
        if (name != "host" && name != "x-amz-date" && name != "x-amz-content-sha256")
            toSign.append({name, headerValue(request.headers, name)});
    }
    const QDateTime time =
        QDateTime::fromString(QString::fromLatin1(headerValue(request.headers, "x-amz-date")),
                              QStringLiteral("yyyyMMdd'T'HHmmss'Z'"));
    QVERIFY(time.isValid());
    const SigV4Signer signer({QStringLiteral("AKIDTEST"), QStringLiteral("secret/with+chars"), {}, {}},
                             QStringLiteral("us-east-1"));
    const SigV4Signature ours = signer.sign(
        request.method,
        QUrl::fromEncoded("http://127.0.0.1:" + QByteArray::number(server.serverPort()) + request.target),
        toSign, SigV4Signer::UnsignedPayload, QDateTime(time.date(), time.time(), QTimeZone::utc()));
    // curl separates the fields with ", ", we with ","; both are valid.
    QCOMPARE(ours.authorization, QByteArray(authorization).replace(", ", ","));
}

QTEST_GUILESS_MAIN(TestSigV4)
#include "tst_s3_sigv4.moc"
