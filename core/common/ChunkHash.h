#pragma once

#include <QByteArray>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

namespace multilane {

// Streaming XXH3-64 of one chunk: fast enough (~20 GB/s) to run on every byte sent and received.
class ChunkHash {
public:
    ChunkHash();
    ~ChunkHash();
    ChunkHash(const ChunkHash &) = delete;
    ChunkHash &operator=(const ChunkHash &) = delete;

    void reset();
    void addData(const char *data, std::size_t length);
    std::uint64_t value() const;

    static std::uint64_t of(const char *data, std::size_t length);
    // "xxh3=<16 hex digits>", the X-Chunk-Hash header value.
    static QByteArray toHeader(std::uint64_t hash);
    static std::optional<std::uint64_t> fromHeader(const QByteArray &header);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace multilane
