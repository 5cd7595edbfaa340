/* A library's intrusive hash handle, in a header the program does not
 * own (uthash.h's UT_hash_handle, in its manner). */
typedef struct hash_handle {
  struct hash_handle *next_in_bucket;
  void *prev, *next;
} hash_handle;
