#include "ChunkHash.h"

#include <cctype>

#include <QStringBuilder>
#include <xxhash.h>

namespace multilane {

struct ChunkHash::State {
    XXH3_state_t *xxh = XXH3_createState();
    ~State() { XXH3_freeState(xxh); }
};

ChunkHash::ChunkHash()
    : m_state(std::make_unique<State>())
{
    reset();
}

ChunkHash::~ChunkHash() = default;

void ChunkHash::reset()
{
    XXH3_64bits_reset(m_state->xxh);
}

void ChunkHash::addData(const char *data, std::size_t length)
{
    XXH3_64bits_update(m_state->xxh, data, length);
}

std::uint64_t ChunkHash::value() const
{
    return XXH3_64bits_digest(m_state->xxh);
}

std::uint64_t ChunkHash::of(const char *data, std::size_t length)
{
    return XXH3_64bits(data, length);
}

QByteArray ChunkHash::toHeader(std::uint64_t hash)
{
    return QByteArrayLiteral("xxh3=") + QByteArray::number(qulonglong(hash), 16).rightJustified(16, '0');
}

std::optional<std::uint64_t> ChunkHash::fromHeader(const QByteArray &header)
{
    const QByteArray trimmed = header.trimmed();
    if (!trimmed.startsWith("xxh3=") || trimmed.size() != 5 + 16)
        return std::nullopt;
    // toULongLong alone would also take a sign, "0x", spaces, or stop at a NUL.
    for (const char c : trimmed.mid(5)) {
        if (!std::isxdigit(static_cast<unsigned char>(c)))
            return std::nullopt;
    }
    bool ok = false;
    const qulonglong value = trimmed.mid(5).toULongLong(&ok, 16);
    if (!ok)
        return std::nullopt;
    return value;
}

} // namespace multilane
