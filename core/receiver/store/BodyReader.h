#pragma once

#include <cstddef>
#include <functional>

namespace multilane {

// Receives one piece of a request body; returns false to stop reading (the rest is discarded).
using BodySink = std::function<bool(const char *data, std::size_t length)>;

// Streams a request body into a sink, piece by piece, so no body is ever held whole in memory.
// Can be called once; returns true only when the whole body was read and the sink accepted it.
using BodyReader = std::function<bool(const BodySink &sink)>;

} // namespace multilane
