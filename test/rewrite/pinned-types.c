// Switchable mode: a struct not annotated that holds compact pointers next
// to a synchronization object is pinned (passes/Pinned.cpp), not compact:
// it keeps its layout, pointers to it are native, malloc, calloc, realloc
// and free of it go to cp_pinned_*, its descriptor lists its compact
// pointers at their wide offsets (the switch translates them in place),
// a blocking call on its mutex is a native region, and a global of it is
// a root.  Compact-only mode has no switch: the same struct is compact.
// RUN: %rewrite --main-only -mode=switchable %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %rewrite --main-only -mode=compact-only %s -- %cflags | FileCheck --check-prefix=ONLY %s
// RUN: %clang %cflags -O1 %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Wall -Werror %t.c %runtime -lpthread -o %t
// RUN: %t.native > %t.expect
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: FileCheck --check-prefix=OUT %s < %t.expect
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
};

// Pinned: a list head and a ring of compact pointers beside a mutex.
struct queue {
  pthread_mutex_t mu;
  struct node *head, *ring[4];
  long n;
};
// CHECK-LABEL: struct queue {
// CHECK: }; static cp_type_desc_t cp__desc_queue;

// Pinned too: it holds a pinned struct by value (and its mutex with it).
struct pool {
  struct queue q;
  int closed;
};
// CHECK: }; static cp_type_desc_t cp__desc_pool;

// Compact by inference before: it only points to a pinned struct, which
// needs no translation.  A plain struct now.
struct handle {
  struct queue *q;
  int id;
};
// CHECK-NOT: cp__desc_{{handle}}

// Annotated: stays compact, its mutex warned at blocking calls.
struct CP_COMPACT locked {
  pthread_mutex_t mu;
  struct locked *next;
};
// CHECK: }; struct cp__c_locked {{.*}}

// A mutex but no compact pointer: a plain struct.
struct counter {
  pthread_mutex_t mu;
  long n;
};
// CHECK-NOT: cp__desc_{{counter}}

// A compact struct by value inside: compact, not pinned (its address
// inside the struct is a compact pointer).
struct holder {
  pthread_mutex_t mu;
  struct node first;
};
// CHECK: }; struct cp__c_holder {{.*}}

// A compact struct that points to a pinned one: the pointer is native (8
// bytes in the compact layout), and a lock reached through it is the
// pinned object's, so its wait is a native region.
struct CP_COMPACT task {
  struct task *next;
  struct queue *owner;
};

// Padded to a cache line: pinned, its objects at that alignment.
struct shard {
  pthread_mutex_t mu;
  struct node *head;
} __attribute__((aligned(64)));
// CHECK: } __attribute__((aligned(64))); static cp_type_desc_t cp__desc_shard;

static struct queue global_q;
static struct pool *the_pool;

long sum(struct queue *q) {
  long s = 0;
  pthread_mutex_lock(&q->mu);
  // CHECK: (void)(__extension__({ __auto_type cp__a1_0 = &q->mu; int cp__r1 = pthread_mutex_trylock(cp__a1_0); if (cp__r1 != 0) {  (void)(cp_native_enter()); cp__r1 = pthread_mutex_lock(cp__a1_0); cp_native_leave();  } cp__r1; }));
  for (struct node *n = q->head; n; n = n->next)
    s += n->key;
  for (int i = 0; i < 4; i++)
    if (q->ring[i])
      s += q->ring[i]->key;
  pthread_mutex_unlock(&q->mu);
  return s;
}

long owner_sum(struct task *t) {
  long s = 0;
  pthread_mutex_lock(&t->owner->mu);
  // CHECK: {{.*}}(cp_is_compact() ? (void)(__extension__({ __auto_type cp__a1_0 = &(((struct cp__c_task *)(t))->owner)->mu; int cp__r1 = pthread_mutex_trylock(cp__a1_0); if (cp__r1 != 0) {  (void)(cp__slotframe.s[0] = t, cp_native_enter()); {{.*}}
  s = t->owner->n;
  pthread_mutex_unlock(&t->owner->mu);
  return s;
}

static void push(struct queue *q, long key) {
  struct node *n = malloc(sizeof *n);
  n->key = key;
  n->next = q->head;
  q->head = n;
  q->ring[key & 3] = n;
  q->n++;
}

int main(void) {
  struct queue *q = malloc(sizeof *q);
  // CHECK: struct queue *q = cp_pinned_alloc(&cp__desc_queue, 1);
  pthread_mutex_init(&q->mu, NULL);
  q->head = NULL;
  for (int i = 0; i < 4; i++)
    q->ring[i] = NULL;
  struct queue *many = calloc(3, sizeof(struct queue));
  // CHECK: struct queue *many = cp_pinned_alloc(&cp__desc_queue, (unsigned long)(3));
  many = realloc(many, 6 * sizeof *many);
  // CHECK: many = cp_pinned_realloc(&cp__desc_queue, many, (unsigned long)(6));
  for (int i = 3; i < 6; i++)
    many[i] = many[0];
  the_pool = malloc(sizeof(struct pool));
  // CHECK: the_pool = cp_pinned_alloc(&cp__desc_pool, 1);
  the_pool->q = many[0];
  pthread_mutex_init(&global_q.mu, NULL);
  struct handle *h = malloc(sizeof *h);
  // CHECK: struct handle *h = malloc(sizeof *h);
  h->q = q;
  for (long k = 0; k < 20000; k++) {
    push(q, k);
    push(&many[k % 6], 2 * k);
    push(&the_pool->q, 3 * k);
    push(&global_q, 4 * k);
  }
  struct task *tk = malloc(sizeof *tk);
  tk->owner = q;
  tk->next = NULL;
  struct shard *sh = calloc(4, sizeof *sh);
  // CHECK: struct shard *sh = cp_pinned_alloc(&cp__desc_shard, (unsigned long)(4));
  for (int i = 0; i < 4; i++)
    sh[i].head = q->ring[i];
  long t = sum(h->q) + sum(&the_pool->q) + sum(&global_q) + owner_sum(tk);
  for (int i = 0; i < 4; i++)
    t += sh[i].head->key;
  free(sh);
  free(tk);
  for (int i = 0; i < 6; i++)
    t += sum(&many[i]);
  printf("sum %ld\n", t);
  // OUT: sum 2000639904
  free(h);
  free(q);
  // CHECK: cp_pinned_free(q);
  free(many);
  free(the_pool);
  return 0;
}
// CHECK-LABEL: /* compactptr: type descriptors (mode switchable) */
// CHECK: static const cp_field_desc_t cp__fields_queue[] = {
// CHECK-NEXT:   {"head", __builtin_offsetof(struct queue, head), __builtin_offsetof(struct queue, head), CP_FIELD_HANDLE, 1, 0, &cp__desc_node},
// CHECK-NEXT:   {"ring", __builtin_offsetof(struct queue, ring), __builtin_offsetof(struct queue, ring), CP_FIELD_HANDLE, 4, 0, &cp__desc_node},
// CHECK-NEXT: };
// CHECK-NEXT: static cp_type_desc_t cp__desc_queue = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_SWITCHABLE, "queue", ((sizeof(struct queue) + CP_GRANULE - 1) / CP_GRANULE * CP_GRANULE), (__alignof__(struct queue) > 4 ? __alignof__(struct queue) : 4), sizeof(struct queue), __alignof__(struct queue), 2, cp__fields_queue, &cp__module, 0};
// CHECK: {"q", __builtin_offsetof(struct pool, q), __builtin_offsetof(struct pool, q), CP_FIELD_STRUCT, 1, 0, &cp__desc_queue},
// CHECK: static const cp_root_desc_t cp__root_global_q = {(void *)&global_q, CP_ROOT_VALUE, 1, &cp__desc_queue, "global_q"};

// ONLY: struct cp__c_queue {{.*}}
// ONLY: {{^}}  struct queue *q = cp_alloc(&cp__desc_queue);
