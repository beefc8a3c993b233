#include "ChunkChecksum.h"

#include "ChunkHash.h"

#include <QFile>

namespace multilane {

ChunkChecksum::ChunkChecksum(ChunkChecksumKind kind)
    : m_kind(kind)
    , m_xxh3(kind == ChunkChecksumKind::Xxh3 ? std::make_unique<ChunkHash>() : nullptr)
    , m_md5(QCryptographicHash::Md5)
{}

ChunkChecksum::~ChunkChecksum() = default;

void ChunkChecksum::reset()
{
    if (m_xxh3)
        m_xxh3->reset();
    else
        m_md5.reset();
}

void ChunkChecksum::addData(const char *data, qint64 length)
{
    if (m_xxh3)
        m_xxh3->addData(data, std::size_t(length));
    else
        m_md5.addData(QByteArrayView(data, length));
}

QByteArray ChunkChecksum::hex() const
{
    return m_xxh3 ? xxh3Hex(m_xxh3->value()) : m_md5.result().toHex();
}

QByteArray ChunkChecksum::xxh3Hex(std::uint64_t value)
{
    return QByteArray::number(qulonglong(value), 16).rightJustified(16, '0');
}

QByteArray ChunkChecksum::normalised(ChunkChecksumKind kind, const QByteArray &hex)
{
    if (kind == ChunkChecksumKind::Xxh3) {
        bool ok = false;
        const qulonglong value = hex.toULongLong(&ok, 16);
        return ok ? xxh3Hex(value) : QByteArray();
    }
    return hex.toLower();
}

std::optional<QByteArray> ChunkChecksum::ofRange(ChunkChecksumKind kind, const QString &path, qint64 offset,
                                                 qint64 length)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Unbuffered) || !file.seek(offset))
        return std::nullopt;
    ChunkChecksum checksum(kind);
    QByteArray buffer(int(std::clamp<qint64>(length, 1, 1 << 20)), Qt::Uninitialized);
    for (qint64 remaining = length; remaining > 0;) {
        const qint64 got = file.read(buffer.data(), std::min<qint64>(remaining, buffer.size()));
        if (got <= 0)
            return std::nullopt;
        checksum.addData(buffer.constData(), got);
        remaining -= got;
    }
    return checksum.hex();
}

} // namespace multilane
