#!/bin/sh
# The same multi-file program (Inputs/program/) built four ways against an
# installed compactptr, each run compared with the native build's output:
#   cmake    find_package(compactptr) + target_link_libraries only
#   make     CC=compactptr-cc make
#   pkgconf  clang-19 $(pkg-config --cflags ...) / --libs
#   distcc   CC="compactptr-cc --cp-distcc" make -j2, two distccd daemons on
#            127.0.0.1 started and stopped here; their logs must show every
#            translation unit compiled remotely (fallback to local is off)
# Also: configuring the CMake project with gcc fails, naming the compiler.
# usage: four-ways.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR CLANG
set -eu
build=$1 src=$2 scratch=$3 clang=$4
prog=$src/test/toolchain/Inputs/program
rm -rf "$scratch"
mkdir -p "$scratch"
cd "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" > install.log
P=$scratch/prefix
libdir=$(dirname "$(find "$P" -name 'libcompactptr.a' | head -1)")

"$clang" -O2 -I"$P/include" "$prog"/*.c -o native
./native > native.out

check() { # name output-file
  if cmp -s native.out "$2"; then
    echo "four-ways: $1: native output ($(tail -1 "$2"))"
  else
    echo "four-ways: $1: output differs from native"; diff native.out "$2"; exit 1
  fi
}

# 1. CMake: find_package + target_link_libraries, nothing else.
cmake -S "$prog" -B cmake -G Ninja -DCMAKE_C_COMPILER="$clang" \
  -DCMAKE_PREFIX_PATH="$P" > cmake.log
cmake --build cmake >> cmake.log
grep -q -- "-fplugin=" cmake/compile_commands.json 2>/dev/null ||
  grep -rq -- "-fplugin=" cmake/build.ninja
cmake/prog > cmake.out
check cmake cmake.out
# compactptr_enable(prog MODE wide STATIC): the mode reaches the
# plugin and the runtime is linked statically.
cmake -S "$prog" -B cmake-enable -G Ninja -DCMAKE_C_COMPILER="$clang" \
  -DCMAKE_PREFIX_PATH="$P" -DPROG_MODE=wide > cmake-enable.log
cmake --build cmake-enable -v >> cmake-enable.log
grep -q -- "-fplugin-arg-compactptr-mode=wide" cmake-enable.log
if readelf -d cmake-enable/prog | grep -q libcompactptr; then
  echo "four-ways: compactptr_enable(STATIC) links libcompactptr.so"; exit 1
fi
cmake-enable/prog > cmake-enable.out
check cmake-compactptr_enable cmake-enable.out
if cmake -S "$prog" -B cmake-gcc -G Ninja -DCMAKE_C_COMPILER=gcc \
     -DCMAKE_PREFIX_PATH="$P" > cmake-gcc.log 2>&1; then
  echo "four-ways: cmake with gcc configured"; exit 1
fi
# (CMake wraps the reason over several lines.)
tr -s ' \n' '  ' < cmake-gcc.log |
  grep -o "compactptr: the C compiler is GNU [^;]*; compactptr.so needs clang 19.x"

# 2. make with the wrapper.
mkdir make
make -s -C make -f "$prog/Makefile" VPATH="$prog" CC="$P/bin/compactptr-cc"
make/prog > make.out
check make make.out

# 3. pkg-config.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
for f in tree walk main; do
  # shellcheck disable=SC2046
  "$clang" $(pkg-config --cflags compactptr) -O2 -c "$prog/$f.c" -o "pc-$f.o"
done
# shellcheck disable=SC2046
"$clang" pc-tree.o pc-walk.o pc-main.o $(pkg-config --libs compactptr) \
  -Wl,-rpath,"$libdir" -o pc-prog
./pc-prog > pkgconf.out
check pkgconf pkgconf.out
# shellcheck disable=SC2046
"$clang" pc-tree.o pc-walk.o pc-main.o $(pkg-config --libs compactptr-static) -o pc-static
if readelf -d pc-static | grep -q libcompactptr; then
  echo "four-ways: compactptr-static links libcompactptr.so"; exit 1
fi
./pc-static > pkgconf-static.out
check pkgconf-static pkgconf-static.out

# 4. distcc: two daemons on 127.0.0.1, stopped by pid on every exit.
ports=$(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
mkdir distcc
# distccd started by root drops to its own user, which cannot reach a
# scratch directory under a private home (/root is 0700): its logs go to a
# world-writable directory of their own.
logs=$(mktemp -d "${TMPDIR:-/tmp}/four-ways-distccd.XXXXXX")
chmod 777 "$logs"
pids=""
stop() {
  # The daemons' preforked workers end with them; wait for those too.
  all="$pids"
  for p in $pids; do all="$all $(pgrep -P "$p" || true)"; done
  for p in $pids; do kill "$p" 2>/dev/null || true; done
  for p in $all; do
    i=0
    while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  done
}
# The logs are copied next to the build for a look after a failure.
cleanup() { stop; cp "$logs"/*.log distcc/ 2>/dev/null || true; rm -rf "$logs"; }
trap cleanup EXIT
hosts=""
for port in $ports; do
  distccd --daemon --no-detach --listen 127.0.0.1 --port "$port" \
    --allow 127.0.0.1 --jobs 1 --log-level=info \
    --log-file="$logs/distccd-$port.log" &
  pids="$pids $!"
  hosts="$hosts 127.0.0.1:$port/1"
done
for port in $ports; do # wait until both listen
  i=0
  until grep -q "listening on" "$logs/distccd-$port.log" 2>/dev/null; do
    sleep 0.1; i=$((i + 1)); [ $i -lt 100 ] || { echo "distccd on $port did not start"; exit 1; }
  done
done
mkdir distcc/state distcc/build
DISTCC_HOSTS="$hosts" DISTCC_DIR="$scratch/distcc/state" DISTCC_FALLBACK=0 \
DISTCC_BACKOFF_PERIOD=0 DISTCC_LOG="$scratch/distcc/client.log" \
  make -s -j2 -C distcc/build -f "$prog/Makefile" VPATH="$prog" \
       CC="$P/bin/compactptr-cc --cp-distcc"
distcc/build/prog > distcc.out
stop
pids=""
for f in tree walk main; do
  n=$(grep -h "COMPILE_OK.* clang-19 .*/$f\.i *$" "$logs"/distccd-*.log | wc -l)
  [ "$n" -eq 1 ] || { echo "four-ways: distcc: $f.c compiled remotely $n times"; exit 1; }
done
if grep -q -- "-fplugin" "$logs"/distccd-*.log; then
  echo "four-ways: distcc: a remote compile was handed the plugin"; exit 1
fi
echo "four-ways: distcc: remote compiles per daemon:" $(for port in $ports; do
  grep -c COMPILE_OK "$logs/distccd-$port.log"; done)
check distcc distcc.out
