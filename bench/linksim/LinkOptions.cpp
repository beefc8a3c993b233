#include "LinkOptions.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace multilane::linksim {

namespace {

std::string lowered(std::string_view text)
{
    std::string result(text);
    std::transform(result.begin(), result.end(), result.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return result;
}

// Splits "1.5MB" into 1.5 and "mb"; empty if there is no leading non-negative number.
std::optional<std::pair<double, std::string>> splitNumber(std::string_view text)
{
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || !std::isfinite(value) || value < 0)
        return std::nullopt;
    return std::pair{value, lowered(text.substr(static_cast<std::size_t>(end - text.data())))};
}

std::optional<double> unitFactor(const std::string &unit)
{
    static const std::pair<const char *, double> units[] = {{"", 1},
                                                            {"b", 1},
                                                            {"k", 1e3},
                                                            {"kb", 1e3},
                                                            {"m", 1e6},
                                                            {"mb", 1e6},
                                                            {"g", 1e9},
                                                            {"gb", 1e9},
                                                            {"kib", 1024.0},
                                                            {"mib", 1048576.0},
                                                            {"gib", 1073741824.0},
                                                            {"bit", 1 / 8.0},
                                                            {"kbit", 1e3 / 8},
                                                            {"mbit", 1e6 / 8},
                                                            {"gbit", 1e9 / 8}};
    for (const auto &[name, factor] : units) {
        if (unit == name)
            return factor;
    }
    return std::nullopt;
}

std::optional<int> parsePort(std::string_view text)
{
    int port = -1;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
    if (error != std::errc() || end != text.data() + text.size() || port < 0 || port > 65535)
        return std::nullopt;
    return port;
}

// "HOST:PORT" or "[V6]:PORT" into host and port; a bare "PORT" when allowBarePort.
std::optional<std::pair<std::string, int>> parseHostPort(std::string_view text, bool allowBarePort)
{
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) {
        const auto port = allowBarePort ? parsePort(text) : std::nullopt;
        if (!port)
            return std::nullopt;
        return std::pair{std::string("127.0.0.1"), *port};
    }
    std::string_view host = text.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    const auto port = parsePort(text.substr(colon + 1));
    if (host.empty() || !port)
        return std::nullopt;
    return std::pair{std::string(host), *port};
}

} // namespace

std::optional<double> parseRate(std::string_view text)
{
    auto split = splitNumber(text);
    if (!split)
        return std::nullopt;
    std::string unit = split->second;
    for (const char *suffix : {"/s", "ps"}) {
        if (unit.size() >= 2 && unit.ends_with(suffix))
            unit.resize(unit.size() - 2);
    }
    const auto factor = unitFactor(unit);
    if (!factor)
        return std::nullopt;
    return split->first * *factor;
}

std::optional<std::size_t> parseSize(std::string_view text)
{
    const auto split = splitNumber(text);
    if (!split || split->second.find("bit") != std::string::npos)
        return std::nullopt;
    const auto factor = unitFactor(split->second);
    if (!factor)
        return std::nullopt;
    const double bytes = std::round(split->first * *factor);
    if (bytes < 1 || bytes > 1e12)
        return std::nullopt;
    return static_cast<std::size_t>(bytes);
}

std::optional<Route> parseRoute(std::string_view text)
{
    const std::size_t equals = text.find('=');
    if (equals == std::string_view::npos)
        return std::nullopt;
    const auto listen = parseHostPort(text.substr(0, equals), true);
    const auto target = parseHostPort(text.substr(equals + 1), false);
    if (!listen || !target || target->second == 0)
        return std::nullopt;
    return Route{listen->first, listen->second, target->first, target->second};
}

std::string formatRate(double bytesPerSecond)
{
    if (bytesPerSecond <= 0)
        return "unlimited";
    char text[64];
    std::snprintf(text, sizeof text, "%.3f MB/s", bytesPerSecond / 1e6);
    return text;
}

ParsedOptions parseArguments(const std::vector<std::string> &arguments)
{
    ParsedOptions result;
    LinkOptions &options = result.options;
    auto fail = [&result](const std::string &message) {
        result.error = message + " (see --help)";
        return result;
    };
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        std::string name = arguments[i];
        std::optional<std::string> inlineValue;
        if (const std::size_t equals = name.find('=');
            name.starts_with("--") && equals != std::string::npos) {
            inlineValue = name.substr(equals + 1);
            name.resize(equals);
        }
        auto value = [&]() -> std::optional<std::string> {
            if (inlineValue)
                return inlineValue;
            if (i + 1 < arguments.size())
                return arguments[++i];
            return std::nullopt;
        };
        if (name == "--help" || name == "-h") {
            options.help = true;
        } else if (name == "--quiet" || name == "-q") {
            options.quiet = true;
        } else if (name == "--listen") {
            const auto text = value();
            const auto route = text ? parseRoute(*text) : std::nullopt;
            if (!route)
                return fail("--listen needs [HOST:]PORT=TARGET_HOST:TARGET_PORT, got '" + text.value_or("") +
                            "'");
            options.routes.push_back(*route);
        } else if (name == "--per-connection-rate" || name == "--total-rate") {
            const auto text = value();
            const auto rate = text ? parseRate(*text) : std::nullopt;
            if (!rate)
                return fail(name + " needs a rate such as 2MB/s, 500KB/s or 16Mbit/s, got '" +
                            text.value_or("") + "'");
            (name == "--total-rate" ? options.totalRate : options.perConnectionRate) = *rate;
        } else if (name == "--rtt") {
            const auto text = value();
            const auto split = text ? splitNumber(*text) : std::nullopt;
            if (!split || !(split->second.empty() || split->second == "ms"))
                return fail("--rtt needs milliseconds such as 40, got '" + text.value_or("") + "'");
            options.rtt = std::chrono::duration_cast<Nanoseconds>(
                std::chrono::duration<double, std::milli>(split->first));
        } else if (name == "--report") {
            const auto text = value();
            if (!text || text->empty())
                return fail("--report needs a file name");
            options.reportPath = *text;
        } else if (name == "--buffer") {
            const auto text = value();
            const auto size = text ? parseSize(*text) : std::nullopt;
            if (!size)
                return fail("--buffer needs a size such as 4MiB or 65536, got '" + text.value_or("") + "'");
            options.bufferBytes = *size;
        } else {
            return fail("unknown argument '" + arguments[i] + "'");
        }
    }
    if (options.routes.empty() && !options.help)
        return fail("at least one --listen is needed");
    return result;
}

std::string usageText()
{
    return R"(Usage: linksim --listen [HOST:]PORT=TARGET_HOST:TARGET_PORT [--listen ...] [options]

A TCP proxy that emulates an uplink: a rate cap per connection, a rate cap for all
connections together, a round-trip time, and bounded buffers with backpressure.
Prints "linksim HOST:PORT -> TARGET" for each listener once it listens.

Options:
  --listen SPEC               Accept on [HOST:]PORT (default host 127.0.0.1, port 0 picks
                              a free one) and forward to TARGET_HOST:TARGET_PORT. Repeatable.
  --per-connection-rate RATE  Cap each connection, each direction (a window-limited flow).
                              0 = unlimited (default).
  --total-rate RATE           Cap all connections together, client -> server (the uplink),
                              shared fairly. 0 = unlimited (default).
  --rtt MS                    Round-trip time: each direction is delayed by MS/2.
  --buffer BYTES              Bytes held per connection and direction (default 4MiB); when
                              full, linksim stops reading from the sender.
  --report FILE               Every 100 ms, append "MS BYTES CONNECTIONS" to FILE: time since
                              start, bytes taken onto the uplink so far, connections open.
  --quiet                     Print only the listener lines.
  --help                      This text.

Rates are decimal, as network tools count: 2MB/s = 2,000,000 bytes/s; also KB/s, GB/s,
KiB/s, MiB/s, Mbit/s. Sizes: 65536, 256KB, 4MiB.

Example: three receiver ports behind a 24 MB/s uplink, 2 MB/s per connection, 40 ms RTT:
  linksim --per-connection-rate 2MB/s --total-rate 24MB/s --rtt 40 \
      --listen 127.0.0.1:9201=127.0.0.1:9101 --listen 127.0.0.1:9202=127.0.0.1:9102 \
      --listen 127.0.0.1:9203=127.0.0.1:9103
)";
}

} // namespace multilane::linksim
