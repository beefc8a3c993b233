// linksim: a TCP proxy that emulates an uplink (rate caps, round-trip time, bounded buffers)
// for tests and benchmarks, since this kernel has no netem.
#include "LinkOptions.h"
#include "LinkSimulator.h"

#include <csignal>
#include <cstdio>

using namespace multilane::linksim;

int main(int argc, char *argv[])
{
    const ParsedOptions parsed = parseArguments(std::vector<std::string>(argv + 1, argv + argc));
    if (!parsed.error.empty()) {
        std::fprintf(stderr, "linksim: %s\n", parsed.error.c_str());
        return 2;
    }
    if (parsed.options.help) {
        std::fputs(usageText().c_str(), stdout);
        return 0;
    }
    std::signal(SIGPIPE, SIG_IGN); // a vanished peer is an error return, not a death
    LinkSimulator simulator(parsed.options, stdout, stderr);
    if (const auto error = simulator.start()) {
        std::fprintf(stderr, "linksim: %s\n", error->c_str());
        return 1;
    }
    return simulator.run();
}
