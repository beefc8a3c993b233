#pragma once

#include "WireMessage.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QVariant>
#include <optional>
#include <variant>

namespace multilane {

// What the engine should do about a request that did not succeed. Protocols sort their own
// status codes and error names into these; the engine never reads a protocol's codes.
enum class FailureKind {
    Retry,          // send it again, later or elsewhere (no answer, 5xx, 408, 429)
    Overloaded,     // send it again later, and ask less of the server (503 busy, S3 SlowDown)
    Corrupted,      // the chunk arrived damaged: read it again, checksum it again, send it again
    Recreate,       // the server no longer knows the upload (expired, aborted, reset): attach again
    BadCredentials, // this endpoint refuses our credentials: no request will do better there
    ResumeLater,    // fails the file for now, but `multilane resume` may finish it (disk full)
    Fatal,          // retrying cannot help (name conflict, bad name, untrusted certificate)
};

struct ProtocolFailure {
    FailureKind kind = FailureKind::Fatal;
    int httpStatus = 0;       // 0: no (whole) HTTP answer
    QString code;             // the protocol's own name for it ("checksum_mismatch", "SlowDown")
    QString message;          // for people: which endpoint, what it said, what to do
    QList<int> missingChunks; // complete: the chunks the server says it lacks, when it says

    bool answered() const { return httpStatus != 0; }
    // A file that failed this way may well be finished by a later `multilane resume`.
    bool isWorthResumingLater() const
    {
        return kind != FailureKind::Fatal && kind != FailureKind::BadCredentials;
    }
};

// One request of an operation with what its protocol needs to read the answer (an operation may
// take several requests: a second page of a listing, a HEAD after a complete).
struct Exchange {
    WireRequest request;
    QVariant state;
};

// What reading an answer leads to: the operation's next request, its outcome, or a failure.
template<typename Outcome> class Step {
public:
    Step(Exchange next)
        : m_value(std::move(next))
    {}
    Step(Outcome outcome)
        : m_value(std::move(outcome))
    {}
    Step(ProtocolFailure failure)
        : m_value(std::move(failure))
    {}

    const Exchange *next() const { return std::get_if<Exchange>(&m_value); }
    const Outcome *outcome() const { return std::get_if<Outcome>(&m_value); }
    const ProtocolFailure *failure() const { return std::get_if<ProtocolFailure>(&m_value); }

private:
    std::variant<Exchange, Outcome, ProtocolFailure> m_value;
};

// A chunk the server already holds, with its receipt (ours: the chunk's XXH3; S3: the part's
// ETag), which the engine compares with the source's own chunk checksum.
struct HeldChunk {
    int index = 0;
    QByteArray receipt;
};

// find-or-create: the server's upload for a file.
struct AttachOutcome {
    enum class Result {
        Attached,      // an upload to send chunks to (new, or one found with chunks held)
        AlreadyStored, // an earlier run already finished this very file
        Skipped,       // an identical file is there, or the conflict policy says skip
    };
    Result result = Result::Attached;
    QString uploadId;
    qint64 chunkSize = 0; // the server's, when it fixes one (ours: the first create's)
    QList<HeldChunk> held;
    QByteArray existingSha256; // a finished file of the same size is at the destination: its SHA-256
    QString remotePath;
    QByteArray sha256Hex; // AlreadyStored: the stored file's
};

// complete, or a whole file in one request.
struct FinishOutcome {
    bool skipped = false;
    QString remotePath;
    QByteArray sha256Hex;
};

struct ChunkOutcome {
    QByteArray receipt;
    // The server completed the upload with this chunk (ProtocolCapabilities::chunksComplete).
    std::optional<FinishOutcome> finished;
};

struct AbortOutcome {};

// What one of the protocol's destination checks found (UploadProtocol::destinationChecks).
enum class DestinationFinding {
    Nothing,             // something there, a refusal, or no answer: each file looks for itself
    NoObjects,           // the destination holds nothing yet
    NoUnfinishedUploads, // no upload under the destination was left unfinished
};

struct HealthOutcome {
    int connectionsPerClient = 0; // what the server lets one client open per endpoint; 0: not said
    QString version;
    double rttMs = 0; // the check's round trip on a kept-alive connection (HealthCheck measures it)
};

} // namespace multilane
