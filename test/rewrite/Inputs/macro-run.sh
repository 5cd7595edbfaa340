# usage: macro-run.sh CLANG "CFLAGS" PLUGIN "RUNTIME" DIR PROGRAM.c
# Builds PROGRAM natively and with the plugin in every mode (warnings are
# errors), runs each, and fails on the first output that differs from the
# native one.  A switchable build with -DSWITCH_MIDWAY (programs that
# build no big heap call cp_switch_to_wide() then) runs twice more with a
# switch mid-run (COMPACTPTR_HIGH_WATER=10 in a 1 MiB arena), once under
# COMPACTPTR_VERIFY=1; STATS must report the switch.
set -e
clang=$1 cflags=$2 plugin=$3 runtime=$4 dir=$5 src=$6
name=$(basename "$src" .c)
out="$dir/$name"
$clang $cflags -O1 "$src" -o "$out.native"
"$out.native" > "$out.native.out"
for mode in compact-only switchable wide; do
  $clang $cflags -O1 -Wall -Wextra -Werror -fplugin="$plugin" \
    -fplugin-arg-compactptr-mode=$mode "$src" $runtime -o "$out.$mode"
  "$out.$mode" > "$out.$mode.out"
  diff "$out.native.out" "$out.$mode.out"
done
$clang $cflags -O1 -Wall -Wextra -Werror -fplugin="$plugin" -DSWITCH_MIDWAY \
  "$src" $runtime -o "$out.midway"
COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=10 COMPACTPTR_STATS=1 \
  "$out.midway" > "$out.switch.out" 2> "$out.switch.err"
diff "$out.native.out" "$out.switch.out"
grep -q 'compactptr: switch to wide mode' "$out.switch.err"
COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=10 COMPACTPTR_VERIFY=1 \
  "$out.midway" > "$out.verify.out"
diff "$out.native.out" "$out.verify.out"
echo "$name: same output in every mode"
