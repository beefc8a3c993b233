#pragma once

#include "BodyReader.h"
#include "ProtocolError.h"

#include <QtGlobal>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace multilane {

class HashPipeline;

// Copies a streamed request body into a file at an offset. The HTTP layer hands over 4 KiB
// pieces; they are gathered into a 1 MiB buffer so the disk sees few large pwrite()s.
// Memory per request is that one buffer, whatever the chunk size.
class PartWriter {
public:
    static constexpr std::size_t BufferSize = 1 << 20;

    struct Result {
        qint64 bytes = 0;      // body bytes accepted (at most maxLength)
        bool complete = false; // the body was read to its end
        bool tooLong = false;  // the body had more than maxLength bytes
        int writeError = 0;    // errno of a failed write, 0 if none

        // The protocol's answer when the copy of `expected` bytes of `what` failed, else nullopt.
        std::optional<ProtocolError> problem(qint64 expected, const QString &what) const;
    };

    // Sizes a data file no longer than `size` up front; its blocks are reserved so a full disk
    // shows before the upload.
    static int presize(int fd, qint64 size);

    // observe() sees every accepted byte (for hashing) before it is written.
    using Observer = std::function<void(const char *data, std::size_t length)>;

    // With a pipeline, every filled buffer also goes to its hashing thread (and buffers come from it).
    // With a write lock, each pwrite() holds it (see WriteLockStripes).
    PartWriter(int fd, qint64 offset, qint64 maxLength, HashPipeline *pipeline = nullptr,
               std::mutex *writeLock = nullptr);
    ~PartWriter();
    PartWriter(const PartWriter &) = delete;
    PartWriter &operator=(const PartWriter &) = delete;

    Result copy(const BodyReader &body, const Observer &observe);

private:
    bool append(const char *data, std::size_t length);
    bool flush();

    int m_fd;
    qint64 m_offset;
    qint64 m_maxLength;
    HashPipeline *m_pipeline;
    std::mutex *m_writeLock;
    std::size_t m_capacity; // of m_buffer
    std::unique_ptr<char[]> m_buffer;
    std::size_t m_buffered = 0;
    Result m_result;
};

} // namespace multilane
