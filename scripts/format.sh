#!/usr/bin/env bash
# The house format (.clang-format) over every tracked C, C++ source and header.
#   scripts/format.sh           rewrite files in place
#   scripts/format.sh --check   list files that differ and exit 1 if any do (CI runs this)
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$fmt" ]; then
    echo "format.sh: clang-format is not installed (scripts/setup.sh installs clang-format-14)" >&2
    exit 2
fi
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
if [ "${1:-}" = "--check" ]; then
    bad=0
    for f in "${files[@]}"; do
        if ! "$fmt" --style=file "$f" | cmp -s - "$f"; then
            echo "not formatted: $f (scripts/format.sh fixes it)" >&2
            bad=1
        fi
    done
    [ "$bad" = 0 ] && echo "format: ${#files[@]} files formatted"
    exit "$bad"
fi
"$fmt" --style=file -i "${files[@]}"
