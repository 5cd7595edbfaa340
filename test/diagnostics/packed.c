// Packed compact types are refused: handles must stay aligned.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// -fpack-struct packs every struct (a compact build crashed on the
// misaligned handles): refused too.
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only -fpack-struct=2 %s 2>&1 | FileCheck --check-prefix=PACK %s
// PACK: error: compact type 'struct node' is packed; compact types cannot be packed (remove __attribute__((packed)), #pragma pack or -fpack-struct)
#include <compactptr.h>

struct CP_COMPACT __attribute__((packed)) node { // expected-error {{compact type 'struct node' is packed; compact types cannot be packed (remove __attribute__((packed)), #pragma pack or -fpack-struct)}}
  char c;
  struct node *next;
};

// Not annotated, but it holds a compact pointer: inferred compact, so the
// same rule applies.
struct __attribute__((packed)) wrap { // expected-error {{compact type 'struct wrap' is packed}}
  char c;
  struct node *n;
};
