#include "RouteLabel.h"

#include <array>

namespace multilane {

namespace {

constexpr std::string_view FilesPrefix = "/v1/files/";

// Splits "/v1/a/b/c" after "/v1/" into at most 4 parts; false when the path has more.
bool splitAfterVersion(std::string_view path, std::array<std::string_view, 4> &parts, int &count)
{
    constexpr std::string_view Version = "/v1/";
    if (!path.starts_with(Version))
        return false;
    path.remove_prefix(Version.size());
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

} // namespace

RouteLabel RouteLabel::of(std::string_view method, std::string_view path)
{
    RouteLabel label;
    if (path == "/metrics") {
        label.kind = method == "GET" ? Kind::Metrics : Kind::Unknown;
        return label;
    }
    if (path.starts_with(FilesPrefix) && method == "PUT") {
        label.kind = Kind::PutFile;
        label.filePath = path.substr(FilesPrefix.size());
        return label;
    }
    std::array<std::string_view, 4> parts;
    int count = 0;
    if (!splitAfterVersion(path, parts, count))
        return label;
    const std::string_view resource = parts[0];
    if (count == 1 && resource == "health" && method == "GET") {
        label.kind = Kind::Health;
    } else if (count == 1 && resource == "probe" && method == "GET") {
        label.kind = Kind::Probe;
    } else if (count == 1 && resource == "discard" && method == "PUT") {
        label.kind = Kind::Discard;
    } else if (resource != "uploads") {
        return label;
    } else if (count == 1 && method == "POST") {
        label.kind = Kind::CreateUpload;
    } else if (count == 2 && (method == "GET" || method == "DELETE")) {
        label.kind = method == "GET" ? Kind::GetUpload : Kind::AbortUpload;
        label.id = parts[1];
    } else if (count == 3 && parts[2] == "complete" && method == "POST") {
        label.kind = Kind::CompleteUpload;
        label.id = parts[1];
    } else if (count == 4 && parts[2] == "chunks" && method == "PUT") {
        label.kind = Kind::PutChunk;
        label.id = parts[1];
        label.chunk = parts[3];
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
        return "/v1/health";
    case Kind::Probe:
        return "/v1/probe";
    case Kind::Discard:
        return "/v1/discard";
    case Kind::CreateUpload:
        return "/v1/uploads";
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
