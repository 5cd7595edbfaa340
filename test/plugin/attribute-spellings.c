// The plugin registers `compact` (GNU and [[compactptr::compact]]) and
// `safepoint`; __has_attribute sees them only with the plugin loaded.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -std=c2x -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck --check-prefix=PLUGIN %s
// RUN: %clang %cflags -fsyntax-only -std=c2x -Werror %s
#include <compactptr.h>

#if __has_attribute(compact) && __has_attribute(safepoint)
int plugin_loaded = 1;
#else
int plugin_loaded = 0;
#endif

struct CP_COMPACT a { struct a *next; };
#if __has_attribute(compact)
struct __attribute__((compact)) b { struct b *next; };
struct [[compactptr::compact]] c { struct c *next; };
#endif
void poll(void) CP_SAFEPOINT;

// PLUGIN: {{^}}struct CP_COMPACT a { struct a *next; }; struct cp__c_a { cp_handle_t next; }
// PLUGIN: {{^}}struct __attribute__((compact)) b { struct b *next; }; struct cp__c_b { cp_handle_t next; }
// PLUGIN: {{^}}struct {{\[\[}}compactptr::compact{{\]\]}} c { struct c *next; }; struct cp__c_c { cp_handle_t next; }
