#include "S3ProtocolFixture.h"

#include "Md5Digest.h"

#include <QTimeZone>
#include <QUrlQuery>

namespace S3ProtocolFixture {

namespace {

QDateTime fixedTime()
{
    return QDateTime(QDate(2024, 3, 1), QTime(12, 0), QTimeZone::utc());
}

} // namespace

S3Protocol protocol(qint64 sha256BeforeCreateUpTo)
{
    const QList<QUrl> gateways{QUrl(QStringLiteral("http://127.0.0.1:7480")),
                               QUrl(QStringLiteral("http://127.0.0.1:7481"))};
    auto target = S3Target::parse(QStringLiteral("s3://media/in/"), gateways, QStringLiteral("us-east-1"));
    return S3Protocol(target.value(), {QStringLiteral("AKIATESTKEY"), Secret, {}, {}},
                      {sha256BeforeCreateUpTo, fixedTime});
}

Endpoint gateway(int port)
{
    Endpoint endpoint;
    endpoint.url = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    return endpoint;
}

UploadContext upload(const QString &path, qint64 size)
{
    UploadContext context;
    context.endpoint = gateway();
    context.source = {QStringLiteral("/data/") + path, path, size, 1000};
    context.chunkSize = 5 * MiB;
    context.sha256Hex = OurSha;
    return context;
}

UploadContext attached(qint64 size)
{
    UploadContext context = upload(QStringLiteral("a.txt"), size);
    context.uploadId = QStringLiteral("2~abc");
    return context;
}

QByteArray partMd5Hex(int part)
{
    return Md5Digest::of(QByteArray::number(part)).toHex();
}

WireReply answer(int status, const QByteArray &body, const QList<WireHeader> &headers)
{
    WireReply reply;
    reply.httpStatus = status;
    reply.body = body;
    reply.headers = headers;
    return reply;
}

WireReply noAnswer()
{
    WireReply reply;
    reply.networkError = QStringLiteral("Connection refused");
    return reply;
}

QByteArray errorXml(const char *code)
{
    return QByteArray("<?xml version=\"1.0\"?><Error><Code>") + code + "</Code><Message></Message></Error>";
}

WireReply objectHead(qint64 size, const QByteArray &etag, const QByteArray &sha256)
{
    QList<WireHeader> headers{{"Content-Length", QByteArray::number(size)}, {"ETag", '"' + etag + '"'}};
    if (!sha256.isEmpty())
        headers.append({"x-amz-meta-sha256", sha256});
    return answer(200, {}, headers);
}

QByteArray uploadsXml(const QList<std::pair<const char *, const char *>> &uploads, const char *next)
{
    QByteArray xml = "<ListMultipartUploadsResult " + Ns + "><Bucket>media</Bucket>";
    xml += next ? QByteArray("<IsTruncated>true</IsTruncated><NextKeyMarker>in/a.txt</NextKeyMarker>"
                             "<NextUploadIdMarker>") +
                      next + "</NextUploadIdMarker>"
                : QByteArray("<IsTruncated>false</IsTruncated>");
    int minute = 0;
    for (const auto &[key, id] : uploads)
        xml += QByteArray("<Upload><Key>") + key + "</Key><UploadId>" + id +
               "</UploadId><Initiated>2024-02-01T10:0" + QByteArray::number(minute++) +
               ":00.000Z</Initiated></Upload>";
    return xml + "</ListMultipartUploadsResult>";
}

QByteArray partsXml(const QList<std::pair<int, qint64>> &parts, int nextMarker)
{
    QByteArray xml = "<ListPartsResult " + Ns + ">";
    xml += nextMarker > 0 ? "<IsTruncated>true</IsTruncated><NextPartNumberMarker>" +
                                QByteArray::number(nextMarker) + "</NextPartNumberMarker>"
                          : QByteArray("<IsTruncated>false</IsTruncated>");
    for (const auto &[number, size] : parts)
        xml += "<Part><PartNumber>" + QByteArray::number(number) + "</PartNumber><ETag>\"" +
               partMd5Hex(number).toUpper() + "\"</ETag><Size>" + QByteArray::number(size) + "</Size></Part>";
    return xml + "</ListPartsResult>";
}

QString query(const WireRequest &request, const char *name)
{
    return QUrlQuery(request.url).queryItemValue(QLatin1String(name), QUrl::FullyDecoded);
}

bool isSigned(const WireRequest &request)
{
    return request.header("Authorization").startsWith("AWS4-HMAC-SHA256 Credential=AKIATESTKEY/20240301/") &&
           request.header("x-amz-date") == "20240301T120000Z" &&
           !request.header("x-amz-content-sha256").isEmpty();
}

} // namespace S3ProtocolFixture
