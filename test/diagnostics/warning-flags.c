// Every warning has a name and obeys clang's flag conventions.  clang
// rejects -W flags it does not know (a plugin cannot add warning groups),
// so the plugin takes them as plugin arguments spelled as clang spells
// them after -W; compactptr-rewrite takes the -W flags themselves.  clang's
// own -w and -Werror apply too.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck --check-prefix=DEFAULT %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-Wno-compactptr-integer-cast %s 2>&1 | FileCheck --check-prefix=NOINT %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-Wno-compactptr %s 2>&1 | FileCheck --allow-empty --check-prefix=NONE %s
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-Werror=compactptr-foreign-object %s 2>&1 | FileCheck --check-prefix=ERRFO %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -w %s 2>&1 | FileCheck --allow-empty --check-prefix=NONE %s
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only -Werror %s 2>&1 | FileCheck --check-prefix=WERROR %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-Wno-error=compactptr %s 2>&1 | FileCheck --check-prefix=DEFAULT %s
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-Wno-compactptr-bogus %s 2>&1 | FileCheck --check-prefix=BOGUS %s
// RUN: %rewrite %s -- %cflags -Wno-compactptr-integer-cast 2>&1 >/dev/null | FileCheck --check-prefix=NOINT %s
#include <compactptr.h>
#include <stdint.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

void *wrap(void); /* defined in another file: the plugin cannot see its memory */

uintptr_t h(struct node *p) { return (uintptr_t)p->next; }
struct node *mk(void) { return wrap(); }

// DEFAULT: warning-flags.c:[[@LINE-3]]:38: warning: compact pointer to 'struct node' cast to an integer; the value does not survive the switch to wide mode, and compact objects are aligned to 4 bytes (8 with 8-byte granules), not to malloc's 16: no low bit beyond those is free for a tag [-Wcompactptr-integer-cast]
// DEFAULT: warning-flags.c:[[@LINE-3]]:32: warning: the 'void *' returned by 'wrap' becomes a compact pointer to 'struct node', {{.*}} [-Wcompactptr-foreign-object]
// NOINT-NOT: integer-cast
// NOINT: [-Wcompactptr-foreign-object]
// NOINT-NOT: integer-cast
// NONE-NOT: warning:
// ERRFO: warning: {{.*}} [-Wcompactptr-integer-cast]
// ERRFO: error: the 'void *' returned by 'wrap' {{.*}} [-Werror,-Wcompactptr-foreign-object]
// WERROR: error: {{.*}} [-Werror,-Wcompactptr-integer-cast]
// WERROR: error: {{.*}} [-Werror,-Wcompactptr-foreign-object]
// BOGUS: error: compactptr: unknown warning '-Wno-compactptr-bogus' (compactptr warnings: integer-cast unrelated-cast foreign-object void-escape interior-escape blocking-on-object callback-safepoint layout-stored layout-bytes unpolled-spin unpolled-loop realloc-rebase pinned-prefix pool-release allocator-effects)
