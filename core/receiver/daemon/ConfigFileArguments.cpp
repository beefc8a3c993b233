#include "ConfigFileArguments.h"

#include <QFile>
#include <QStringBuilder>

namespace multilane {

namespace {

std::optional<bool> parseBoolean(const QString &text)
{
    const QString lower = text.toLower();
    if (lower == QLatin1String("true") || lower == QLatin1String("yes") || lower == QLatin1String("on") ||
        lower == QLatin1String("1"))
        return true;
    if (lower == QLatin1String("false") || lower == QLatin1String("no") || lower == QLatin1String("off") ||
        lower == QLatin1String("0"))
        return false;
    return std::nullopt;
}

// "value" or 'value' → value, so a path with spaces at either end can be written.
QString unquoted(const QString &value)
{
    if (value.size() >= 2 && (value.front() == QLatin1Char('"') || value.front() == QLatin1Char('\'')) &&
        value.back() == value.front())
        return value.mid(1, value.size() - 2);
    return value;
}

} // namespace

ConfigFileArguments::ConfigFileArguments(QList<QCommandLineOption> options)
    : m_options(std::move(options))
{}

const QCommandLineOption *ConfigFileArguments::find(const QString &key) const
{
    for (const QCommandLineOption &option : m_options) {
        if (option.names().contains(key))
            return &option;
    }
    return nullptr;
}

ConfigFileArguments::Result ConfigFileArguments::read(const QString &path,
                                                      const QStringList &givenOnCommandLine) const
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {{}, path % QStringLiteral(": cannot read the config file: ") % file.errorString()};
    return parse(file.readAll(), path, givenOnCommandLine);
}

ConfigFileArguments::Result ConfigFileArguments::parse(const QByteArray &content, const QString &fileName,
                                                       const QStringList &givenOnCommandLine) const
{
    Result result;
    const QList<QByteArray> lines = content.split('\n');
    for (qsizetype number = 1; number <= lines.size(); ++number) {
        const QString line = QString::fromUtf8(lines.at(number - 1)).trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')) || line.startsWith(QLatin1Char(';')))
            continue;
        const auto fail = [&](const QString &message) {
            return Result{
                {}, fileName % QLatin1Char(':') % QString::number(number) % QStringLiteral(": ") % message};
        };
        const qsizetype equals = line.indexOf(QLatin1Char('='));
        if (equals < 0)
            return fail(QStringLiteral("expected 'key = value', e.g. 'storage = /srv/inbox', not '%1'")
                            .arg(line.left(80)));
        const QString key = line.left(equals).trimmed();
        const QString value = unquoted(line.mid(equals + 1).trimmed());
        if (key == QLatin1String("config"))
            return fail(QStringLiteral("a config file cannot name another config file"));
        const QCommandLineOption *option = key.startsWith(QLatin1Char('-')) ? nullptr : find(key);
        if (!option)
            return fail(
                QStringLiteral("unknown key '%1'; the keys are the receiver's long flags without the dashes "
                               "(see multilane-receiver --help)")
                    .arg(key.left(80)));
        if (givenOnCommandLine.contains(key))
            continue; // the command line replaces the file's value(s)
        if (option->valueName().isEmpty()) {
            const auto enabled = parseBoolean(value);
            if (!enabled)
                return fail(QStringLiteral("'%1' is a switch: write '%1 = true' or '%1 = false', not '%2'")
                                .arg(key, value.left(80)));
            if (*enabled)
                result.arguments.append(QStringLiteral("--") + key);
            continue;
        }
        if (value.isEmpty())
            return fail(QStringLiteral("'%1' needs a value (%2)").arg(key, option->valueName()));
        result.arguments.append(QStringLiteral("--") % key % QLatin1Char('=') % value);
    }
    return result;
}

} // namespace multilane
