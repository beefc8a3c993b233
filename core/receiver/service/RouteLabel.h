#pragma once

#include <string_view>

namespace multilane {

// What a request is, from its method and path alone, for metrics labels and access-log lines:
// cheap (no allocation, no validation) because it runs on every request. The ids and paths it
// points at are the client's raw text; RequestRouter is what checks them.
struct RouteLabel {
    enum class Kind {
        Health,
        Probe,
        Discard,
        CreateUpload,
        GetUpload,
        AbortUpload,
        PutChunk,
        CompleteUpload,
        PutFile,
        Metrics,
        Unknown,
    };
    static constexpr int KindCount = int(Kind::Unknown) + 1;

    Kind kind = Kind::Unknown;
    std::string_view id;       // uploads/{id}…
    std::string_view chunk;    // chunks/{n}
    std::string_view filePath; // files/{path}

    static RouteLabel of(std::string_view method, std::string_view path);
    // "put_chunk": the metrics label.
    static const char *name(Kind kind);
    // "/v1/uploads/{id}/chunks/{n}": the access-log route.
    static const char *pathTemplate(Kind kind);
};

} // namespace multilane
