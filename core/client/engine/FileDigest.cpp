#include "FileDigest.h"

#include "Sha256.h"

#include <QFile>

namespace multilane {

std::optional<FileDigest> FileDigest::ofFile(const QString &path, qint64 chunkSize, ChunkChecksumKind kind)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    FileDigest digest;
    digest.chunkSize = std::max<qint64>(0, chunkSize);
    Sha256 sha;
    ChunkChecksum chunk(kind);
    qint64 inChunk = 0; // bytes of the current chunk checksummed so far
    QByteArray buffer(1 << 20, Qt::Uninitialized);
    for (;;) {
        const qint64 got = file.read(buffer.data(), buffer.size());
        if (got < 0)
            return std::nullopt;
        if (got == 0)
            break;
        sha.addData(buffer.constData(), std::size_t(got));
        for (qint64 used = 0; digest.chunkSize > 0 && used < got;) {
            const qint64 take = std::min(got - used, digest.chunkSize - inChunk);
            chunk.addData(buffer.constData() + used, take);
            used += take;
            inChunk += take;
            if (inChunk == digest.chunkSize) {
                digest.chunkChecksums.append(chunk.hex());
                chunk.reset();
                inChunk = 0;
            }
        }
    }
    if (inChunk > 0)
        digest.chunkChecksums.append(chunk.hex());
    digest.sha256Hex = sha.hexDigest();
    return digest;
}

} // namespace multilane
