#include "QtMessages.h"

#include <QRegularExpression>

namespace QtMessages {

static const char Pattern[] = "[qt-message] %{type} %{category}: %{message}";

QProcessEnvironment marked(QProcessEnvironment base)
{
    base.insert(QStringLiteral("QT_MESSAGE_PATTERN"), QLatin1String(Pattern));
    return base;
}

QStringList find(const QByteArray &stderrText)
{
    // "QIODevice::read (QNetworkReplyHttpImpl): device not open", "QNetworkReplyImplPrivate::error:",
    // "QCommandLineParser: option not defined", "qt.network.ssl: …"
    static const QRegularExpression looksLikeQt(
        QStringLiteral("^(Q[A-Z]\\w*(::~?\\w+)*\\s*(\\([^)]*\\))?:\\s|qt\\.[a-z0-9_.]+:\\s)"));
    QStringList found;
    for (const QByteArray &raw : stderrText.split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (line.contains(QLatin1String(Marker)) || looksLikeQt.match(line).hasMatch())
            found.append(line);
    }
    return found;
}

} // namespace QtMessages
