#include "RouteLabel.h"

#include "ProtocolNames.h"

#include <array>

namespace multilane {

namespace {

constexpr std::string_view FilesPrefix = Protocol::FilesRoute;
constexpr std::string_view UploadsRoute = Protocol::UploadsRoute;

// Splits `path` at '/' into at most parts.size() parts; false when it has more.
bool split(std::string_view path, std::array<std::string_view, 3> &parts, int &count)
{
    count = 0;
    while (true) {
        if (count == int(parts.size()))
            return false;
        const std::size_t slash = path.find('/');
        parts[std::size_t(count++)] = path.substr(0, slash);
        if (slash == std::string_view::npos)
            return true;
        path.remove_prefix(slash + 1);
    }
}

// The routes below /v1/uploads/: `rest` is what follows that prefix ("{id}/chunks/{n}", …).
void labelUpload(RouteLabel &label, std::string_view method, std::string_view rest)
{
    std::array<std::string_view, 3> parts;
    int count = 0;
    if (!split(rest, parts, count))
        return;
    using Kind = RouteLabel::Kind;
    if (count == 1 && (method == "GET" || method == "DELETE"))
        label.kind = method == "GET" ? Kind::GetUpload : Kind::AbortUpload;
    else if (count == 2 && parts[1] == Protocol::CompleteSegment && method == "POST")
        label.kind = Kind::CompleteUpload;
    else if (count == 3 && parts[1] == Protocol::ChunksSegment && method == "PUT")
        label.kind = Kind::PutChunk;
    else
        return;
    label.id = parts[0];
    if (label.kind == Kind::PutChunk)
        label.chunk = parts[2];
}

} // namespace

RouteLabel RouteLabel::of(std::string_view method, std::string_view path)
{
    RouteLabel label;
    if (path == "/metrics") {
        label.kind = method == "GET" ? Kind::Metrics : Kind::Unknown;
    } else if (path.starts_with(FilesPrefix) && method == "PUT") {
        label.kind = Kind::PutFile;
        label.filePath = path.substr(FilesPrefix.size());
    } else if (path == Protocol::HealthRoute && method == "GET") {
        label.kind = Kind::Health;
    } else if (path == Protocol::ProbeRoute && method == "GET") {
        label.kind = Kind::Probe;
    } else if (path == Protocol::DiscardRoute && method == "PUT") {
        label.kind = Kind::Discard;
    } else if (path == UploadsRoute && method == "POST") {
        label.kind = Kind::CreateUpload;
    } else if (path.starts_with(UploadsRoute) && path.size() > UploadsRoute.size() &&
               path[UploadsRoute.size()] == '/') {
        labelUpload(label, method, path.substr(UploadsRoute.size() + 1));
    }
    return label;
}

const char *RouteLabel::name(Kind kind)
{
    switch (kind) {
    case Kind::Health:
        return "health";
    case Kind::Probe:
        return "probe";
    case Kind::Discard:
        return "discard";
    case Kind::CreateUpload:
        return "create_upload";
    case Kind::GetUpload:
        return "get_upload";
    case Kind::AbortUpload:
        return "abort_upload";
    case Kind::PutChunk:
        return "put_chunk";
    case Kind::CompleteUpload:
        return "complete_upload";
    case Kind::PutFile:
        return "put_file";
    case Kind::Metrics:
        return "metrics";
    case Kind::Unknown:
        break;
    }
    return "unknown";
}

const char *RouteLabel::pathTemplate(Kind kind)
{
    switch (kind) {
    case Kind::Health:
        return Protocol::HealthRoute;
    case Kind::Probe:
        return Protocol::ProbeRoute;
    case Kind::Discard:
        return Protocol::DiscardRoute;
    case Kind::CreateUpload:
        return Protocol::UploadsRoute;
    case Kind::GetUpload:
    case Kind::AbortUpload:
        return "/v1/uploads/{id}";
    case Kind::PutChunk:
        return "/v1/uploads/{id}/chunks/{n}";
    case Kind::CompleteUpload:
        return "/v1/uploads/{id}/complete";
    case Kind::PutFile:
        return "/v1/files/{path}";
    case Kind::Metrics:
        return "/metrics";
    case Kind::Unknown:
        break;
    }
    return "-";
}

} // namespace multilane
