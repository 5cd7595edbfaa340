// --json prints the same report as one JSON object; it parses as JSON.
// RUN: compactptr-advise --json %s -- %cflags > %t.json
// RUN: FileCheck %s < %t.json
// RUN: python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(len(d['structs']), d['structs'][0]['name'], d['structs'][1]['verdict'])" %t.json | FileCheck %s --check-prefix=PY
#include <stdlib.h>

struct node {
  int key;
  struct node *next;
};

struct bad {
  struct bad *next;
  char name[20];
};

struct node *n1(void) { return malloc(sizeof(struct node)); }
struct bad *b1(void) { return malloc(32); }
struct bad **slot(struct bad *b) { return &b->next; }

// CHECK:      {
// CHECK-NEXT:   "structs": [
// CHECK-NEXT:     {"rank": 1, "name": "struct node", "verdict": "clean", "file": "{{.*}}json-report.c", "line": 7, "column": 8,
// CHECK-NEXT:      "candidate": true, "annotated": false, "heap": true, "self_referential": true, "pointed_from_heap": false,
// CHECK-NEXT:      "wide_size": 16, "compact_size": 8, "saved_per_object": 8, "score": 8,
// CHECK-NEXT:      "allocation_sites": [{"file": "{{.*}}json-report.c", "line": 17, "column": 32}],
// CHECK-NEXT:      "blockers": []},
// CHECK-NEXT:     {"rank": 2, "name": "struct bad", "verdict": "blocked", "file": "{{.*}}json-report.c", "line": 12, "column": 8,
// CHECK-NEXT:      "candidate": true, "annotated": false, "heap": true, "self_referential": true, "pointed_from_heap": false,
// CHECK-NEXT:      "wide_size": 32, "compact_size": 24, "saved_per_object": 8, "score": 8,
// CHECK-NEXT:      "allocation_sites": [{"file": "{{.*}}json-report.c", "line": 18, "column": 31}],
// CHECK-NEXT:      "blockers": [
// CHECK-NEXT:        {"kind": "alloc-size", "plugin": "error", "type": "struct bad", "file": "{{.*}}json-report.c", "line": 18, "column": 38, "message": "malloc for 'struct bad' does not give its size as sizeof(struct bad) or n * sizeof(struct bad)"},
// CHECK-NEXT:        {"kind": "slot-escape", "plugin": "error", "type": "struct bad", "file": "{{.*}}json-report.c", "line": 19, "column": 43, "message": "the address of pointer field 'next' (a 'struct bad *') is returned from 'slot', which other translation units can call"}
// CHECK-NEXT:      ]}
// CHECK-NEXT:   ]
// CHECK-NEXT: }
// PY: 2 struct node blocked
