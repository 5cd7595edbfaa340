# usage: run-all-modes.sh CLANG "CFLAGS" PLUGIN "RUNTIME" DIR PROGRAM.c LIMIT [ARGS...]
# Builds PROGRAM natively and with the plugin in every mode (warnings are
# errors), runs each with ARGS and fails on the first output that differs
# from the native one.  The switchable build runs twice more with
# COMPACTPTR_ARENA_LIMIT=LIMIT, so the switch happens mid-run: once with
# COMPACTPTR_STATS=1 (which must report the switch; its stderr is kept in
# DIR/NAME.switch.err for the test to check) and once under
# COMPACTPTR_VERIFY=1 (the heap graph and the roots are checked before and
# after the switch).
set -e
clang=$1 cflags=$2 plugin=$3 runtime=$4 dir=$5 src=$6 limit=$7
shift 7
name=$(basename "$src" .c)
out="$dir/$name"
$clang $cflags -O2 -Wall -Wextra -Werror "$src" -o "$out.native"
"$out.native" "$@" > "$out.native.out"
for mode in compact-only switchable wide; do
  $clang $cflags -O2 -Wall -Wextra -Werror -fplugin="$plugin" \
    -fplugin-arg-compactptr-mode=$mode "$src" $runtime -o "$out.$mode"
  "$out.$mode" "$@" > "$out.$mode.out"
  diff "$out.native.out" "$out.$mode.out"
done
COMPACTPTR_ARENA_LIMIT=$limit COMPACTPTR_STATS=1 \
  "$out.switchable" "$@" > "$out.switch.out" 2> "$out.switch.err"
diff "$out.native.out" "$out.switch.out"
grep -q 'compactptr: switch to wide mode' "$out.switch.err"
COMPACTPTR_ARENA_LIMIT=$limit COMPACTPTR_VERIFY=1 \
  "$out.switchable" "$@" > "$out.verify.out" 2> "$out.verify.err"
diff "$out.native.out" "$out.verify.out"
echo "$name: same output in every mode"
