#pragma once

#include "S3Protocol.h"

#include <QByteArray>
#include <QString>
#include <utility>

// What tst_s3_protocol builds its cases from: an S3Protocol with a fixed clock and keys, files to
// upload, and recorded S3 answers (errors, HEADs, listing pages) as a gateway sends them.
namespace S3ProtocolFixture {

using namespace multilane;

inline constexpr qint64 MiB = 1 << 20;
inline const QString Secret = QStringLiteral("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
inline const QByteArray OurSha = QByteArray(64, 'a');
inline const QByteArray Ns = "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\""; // S3's XML namespace

// s3://media/in/ on two gateways, signing at 2024-03-01 12:00 UTC.
S3Protocol protocol(qint64 sha256BeforeCreateUpTo = 256 * MiB);
Endpoint gateway(int port = 7480);
// A 23 MiB file in 5 MiB parts: four whole parts and a 3 MiB one.
UploadContext upload(const QString &path = QStringLiteral("a.txt"), qint64 size = 23 * MiB);
// The same, with its multipart upload created.
UploadContext attached(qint64 size = 23 * MiB);
QByteArray partMd5Hex(int part);

WireReply answer(int status, const QByteArray &body = {}, const QList<WireHeader> &headers = {});
WireReply noAnswer();
QByteArray errorXml(const char *code);
WireReply objectHead(qint64 size, const QByteArray &etag, const QByteArray &sha256 = {});
// One ListMultipartUploads page (key, upload id; initiated a minute apart); truncated when `next`
// names the next page's upload id marker.
QByteArray uploadsXml(const QList<std::pair<const char *, const char *>> &uploads,
                      const char *next = nullptr);
// One ListParts page (part number, size; ETag the part's partMd5Hex in capitals and quotes).
QByteArray partsXml(const QList<std::pair<int, qint64>> &parts, int nextMarker = 0);

QString query(const WireRequest &request, const char *name);
bool isSigned(const WireRequest &request);

template<typename Outcome> const Exchange &nextOf(const Step<Outcome> &step)
{
    if (!step.next())
        qFatal("expected a follow-up request, got %s",
               step.failure() ? qPrintable(step.failure()->message) : "an outcome");
    return *step.next();
}

} // namespace S3ProtocolFixture
