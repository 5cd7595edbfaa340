// Switchable mode prints an expression that depends on the layout once
// per layout: directives between its tokens are copied twice, which only
// whole conditional groups survive (switchable/directive-in-region.c).
// An expression that a group starts in and ends outside of (`#ifndef`
// inside it, `#else` and `#endif` after its `;`) is refused at the user's
// text, and so is one whose last token is inside a group (`x += y` `#ifndef T`
// `* 2` `#endif` `;`: its `#endif` is after it).  Compact-only mode
// copies the text once and takes them.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Werror %s
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node { long key; struct node *next; };

// Allocates: the checked form, whose expressions are printed per layout.
long f(struct node *h) {
  h->next = malloc(sizeof *h->next);
  h->next->key = h->key + // expected-error {{cannot rewrite this expression: a preprocessor directive lies inside it, and its rewritten text is printed once per layout; put the directive around the whole statement}}
#ifndef TWICE
      1000;
#else
      2000;
#endif
  h->next->key += h->key // expected-error {{cannot rewrite this expression: a preprocessor directive lies inside it}}
#ifndef TWICE
      * 2
#endif
      ;
  h->next->key += (h->key // fine: the group is whole inside the expression
#ifdef TWICE
      * 2
#endif
      );
  return h->next->key;
}
