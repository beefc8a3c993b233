#include "SettingsStore.h"

#include "SettingsJson.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>
#include <QStandardPaths>

namespace multilane {

SettingsStore::SettingsStore(const QString &userFile, const QString &managedFile, QObject *parent)
    : QObject(parent)
    , m_userFile(userFile)
    , m_managedFile(managedFile)
{
    // Many quick edits (a spin box held down) collapse into one write.
    m_saveTimer.setSingleShot(true);
    m_saveTimer.setInterval(500);
    connect(&m_saveTimer, &QTimer::timeout, this, [this] { saveNow(); });
}

SettingsStore::~SettingsStore()
{
    if (m_dirty)
        saveNow();
}

QString SettingsStore::defaultUserFile()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) +
           QStringLiteral("/settings.json");
}

QString SettingsStore::defaultManagedFile()
{
    const QString overridden = qEnvironmentVariable("MULTILANE_MANAGED_CONFIG");
    return overridden.isEmpty() ? QStringLiteral("/etc/xdg/Multilane/managed.json") : overridden;
}

static std::optional<QJsonObject> readObject(const QString &path, QStringList &warnings)
{
    QFile file(path);
    if (!file.exists())
        return std::nullopt;
    if (!file.open(QIODevice::ReadOnly)) {
        warnings.append(QStringLiteral("cannot read %1 (%2)").arg(path, file.errorString()));
        return std::nullopt;
    }
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &error);
    if (!document.isObject()) {
        warnings.append(
            QStringLiteral("%1 is not a JSON object (%2); it is ignored").arg(path, error.errorString()));
        return std::nullopt;
    }
    return document.object();
}

QStringList SettingsStore::load()
{
    QStringList warnings;
    m_managedValues = UserSettings();
    m_locked.clear();
    m_managedBy.clear();
    if (const std::optional<QJsonObject> managed = readObject(m_managedFile, warnings)) {
        for (const QString &problem :
             SettingsJson::apply(managed->value(QLatin1String("settings")).toObject(), m_managedValues))
            warnings.append(m_managedFile + QStringLiteral(": ") + problem);
        for (const QJsonValue &key : managed->value(QLatin1String("locked")).toArray())
            m_locked.insert(key.toString());
        m_managedBy = managed->value(QLatin1String("managedBy")).toString();
    }
    if (m_managedBy.isEmpty())
        m_managedBy = tr("your administrator");

    m_values = m_managedValues;
    if (const std::optional<QJsonObject> user = readObject(m_userFile, warnings)) {
        QJsonObject unlocked = *user;
        for (const QString &key : std::as_const(m_locked))
            unlocked.remove(key);
        for (const QString &problem : SettingsJson::apply(unlocked, m_values))
            warnings.append(m_userFile + QStringLiteral(": ") + problem);
    }
    Q_EMIT changed();
    return warnings;
}

QStringList SettingsStore::update(const UserSettings &values)
{
    // Compare through JSON so every key is handled the same way, with no list to keep in step.
    const QJsonObject wanted = SettingsJson::toJson(values);
    const QJsonObject managed = SettingsJson::toJson(m_managedValues);
    QJsonObject accepted = wanted;
    QStringList refused;
    for (const QString &key : std::as_const(m_locked)) {
        if (!wanted.contains(key))
            continue;
        if (wanted.value(key) != managed.value(key))
            refused.append(key);
        accepted.insert(key, managed.value(key));
    }
    UserSettings next = values;
    SettingsJson::apply(accepted, next);
    if (m_locked.contains(SettingKeys::endpoints()))
        next.endpoints = m_managedValues.endpoints; // with the admin's tokens, which JSON left out
    m_values = next;
    m_dirty = true;
    m_saveTimer.start();
    Q_EMIT changed();
    return refused;
}

std::optional<QString> SettingsStore::saveNow()
{
    m_saveTimer.stop();
    QDir().mkpath(QFileInfo(m_userFile).absolutePath());
    QSaveFile file(m_userFile);
    if (!file.open(QIODevice::WriteOnly))
        return QStringLiteral("cannot write %1 (%2)").arg(m_userFile, file.errorString());
    file.write(QJsonDocument(SettingsJson::toJson(m_values)).toJson());
    if (!file.commit())
        return QStringLiteral("cannot save %1 (%2)").arg(m_userFile, file.errorString());
    m_dirty = false;
    return std::nullopt;
}

} // namespace multilane
