#!/usr/bin/env bash
# The test command: installs what is missing, checks formatting, builds with -Werror, runs every
# test, then builds and runs the tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
# Set MULTILANE_SKIP_SANITIZE=1 to skip the sanitizer pass while iterating. Last, a short libFuzzer
# smoke run of tests/fuzz (clang-14; MULTILANE_SKIP_FUZZ=1 skips it, MULTILANE_FUZZ_SECONDS sets
# the time per target).
set -euo pipefail
cd "$(dirname "$0")/.."
# The S3 suites' throwaway Ceph cluster and the second S3 client that reads back (tests/s3),
# installed once here rather than by suites that ctest runs side by side.
MULTILANE_BOOTSTRAP_EXTRA="ceph-mon ceph-osd radosgw ceph-common awscli" scripts/bootstrap.sh

echo "== clang-format check"
mapfile -t sources < <(git ls-files '*.cpp' '*.h')
if ! clang-format --dry-run --Werror "${sources[@]}" 2>/tmp/multilane-format.log; then
    head -40 /tmp/multilane-format.log
    echo "clang-format: the files above are not formatted (run: clang-format -i \$(git ls-files '*.cpp' '*.h'))"
    exit 1
fi

echo "== build (-Werror)"
BUILD_DIR=build scripts/build.sh -DMULTILANE_WERROR=ON
echo "== tests"
(cd build && QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j2)

if [ "${MULTILANE_SKIP_SANITIZE:-0}" != 1 ]; then
    echo "== build (ASan + UBSan)"
    BUILD_DIR=build-asan BUILD_TYPE=Debug scripts/build.sh -DMULTILANE_WERROR=ON -DMULTILANE_SANITIZE=ON
    echo "== tests under the sanitizers"
    (cd build-asan && QT_QPA_PLATFORM=offscreen ASAN_OPTIONS=detect_leaks=1 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j2)
fi

if [ "${MULTILANE_SKIP_FUZZ:-0}" != 1 ]; then
    echo "== build (libFuzzer targets, clang-14)"
    # Only the two targets and the receiver core they link: the rest of the project is GCC's.
    cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
        -DMULTILANE_FUZZ=ON -DMULTILANE_BUILD_TESTS=OFF -DMULTILANE_WERROR=ON >/dev/null
    cmake --build build-fuzz -j"$(nproc)" --target fuzz_receiver_request fuzz_protocol_parsers
    echo "== fuzz smoke run"
    root="$PWD"
    seconds="${MULTILANE_FUZZ_SECONDS:-25}"
    for pair in request:fuzz_receiver_request parsers:fuzz_protocol_parsers; do
        corpus="${pair%%:*}" target="${pair#*:}"
        # New inputs go to a scratch folder; the committed seed corpus stays as it is.
        scratch="$(mktemp -d)"
        mkdir "$scratch/new"
        if ! (cd "$scratch" && "$root/build-fuzz/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 \
                -rss_limit_mb=2048 -print_final_stats=1 new "$root/tests/fuzz/corpus/$corpus" 2>fuzz.log); then
            tail -60 "$scratch/fuzz.log"
            echo "fuzzing: $target found a problem; the input is in $scratch (crash-*, timeout-*, leak-*)"
            exit 1
        fi
        grep -E "^(stat::number_of_executed_units|#[0-9]+[[:space:]]+DONE)" "$scratch/fuzz.log" || true
        rm -rf "$scratch"
    done
fi
