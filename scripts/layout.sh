#!/usr/bin/env bash
# harness/src's layout (docs/architecture.md, "harness/src by concern"), checked (CI runs this):
#   - no source file directly in harness/src: each belongs to one folder of a concern;
#   - each folder holds a README.md of exactly two lines: "FOLDER/: what it holds" and "Uses: ...";
#   - each folder of tests/harness (but data/ and default_run/) mirrors one of harness/src.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0
for f in harness/src/*; do
    [ -d "$f" ] || { echo "layout: $f is not in a folder of harness/src" >&2; bad=1; }
done
for d in harness/src/*/; do
    name=$(basename "$d")
    readme="${d%/}/README.md"
    if [ ! -f "$readme" ]; then
        echo "layout: ${d%/} has no README.md" >&2; bad=1; continue
    fi
    if [ "$(wc -l <"$readme")" != 2 ] || [[ "$(sed -n 1p "$readme")" != "$name/: "* ]] ||
        [[ "$(sed -n 2p "$readme")" != "Uses: "* ]]; then
        echo "layout: $readme must be two lines, \"$name/: ...\" then \"Uses: ...\"" >&2; bad=1
    fi
done
for d in tests/harness/*/; do
    name=$(basename "$d")
    case "$name" in data | default_run) continue ;; esac
    [ -d "harness/src/$name" ] || { echo "layout: tests/harness/$name mirrors no folder of harness/src" >&2; bad=1; }
done
[ "$bad" = 0 ] && echo "layout: harness/src in $(ls -d harness/src/*/ | wc -l) folders, each with its two lines"
exit "$bad"
