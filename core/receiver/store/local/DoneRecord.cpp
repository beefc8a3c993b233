#include "DoneRecord.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace multilane::DoneRecord {

QByteArray encode(const FinishedFile &file, qint64 size)
{
    const bool stored = file.status == FinishedFile::Status::Stored;
    const QJsonObject object{
        {QStringLiteral("version"), 1},
        {QStringLiteral("status"), stored ? QStringLiteral("stored") : QStringLiteral("skipped")},
        {QStringLiteral("path"), file.path},
        {QStringLiteral("sha256"), QString::fromLatin1(file.sha256)},
        {QStringLiteral("size"), QString::number(size)},
    };
    return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
}

std::optional<Decoded> decode(const QByteArray &json)
{
    const QJsonObject object = QJsonDocument::fromJson(json).object();
    if (object.value(QStringLiteral("version")).toInt() != 1)
        return std::nullopt;
    Decoded decoded;
    const QString status = object.value(QStringLiteral("status")).toString();
    decoded.file.status =
        status == QLatin1String("skipped") ? FinishedFile::Status::Skipped : FinishedFile::Status::Stored;
    decoded.file.path = object.value(QStringLiteral("path")).toString();
    decoded.file.sha256 = object.value(QStringLiteral("sha256")).toString().toLatin1();
    bool ok = false;
    decoded.size = object.value(QStringLiteral("size")).toString().toLongLong(&ok);
    if (!ok || decoded.file.path.isEmpty())
        return std::nullopt;
    return decoded;
}

} // namespace multilane::DoneRecord
