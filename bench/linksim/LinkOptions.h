#pragma once

#include "Clock.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace multilane::linksim {

// One listener: where linksim accepts connections, and where it forwards them.
struct Route {
    std::string listenHost = "127.0.0.1";
    int listenPort = 0; // 0: the kernel picks one
    std::string targetHost;
    int targetPort = 0;
    std::string target() const { return targetHost + ':' + std::to_string(targetPort); }
};

// What the emulated link looks like. Rates are bytes per second; 0 means unlimited.
struct LinkOptions {
    std::vector<Route> routes;
    double perConnectionRate = 0;              // each direction of each connection
    double totalRate = 0;                      // all connections together, client -> server
    Nanoseconds rtt{0};                        // each direction is delayed by half of it
    std::size_t bufferBytes = 4 * 1024 * 1024; // per connection and direction
    std::string reportPath; // every 100 ms: "ms bytes-up connections-open" (for benchmarks)
    bool quiet = false;
    bool help = false;
};

// The result of parsing a command line: options, or a message saying what is wrong.
struct ParsedOptions {
    LinkOptions options;
    std::string error;
};

ParsedOptions parseArguments(const std::vector<std::string> &arguments);
std::string usageText();

// "2MB/s", "500KB/s", "16Mbit/s", "1.5MiB/s", "100000" (bytes/s); decimal units as network
// tools use them (1 MB = 10^6 bytes). Empty on a malformed rate.
std::optional<double> parseRate(std::string_view text);
// "4MiB", "256KB", "65536".
std::optional<std::size_t> parseSize(std::string_view text);
// "[HOST:]PORT=TARGET_HOST:TARGET_PORT"; IPv6 hosts in brackets.
std::optional<Route> parseRoute(std::string_view text);

std::string formatRate(double bytesPerSecond);

} // namespace multilane::linksim
