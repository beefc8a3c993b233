#!/usr/bin/env bash
# Every %n string of the window has its English forms ("1 file", "2 files"): lupdate over ui/
# into a copy of the committed plural file must find no string the file lacks.
# Fix: cmake --build BUILD --target update_translations, fill the new <numerusform>s, commit.
# Usage: check-plurals.sh SOURCE_DIR LUPDATE
set -euo pipefail
source_dir=$1
lupdate=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp "$source_dir/ui/translations/multilane_en.ts" "$scratch/check.ts"
"$lupdate" -pluralonly -locations none -no-obsolete "$source_dir/ui" -ts "$scratch/check.ts" >/dev/null
if grep -q 'type="unfinished"' "$scratch/check.ts"; then
    echo "%n strings without English plural forms in ui/translations/multilane_en.ts:" >&2
    grep -B2 'type="unfinished"' "$scratch/check.ts" | grep '<source>' >&2
    exit 1
fi
echo "every %n string has its English forms"
