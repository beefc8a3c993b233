#include "KeychainTokenStore.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QTimer>
#include <qt6keychain/keychain.h>

namespace multilane {

static const QString &service()
{
    static const QString name = QStringLiteral("Multilane endpoint tokens");
    return name;
}

// QtKeychain jobs are asynchronous; tokens are read once at start and written when the endpoints
// dialog closes, so a short local wait (bounded: a hung keyring must not hang the app) is simpler
// than threading callbacks through every caller.
static bool runJob(QKeychain::Job &job)
{
    QEventLoop loop;
    bool finished = false;
    QObject::connect(&job, &QKeychain::Job::finished, &loop, [&] {
        finished = true;
        loop.quit();
    });
    QTimer::singleShot(5000, &loop, &QEventLoop::quit);
    job.setAutoDelete(false);
    job.start();
    loop.exec(QEventLoop::ExcludeUserInputEvents);
    return finished;
}

static bool keyringMissing(QKeychain::Error error)
{
    return error == QKeychain::NoBackendAvailable || error == QKeychain::NotImplemented ||
           error == QKeychain::OtherError || error == QKeychain::AccessDeniedByUser;
}

KeychainTokenStore::KeychainTokenStore(TokenStore &fallback)
    : m_fallback(fallback)
{}

QByteArray KeychainTokenStore::read(const QString &key)
{
    if (m_usingFallback)
        return m_fallback.read(key);
    QKeychain::ReadPasswordJob job(service());
    job.setKey(key);
    if (!runJob(job) || keyringMissing(job.error())) {
        m_usingFallback = true;
        return m_fallback.read(key);
    }
    return job.error() == QKeychain::NoError ? job.binaryData() : QByteArray();
}

std::optional<QString> KeychainTokenStore::write(const QString &key, const QByteArray &token)
{
    if (m_usingFallback)
        return m_fallback.write(key, token);
    if (token.isEmpty()) {
        QKeychain::DeletePasswordJob job(service());
        job.setKey(key);
        runJob(job);
        return std::nullopt; // nothing there to delete is fine
    }
    QKeychain::WritePasswordJob job(service());
    job.setKey(key);
    job.setBinaryData(token);
    if (!runJob(job) || keyringMissing(job.error())) {
        m_usingFallback = true;
        return m_fallback.write(key, token);
    }
    if (job.error() != QKeychain::NoError)
        return QStringLiteral("the keyring refused the token for %1 (%2)").arg(key, job.errorString());
    return std::nullopt;
}

QString KeychainTokenStore::description() const
{
    return m_usingFallback
               ? m_fallback.description()
               : QCoreApplication::translate(
                     "KeychainTokenStore", "Tokens are kept in the desktop keyring, not in settings files.");
}

} // namespace multilane
