#pragma once

// The names protocol v1 puts on the wire (docs/protocol.md): its version, routes, headers and the
// members of the health answer. Plain character arrays, so both QByteArray and std::string_view
// code can use them; the two ends spell each name once, here.
namespace multilane::Protocol {

inline constexpr int Version = 1;
inline constexpr char ServiceName[] = "multilane-receiver";

// Routes. An upload's own routes are UploadsRoute + "/{id}", + "/{id}/complete" and
// + "/{id}/chunks/{index}"; a whole file is FilesRoute + "{path}".
inline constexpr char VersionPrefix[] = "/v1/";
inline constexpr char HealthRoute[] = "/v1/health";
inline constexpr char ProbeRoute[] = "/v1/probe";
inline constexpr char DiscardRoute[] = "/v1/discard";
inline constexpr char UploadsRoute[] = "/v1/uploads";
inline constexpr char FilesRoute[] = "/v1/files/";
inline constexpr char ChunksSegment[] = "chunks";
inline constexpr char CompleteSegment[] = "complete";
inline constexpr char ProbeBytesParameter[] = "bytes";
inline constexpr char OnConflictParameter[] = "onConflict";

// Headers, as HTTP spells them (their names are case-insensitive on the wire).
inline constexpr char ChunkHashHeader[] = "X-Chunk-Hash";
inline constexpr char ContentSha256Header[] = "X-Content-SHA256";
// On a chunk: the whole file's SHA-256, so the receiver completes the upload when this chunk (or
// one still arriving after it) makes it whole, and answers the completion with the chunk.
inline constexpr char CompleteSha256Header[] = "X-Complete-SHA256";
inline constexpr char OnConflictHeader[] = "X-Multilane-On-Conflict";
inline constexpr char AuthorizationHeader[] = "Authorization";
inline constexpr char BearerScheme[] = "Bearer";

// GET /v1/health: {"status":"ok","service":…,"protocol":1,"version":…,"limits":{…}}. "limits" and
// each member in it are optional to a client: receivers before this one do not send them.
inline constexpr char HealthLimits[] = "limits";
// How many connections one client may open to this port (a client that tunes its connection
// count stays at or below it).
inline constexpr char HealthConnectionsPerClient[] = "connectionsPerClient";
// What a receiver with its default settings announces there.
inline constexpr int DefaultConnectionsPerClient = 64;

} // namespace multilane::Protocol
