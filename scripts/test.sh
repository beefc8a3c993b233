#!/usr/bin/env bash
# The test command: installs what is missing, checks formatting, builds with -Werror, runs every
# test, then builds and runs the tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
# Set MULTILANE_SKIP_SANITIZE=1 to skip the sanitizer pass while iterating.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh

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
