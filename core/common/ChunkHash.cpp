#include "ChunkHash.h"

#include <cctype>

#include <QStringBuilder>
#include <xxhash.h>
#if defined(__x86_64__)
#include <xxh_x86dispatch.h>
#endif

namespace multilane {

namespace {

// libxxhash's dispatching entry points pick AVX2 or AVX-512 at run time; the plain ones are built
// for the baseline (SSE2) and take twice the time per byte on the machines this was measured on.
void updateXxh3(XXH3_state_t *state, const char *data, std::size_t length)
{
#if defined(__x86_64__)
    XXH3_64bits_update_dispatch(state, data, length);
#else
    XXH3_64bits_update(state, data, length);
#endif
}

std::uint64_t xxh3Of(const char *data, std::size_t length)
{
#if defined(__x86_64__)
    return XXH3_64bits_dispatch(data, length);
#else
    return XXH3_64bits(data, length);
#endif
}

} // namespace

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
    updateXxh3(m_state->xxh, data, length);
}

std::uint64_t ChunkHash::value() const
{
    return XXH3_64bits_digest(m_state->xxh);
}

std::uint64_t ChunkHash::of(const char *data, std::size_t length)
{
    return xxh3Of(data, length);
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
