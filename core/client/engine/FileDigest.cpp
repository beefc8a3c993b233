#include "FileDigest.h"

#include "Sha256.h"

#include <QFile>
#include <QScopeGuard>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace multilane {

std::optional<FileDigest> FileDigest::ofFile(const QString &path, qint64 chunkSize, ChunkChecksumKind kind)
{
    // A plain descriptor: QFile adds two fstat() calls and a third read() a file, which at 100,000
    // small files is a tenth of what this thread does.
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    const auto closeFile = qScopeGuard([fd] { ::close(fd); });
    FileDigest digest;
    digest.chunkSize = std::max<qint64>(0, chunkSize);
    Sha256 sha;
    ChunkChecksum chunk(kind);
    qint64 inChunk = 0; // bytes of the current chunk checksummed so far
    // One buffer a thread, not a megabyte allocated for every file.
    thread_local QByteArray buffer(1 << 20, Qt::Uninitialized);
    for (;;) {
        const qint64 got = ::read(fd, buffer.data(), std::size_t(buffer.size()));
        if (got < 0 && errno == EINTR)
            continue;
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
