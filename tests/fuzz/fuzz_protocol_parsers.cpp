// libFuzzer target for the parsers that take untrusted text: the create and complete JSON bodies,
// destination paths, decimal counts, chunk-hash headers and the receiver's size and duration
// flags. Besides crashes and sanitizer reports it checks what each parser promises:
//  - a path UploadPath accepts stays inside the storage folder, and out of its private folder,
//    once joined and cleaned;
//  - a count parseCount accepts prints back as the same digits (no sign, space or overflow);
//  - a created upload's numbers are in their documented ranges.
// The first input byte picks the parser, the rest is its text.
#include "ByteSize.h"
#include "ChunkHash.h"
#include "DurationText.h"
#include "ProtocolJson.h"
#include "RequestRouter.h"
#include "UploadPath.h"

#include <QDir>
#include <cstdint>
#include <cstdlib>

using namespace multilane;

namespace {

void checkPath(const QByteArray &text)
{
    if (UploadPath::problem(text))
        return;
    const QString storage = QStringLiteral("/srv/storage");
    const QString joined = QDir::cleanPath(storage + QLatin1Char('/') + QString::fromUtf8(text));
    const QString privateFolder = storage + QStringLiteral("/.multilane");
    if (!joined.startsWith(storage + QLatin1Char('/')) || joined == privateFolder ||
        joined.startsWith(privateFolder + QLatin1Char('/')))
        std::abort();
}

void checkCount(const QByteArray &text)
{
    const auto count = RequestRouter::parseCount(text);
    if (!count)
        return;
    QByteArray digits = text;
    while (digits.size() > 1 && digits.startsWith('0'))
        digits.remove(0, 1);
    if (*count < 0 || QByteArray::number(*count) != digits)
        std::abort();
}

void checkCreate(const QByteArray &text)
{
    const auto spec = ProtocolJson::parseCreate(text);
    if (!spec)
        return;
    const UploadSpec &value = spec.value();
    if (value.size < 0 || value.chunkSize < 1 || value.chunkSize > (qint64(1) << 30) ||
        (value.size + value.chunkSize - 1) / value.chunkSize > (qint64(1) << 20))
        std::abort();
    checkPath(value.path.toUtf8());
}

void checkHash(const QByteArray &text)
{
    const auto hash = ChunkHash::fromHeader(text);
    if (hash && ChunkHash::toHeader(*hash) != text.trimmed().toLower())
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size == 0)
        return 0;
    const QByteArray text(reinterpret_cast<const char *>(data) + 1, qsizetype(size - 1));
    switch (data[0] % 7) {
    case 0:
        checkPath(text);
        break;
    case 1:
        checkCount(text);
        break;
    case 2:
        checkCreate(text);
        break;
    case 3:
        if (const auto sha = ProtocolJson::parseComplete(text); sha && sha.value().size() != 64)
            std::abort();
        break;
    case 4:
        checkHash(text);
        break;
    case 5:
        ByteSize::parse(QString::fromUtf8(text));
        break;
    case 6:
        DurationText::parse(QString::fromUtf8(text));
        break;
    }
    return 0;
}
