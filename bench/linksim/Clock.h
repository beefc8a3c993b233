#pragma once

#include <chrono>

namespace multilane::linksim {

// The simulator's one clock; every piece of timing logic takes "now" as a parameter so tests
// can drive it without sleeping.
using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;
using Nanoseconds = std::chrono::nanoseconds;

} // namespace multilane::linksim
