#!/bin/sh
# same-objects.sh CLANG "CFLAGS" PLUGIN OUTDIR FILE...
# Compiles each FILE with and without the plugin and fails unless the
# object files are byte-identical.  Files that do not compile natively with
# CFLAGS (other components' sources change their include needs) are
# skipped and counted.
set -eu
cc=$1; flags=$2; plugin=$3; out=$4; shift 4
mkdir -p "$out/n" "$out/p"
same=0; skipped=0
for f in "$@"; do
  b=$(basename "$f" .c)
  if ! $cc $flags -O1 -c "$f" -o "$out/n/$b.o" 2>/dev/null; then
    skipped=$((skipped + 1))
    continue
  fi
  $cc $flags -O1 -fplugin="$plugin" -c "$f" -o "$out/p/$b.o"
  cmp "$out/n/$b.o" "$out/p/$b.o"
  same=$((same + 1))
done
echo "identical: $same skipped: $skipped"
