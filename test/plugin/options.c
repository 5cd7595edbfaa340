// Plugin options: unknown names or values are errors; dump prints the
// rewritten files.
// REQUIRES: plugin
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-mode=fast %s 2>&1 | FileCheck --check-prefix=MODE %s
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-speed=1 %s 2>&1 | FileCheck --check-prefix=NAME %s
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-auto-safepoints=maybe %s 2>&1 | FileCheck --check-prefix=AUTO %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-mode=compact-only -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck --check-prefix=DUMP %s
// RUN: rm -rf %t.d && %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-mode=compact-only -fplugin-arg-compactptr-dump=%t.d %s && FileCheck --check-prefix=DUMP %s < %t.d/options.c
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-mode=wide -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck --check-prefix=WIDE %s
#include <compactptr.h>

struct CP_COMPACT node { struct node *next; };
struct node *next(struct node *p) { return p->next; }

// MODE: error: compactptr: unknown mode 'fast'
// NAME: error: compactptr: unknown option 'speed=1'
// AUTO: error: compactptr: auto-safepoints must be 'on' or 'off', not 'maybe'
// DUMP: #line 1 "{{.*}}options.c"
// DUMP: {{^}}struct node *next(struct node *p) { return ((struct node *)cp_decode((((struct cp__c_node *)(p))->next))); }
// WIDE: {{^}}struct node *next(struct node *p) { return p->next; }
// WIDE: {{^}}static cp_type_desc_t cp__desc_node = {{.*}}CP_BUILD_WIDE
