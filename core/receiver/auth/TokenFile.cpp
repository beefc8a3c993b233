#include "TokenFile.h"

#include "ByteSize.h"
#include "Sha256.h"
#include "UploadPath.h"

#include <QFile>
#include <QHash>
#include <QStringList>
#include <algorithm>

namespace multilane::TokenFile {

namespace {

// RFC 6750's token68 characters: what fits in a Bearer header without quoting.
bool isTokenCharacter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '=';
}

bool isIdCharacter(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9') || c == u'-' ||
           c == u'.' || c == u'_' || c == u'@';
}

QByteArray sha256Of(const QByteArray &text)
{
    Sha256 hash;
    hash.addData(text);
    return hash.hexDigest();
}

// Checks the token field; the message never repeats the token.
QString tokenProblem(const QByteArray &token)
{
    if (token.size() < MinTokenLength)
        return QStringLiteral("the token is %1 characters long; use at least %2 random characters "
                              "(e.g. the output of `openssl rand -hex 32`)")
            .arg(token.size())
            .arg(MinTokenLength);
    if (token.size() > MaxTokenLength)
        return QStringLiteral("the token is longer than %1 characters").arg(MaxTokenLength);
    for (const char c : token) {
        if (!isTokenCharacter(c))
            return QStringLiteral("the token contains a character other than letters, digits and "
                                  "- . _ ~ + / =");
    }
    return {};
}

class LineParser {
public:
    explicit LineParser(AccessToken &token)
        : m_token(token)
    {}

    // Applies one key=value setting; returns what is wrong with it, or an empty string.
    QString apply(const QByteArray &field)
    {
        const qsizetype equals = field.indexOf('=');
        if (equals <= 0)
            return QStringLiteral("expected key=value after the token, found '%1'")
                .arg(QString::fromUtf8(field.left(60)));
        const QString key = QString::fromUtf8(field.left(equals));
        const QString value = QString::fromUtf8(field.mid(equals + 1));
        if (m_seen.contains(key))
            return QStringLiteral("'%1' is set twice").arg(key);
        m_seen.append(key);
        if (key == u"id")
            return setId(value);
        if (key == u"folder")
            return setFolder(value);
        if (key == u"quota")
            return setQuota(value);
        return QStringLiteral("unknown setting '%1'; the settings are id=, folder= and quota=")
            .arg(key.left(40));
    }

private:
    QString setId(const QString &value)
    {
        if (value.isEmpty() || value.size() > 64 || !std::all_of(value.begin(), value.end(), isIdCharacter))
            return QStringLiteral("id '%1' must be 1 to 64 letters, digits or - . _ @").arg(value.left(70));
        m_token.id = value;
        return {};
    }

    QString setFolder(QString value)
    {
        while (value.endsWith(u'/'))
            value.chop(1);
        if (value.isEmpty())
            return QStringLiteral("folder is empty; leave folder= out to allow the whole storage folder");
        if (const auto problem = UploadPath::problem(value.toUtf8()))
            return QStringLiteral("folder '%1': %2; give a folder relative to --storage")
                .arg(value.left(100), *problem);
        m_token.folder = value;
        return {};
    }

    QString setQuota(const QString &value)
    {
        const auto bytes = ByteSize::parse(value);
        if (!bytes || *bytes <= 0)
            return QStringLiteral("quota '%1' is not a size such as 500M, 50G or 2T").arg(value.left(40));
        m_token.quota = *bytes;
        return {};
    }

    AccessToken &m_token;
    QStringList m_seen;
};

} // namespace

QString defaultId(const QByteArray &sha256Hex)
{
    return QString::fromLatin1(sha256Hex.left(8));
}

Result parse(const QByteArray &content, const QString &fileName)
{
    Result result;
    QHash<QByteArray, int> lineOfDigest;
    QHash<QString, int> lineOfId;
    const QList<QByteArray> lines = content.split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const int lineNumber = int(i) + 1;
        const auto fail = [&](const QString &what) {
            result.tokens.clear();
            result.error = QStringLiteral("%1:%2: %3").arg(fileName).arg(lineNumber).arg(what);
            return result;
        };
        const QByteArray line = lines.at(i).simplified();
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        QList<QByteArray> fields = line.split(' ');
        // A field that starts with '#' begins a comment (no token or setting contains one).
        for (qsizetype f = 0; f < fields.size(); ++f) {
            if (fields.at(f).startsWith('#')) {
                fields.resize(f);
                break;
            }
        }
        const QByteArray secret = fields.takeFirst();
        if (const QString problem = tokenProblem(secret); !problem.isEmpty())
            return fail(problem);
        AccessToken token;
        token.sha256 = sha256Of(secret);
        token.line = lineNumber;
        LineParser settings(token);
        for (const QByteArray &field : fields) {
            if (const QString problem = settings.apply(field); !problem.isEmpty())
                return fail(problem);
        }
        if (token.id.isEmpty())
            token.id = defaultId(token.sha256);
        if (const int earlier = lineOfDigest.value(token.sha256); earlier > 0)
            return fail(
                QStringLiteral("the same token is on line %1; every token must be different").arg(earlier));
        if (const int earlier = lineOfId.value(token.id); earlier > 0)
            return fail(QStringLiteral("id '%1' is already used on line %2; give each token its own id=")
                            .arg(token.id)
                            .arg(earlier));
        lineOfDigest.insert(token.sha256, lineNumber);
        lineOfId.insert(token.id, lineNumber);
        result.tokens.append(token);
    }
    if (result.tokens.isEmpty())
        result.error =
            QStringLiteral("%1: no tokens in the file; write one token per line (docs/admin.md) or "
                           "leave out --token-file")
                .arg(fileName);
    return result;
}

Result load(const QString &fileName)
{
    QFile file(fileName);
    if (!file.open(QIODevice::ReadOnly))
        return {{}, QStringLiteral("cannot read the token file %1: %2").arg(fileName, file.errorString())};
    if (file.size() > 16 * 1024 * 1024)
        return {{}, QStringLiteral("%1 is larger than 16 MiB; is it really a token file?").arg(fileName)};
    return parse(file.readAll(), fileName);
}

} // namespace multilane::TokenFile
