#include "FileTokenStore.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>
#include <QStandardPaths>

namespace multilane {

FileTokenStore::FileTokenStore(const QString &path)
    : m_path(path)
{}

QString FileTokenStore::defaultPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) +
           QStringLiteral("/tokens.json");
}

QByteArray FileTokenStore::read(const QString &key)
{
    if (!m_loaded) {
        QFile file(m_path);
        if (file.open(QIODevice::ReadOnly))
            m_tokens = QJsonDocument::fromJson(file.readAll()).object();
        m_loaded = true;
    }
    return m_tokens.value(key).toString().toUtf8();
}

std::optional<QString> FileTokenStore::write(const QString &key, const QByteArray &token)
{
    read(key);
    if (token.isEmpty() ? !m_tokens.contains(key) : m_tokens.value(key).toString().toUtf8() == token)
        return std::nullopt;
    if (token.isEmpty())
        m_tokens.remove(key);
    else
        m_tokens.insert(key, QString::fromUtf8(token));
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    QSaveFile file(m_path);
    // Owner-only from the first byte: QSaveFile keeps these permissions for the renamed file.
    if (!file.open(QIODevice::WriteOnly))
        return QStringLiteral("cannot write %1 (%2)").arg(m_path, file.errorString());
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(QJsonDocument(m_tokens).toJson());
    if (!file.commit())
        return QStringLiteral("cannot save %1 (%2)").arg(m_path, file.errorString());
    return std::nullopt;
}

QString FileTokenStore::description() const
{
    return QCoreApplication::translate(
               "FileTokenStore", "No desktop keyring answered: tokens are kept in %1, readable only by you.")
        .arg(QDir::toNativeSeparators(m_path));
}

} // namespace multilane
