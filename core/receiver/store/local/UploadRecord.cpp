#include "UploadRecord.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace multilane::UploadRecord {

QByteArray encode(const UploadSpec &spec)
{
    const QJsonObject object{
        {QStringLiteral("version"), 1},
        {QStringLiteral("path"), spec.path},
        // Sizes go in as strings: a JSON number (double) loses precision above 2^53.
        {QStringLiteral("size"), QString::number(spec.size)},
        {QStringLiteral("mtime"), QString::number(spec.mtime)},
        {QStringLiteral("chunkSize"), QString::number(spec.chunkSize)},
        {QStringLiteral("onConflict"), QString::fromLatin1(conflictPolicyName(spec.onConflict))},
    };
    return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
}

std::optional<UploadSpec> decode(const QByteArray &json)
{
    const QJsonObject object = QJsonDocument::fromJson(json).object();
    if (object.value(QStringLiteral("version")).toInt() != 1)
        return std::nullopt;
    bool sizeOk = false, mtimeOk = false, chunkOk = false;
    UploadSpec spec;
    spec.path = object.value(QStringLiteral("path")).toString();
    spec.size = object.value(QStringLiteral("size")).toString().toLongLong(&sizeOk);
    spec.mtime = object.value(QStringLiteral("mtime")).toString().toLongLong(&mtimeOk);
    spec.chunkSize = object.value(QStringLiteral("chunkSize")).toString().toLongLong(&chunkOk);
    const auto policy =
        conflictPolicyFromName(object.value(QStringLiteral("onConflict")).toString().toLatin1());
    if (!sizeOk || !mtimeOk || !chunkOk || !policy || spec.path.isEmpty() || spec.chunkSize <= 0)
        return std::nullopt;
    spec.onConflict = *policy;
    return spec;
}

} // namespace multilane::UploadRecord
