#include "TestFiles.h"

#include "Sha256.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>

namespace TestFiles {

bool write(const QString &path, qint64 size, quint32 seed)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    QRandomGenerator random(seed);
    QByteArray block(1 << 20, Qt::Uninitialized);
    qint64 left = size;
    while (left > 0) {
        const qint64 n = std::min<qint64>(left, block.size());
        random.fillRange(reinterpret_cast<quint32 *>(block.data()), block.size() / 4);
        if (file.write(block.constData(), n) != n)
            return false;
        left -= n;
    }
    return true;
}

QByteArray sha256(const QString &path)
{
    return multilane::Sha256::ofFile(path).value_or(QByteArray());
}

bool sameContents(const QString &a, const QString &b)
{
    const QByteArray left = sha256(a);
    return !left.isEmpty() && QFileInfo(a).size() == QFileInfo(b).size() && left == sha256(b);
}

} // namespace TestFiles
