#include "AwsConfigFile.h"

#include <QFile>
#include <QStringList>

namespace multilane {

AwsConfigFile AwsConfigFile::fromText(const QString &text)
{
    AwsConfigFile file;
    QString section;
    QString nestedUnder; // the key of an "s3 =" line whose indented lines follow
    for (const QString &rawLine : text.split(QLatin1Char('\n'))) {
        const QString line = rawLine.trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')) || line.startsWith(QLatin1Char(';')))
            continue;
        if (line.startsWith(QLatin1Char('[')) && line.endsWith(QLatin1Char(']'))) {
            section = line.mid(1, line.size() - 2).trimmed();
            file.m_sections[section]; // an empty section still names a profile
            nestedUnder.clear();
            continue;
        }
        const qsizetype equals = line.indexOf(QLatin1Char('='));
        if (equals <= 0 || section.isEmpty())
            continue;
        const QString key = line.left(equals).trimmed().toLower();
        const QString value = line.mid(equals + 1).trimmed();
        const bool indented = rawLine.front().isSpace();
        if (indented && !nestedUnder.isEmpty()) {
            file.m_sections[section].insert(nestedUnder + QLatin1Char('.') + key, value);
            continue;
        }
        nestedUnder = value.isEmpty() ? key : QString();
        file.m_sections[section].insert(key, value);
    }
    return file;
}

std::optional<AwsConfigFile> AwsConfigFile::read(const QString &path)
{
    QFile file(path);
    if (!file.exists())
        return AwsConfigFile();
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    return fromText(QString::fromUtf8(file.readAll()));
}

} // namespace multilane
