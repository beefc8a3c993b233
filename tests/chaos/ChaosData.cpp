#include "ChaosData.h"

#include "TestFiles.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QRandomGenerator>
#include <sys/stat.h>

bool ChaosData::add(const QString &local, const QString &destination, qint64 size, quint32 seed)
{
    m_expected.insert(destination, local);
    m_totalBytes += size;
    return TestFiles::write(local, size, seed);
}

bool ChaosData::write(const QString &folder, const ChaosProfile &profile)
{
    QRandomGenerator random(profile.seed);
    const QDir root(folder);
    bool ok = add(root.filePath(QStringLiteral("big.bin")), QStringLiteral("big.bin"), profile.bigFileBytes,
                  random.generate());
    m_sources.append(root.filePath(QStringLiteral("big.bin")));
    if (profile.mediumFiles > 0)
        m_sources.append(root.filePath(QStringLiteral("medium")));
    for (int i = 0; i < profile.mediumFiles; ++i) {
        const QString name = QStringLiteral("m%1.bin").arg(i);
        const qint64 size = (qint64(2) << 20) + qint64(random.bounded(14 << 20));
        ok = ok && add(root.filePath(QStringLiteral("medium/") + name), QStringLiteral("medium/") + name,
                       size, random.generate());
    }
    m_sources.append(root.filePath(QStringLiteral("small")));
    for (int i = 0; i < profile.smallFiles; ++i) {
        const QString name = QStringLiteral("s%1.dat").arg(i, 3, 10, QLatin1Char('0'));
        const qint64 size = 1 + qint64(random.bounded(int(profile.smallFileMaxBytes)));
        ok = ok && add(root.filePath(QStringLiteral("small/") + name), QStringLiteral("small/") + name, size,
                       random.generate());
    }
    // Legal on Linux, refused raw by the protocol: sent under their escaped names (docs/protocol.md).
    const QList<std::pair<QString, QString>> odd{
        {QStringLiteral("back\\slash.txt"), QStringLiteral("back%5Cslash.txt")},
        {QStringLiteral("new\nline.txt"), QStringLiteral("new%0Aline.txt")},
        {QStringLiteral("100%41.txt"), QStringLiteral("100%2541.txt")},
        {QStringLiteral("50% off.txt"), QStringLiteral("50% off.txt")}};
    for (const auto &[name, stored] : odd)
        ok = ok && add(root.filePath(QStringLiteral("small/") + name), QStringLiteral("small/") + stored, 777,
                       random.generate());
    m_fifo = root.filePath(QStringLiteral("small/pipe"));
    return ok && ::mkfifo(QFile::encodeName(m_fifo).constData(), 0600) == 0;
}

QStringList ChaosData::problemsIn(const QString &storage) const
{
    QStringList problems;
    const QDir root(storage);
    for (auto it = m_expected.cbegin(); it != m_expected.cend(); ++it) {
        const QString stored = root.filePath(it.key());
        if (!QFileInfo::exists(stored))
            problems.append(QStringLiteral("missing: %1").arg(it.key()));
        else if (!TestFiles::sameContents(it.value(), stored))
            problems.append(QStringLiteral("different: %1").arg(it.key()));
    }
    QDirIterator files(storage, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        const QString relative = root.relativeFilePath(files.next());
        if (!relative.startsWith(QLatin1String(".multilane/")) && !m_expected.contains(relative))
            problems.append(QStringLiteral("extra: %1").arg(relative));
    }
    return problems;
}
