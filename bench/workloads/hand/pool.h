/* pool.h - the typed pool a careful C programmer writes to store 32-bit
 * indices instead of pointers, without compactptr: one growable array per
 * node type, index 0 reserved as NULL, freed slots on a free list threaded
 * through the `link` field.  An index decodes as &pool[i] (one multiply-add
 * into the pool's base, which is reloaded only where the pool may have
 * moved).
 *
 * HAND_POOL(name, type, link) defines `static type *name;` and
 *   uint32_t name_alloc(void)   a node, uninitialised as from malloc (exits
 *                               2 when out of memory)
 *   void name_free(uint32_t i)
 * The pool doubles with realloc, so a pointer into it is valid only until
 * the next allocation: code keeps indices across allocations, as the
 * hand-written programs here do. */
#ifndef HAND_POOL_H
#define HAND_POOL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define HAND_POOL(name, type, link)                                              \
  static type *name;                                                           \
  static uint32_t name##_used = 1, name##_cap, name##_free_head;              \
  static uint32_t name##_alloc(void) {                                         \
    uint32_t i = name##_free_head;                                             \
    if (i) {                                                                   \
      name##_free_head = name[i].link;                                         \
    } else {                                                                   \
      if (name##_used >= name##_cap) {                                         \
        uint32_t cap = name##_cap ? name##_cap * 2 : 1024;                     \
        type *p = realloc(name, (size_t)cap * sizeof(type));                   \
        if (!p || cap < name##_cap) {                                          \
          fprintf(stderr, "out of memory\n");                                  \
          exit(2);                                                             \
        }                                                                      \
        name = p;                                                              \
        name##_cap = cap;                                                      \
      }                                                                        \
      i = name##_used++;                                                       \
    }                                                                          \
    return i;                                                                  \
  }                                                                            \
  static void name##_free(uint32_t i) {                                        \
    name[i].link = name##_free_head;                                           \
    name##_free_head = i;                                                      \
  }

#endif
