#include "S3ConflictCheck.h"

namespace multilane::S3ConflictCheck {

QString numberedPath(const QString &path, int number)
{
    const qsizetype slash = path.lastIndexOf(QLatin1Char('/'));
    const qsizetype dot = path.lastIndexOf(QLatin1Char('.'));
    const bool hasExtension = dot > slash + 1;
    const QString stem = hasExtension ? path.left(dot) : path;
    const QString extension = hasExtension ? path.mid(dot) : QString();
    return stem + QStringLiteral(" (") + QString::number(number) + QLatin1Char(')') + extension;
}

S3ConflictDecision decide(const std::optional<S3ObjectHead> &object, const SourceFile &source,
                          const QByteArray &sha256Hex, ConflictPolicy policy, const QString &where)
{
    using Action = S3ConflictDecision::Action;
    if (!object)
        return {Action::Write, {}, {}};
    const bool sameSize = object->size == source.size && !object->sha256Hex.isEmpty();
    if (sameSize && !sha256Hex.isEmpty() && object->sha256Hex == sha256Hex.toLower())
        return {Action::Skip, {}, {}};
    // Our hash is not known yet (a large file starts sending at once): the engine decides later.
    const QByteArray existing = sameSize && sha256Hex.isEmpty() ? object->sha256Hex : QByteArray();
    switch (policy) {
    case ConflictPolicy::Skip:
        return {Action::Skip, {}, {}};
    case ConflictPolicy::Overwrite:
        return {Action::Write, existing, {}};
    case ConflictPolicy::Rename:
        return {Action::TryNextName, existing, {}};
    case ConflictPolicy::Fail:
        break;
    }
    return {Action::Refuse,
            {},
            QStringLiteral("%1 already exists and --on-conflict is fail; choose rename, overwrite or skip, "
                           "or remove it there")
                .arg(where)};
}

} // namespace multilane::S3ConflictCheck
