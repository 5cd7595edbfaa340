#!/bin/sh
# check-native.sh - builds every run-test program natively (no plugin) with
# clang-19 and gcc under -Wall -Wextra -Werror and with
# -fsanitize=address,undefined, runs each at its default size and two larger
# sizes, twice, and checks that all builds print the same output.
#
# Usage: test/Inputs/programs/check-native.sh [BUILD_DIR]
#   BUILD_DIR provides include/compactptr_config.h (default: ../../../build);
#   without it a copy is generated from include/compactptr_config.h.in.
# Environment: CC1 (default clang-19), CC2 (default gcc), OUT (scratch dir).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bd=${1:-$root/build}
CC1=${CC1:-clang-19}
CC2=${CC2:-gcc}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/cp-programs.XXXXXX")}
mkdir -p "$OUT/include"
if [ -f "$bd/include/compactptr_config.h" ]; then
  cfg="$bd/include"
else
  sed -e 's/@COMPACTPTR_GRANULE_SHIFT@/0/' -e 's/@PROJECT_VERSION@/0.0.0/' \
    "$root/include/compactptr_config.h.in" > "$OUT/include/compactptr_config.h"
  cfg="$OUT/include"
fi
I="-I$root/include -I$cfg"
W="-Wall -Wextra -Werror"

# name: sources: two larger sizes (default size is the program's own)
programs="
slist:slist.c:3000 20000
dlist:dlist.c:5000 50000
bst:bst.c:20000 100000
ntree:ntree.c:20000 100000
hashtab:hashtab.c:50000 200000
graph:graph.c:3000 6000
churn:churn.c:100000 400000
byvalue:byvalue.c:20000 200000
heaparray:heaparray.c:40000 200000
globals:globals.c:10000 50000
compound:compound.c:30000 300000
multifile:multifile/main.c multifile/shapes.c:5000 50000
knr:knr.c:20000 200000
safepoint_calls:safepoint_calls.c:100000 400000
safepoint_main:safepoint_main.c:100000 400000
"
fail=0
echo "$programs" | while IFS=: read -r name srcs sizes; do
  [ -n "$name" ] || continue
  src=""
  for s in $srcs; do src="$src $here/$s"; done
  # shellcheck disable=SC2086
  $CC1 -O2 $W $I $src -o "$OUT/$name.clang"
  # shellcheck disable=SC2086
  $CC2 -O2 $W $I $src -o "$OUT/$name.gcc"
  # shellcheck disable=SC2086
  $CC1 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all $W $I \
    $src -o "$OUT/$name.san"
  for size in "" $sizes; do
    "$OUT/$name.clang" $size > "$OUT/$name.1"
    "$OUT/$name.clang" $size > "$OUT/$name.2"
    "$OUT/$name.gcc" $size > "$OUT/$name.3"
    "$OUT/$name.san" $size > "$OUT/$name.4"
    for k in 2 3 4; do
      if ! cmp -s "$OUT/$name.1" "$OUT/$name.$k"; then
        echo "FAIL $name size=${size:-default}: output $k differs"
        exit 1
      fi
    done
  done
  echo "ok   $name ($(wc -l < "$OUT/$name.1") lines; sizes: default $sizes)"
done || fail=1
[ "$fail" = 0 ] && echo "all programs ok (scratch: $OUT)"
exit $fail
