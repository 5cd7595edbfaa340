#!/bin/sh
# Installs the build tree to a scratch prefix, then builds a consumer with
# find_package(compactptr) (shared and static) and with pkg-config, and runs
# each.  usage: install.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -eu
build=$1 src=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" > "$scratch/install.log"
test -f "$scratch/prefix/include/compactptr.h"
test -f "$scratch/prefix/include/compactptr_config.h"
cmake -S "$src/test/install/consumer" -B "$scratch/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" > "$scratch/consumer.log"
cmake --build "$scratch/consumer" >> "$scratch/consumer.log"
LD_LIBRARY_PATH="$scratch/prefix/lib" "$scratch/consumer/consumer_shared"
"$scratch/consumer/consumer_static"
export PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig"
# The runtime alone: pkg-config's Cflags also name the plugin, which a
# program written against the runtime does not need.
cc -I"$scratch/prefix/include" "$src/test/install/consumer/consumer.c" \
  $(pkg-config --libs compactptr) -o "$scratch/consumer_pc"
LD_LIBRARY_PATH="$scratch/prefix/lib" "$scratch/consumer_pc"
pkg-config --cflags compactptr
# The installed compactptr-advise finds <compactptr.h> under its own
# prefix, with no -I.
(cd "$scratch" && "$scratch/prefix/bin/compactptr-advise" \
  "$src/test/install/consumer/consumer.c" > "$scratch/advise.log")
grep -q '^compactptr-advise: ' "$scratch/advise.log"
