/* Redis-style dictionary: two hash tables, incremental rehashing, safe and
 * unsafe iterators, dictType with callbacks. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

typedef struct CP_COMPACT dictEntry {
    void *key;
    union { void *val; uint64_t u64; int64_t s64; } v;
    struct dictEntry *next;
} dictEntry;

typedef struct dictType {
    uint64_t (*hashFunction)(const void *key);
    int (*keyCompare)(void *privdata, const void *key1, const void *key2);
    void (*keyDestructor)(void *privdata, void *key);
} dictType;

typedef struct dictht {
    dictEntry **table;
    unsigned long size;
    unsigned long sizemask;
    unsigned long used;
} dictht;

typedef struct dict {
    dictType *type;
    void *privdata;
    dictht ht[2];
    long rehashidx;
    int iterators;
} dict;

typedef struct dictIterator {
    dict *d;
    long index;
    int table, safe;
    dictEntry *entry, *nextEntry;
} dictIterator;

#define DICT_OK 0
#define DICT_ERR 1
#define DICT_HT_INITIAL_SIZE 4
#define dictIsRehashing(d) ((d)->rehashidx != -1)
#define dictHashKey(d, key) (d)->type->hashFunction(key)
#define dictCompareKeys(d, key1, key2) \
    (((d)->type->keyCompare) ? (d)->type->keyCompare((d)->privdata, key1, key2) : (key1) == (key2))
#define dictFreeKey(d, entry) \
    if ((d)->type->keyDestructor) (d)->type->keyDestructor((d)->privdata, (entry)->key)
#define dictGetKey(he) ((he)->key)
#define dictGetVal(he) ((he)->v.s64)
#define dictSlots(d) ((d)->ht[0].size + (d)->ht[1].size)
#define dictSize(d) ((d)->ht[0].used + (d)->ht[1].used)

static void _dictReset(dictht *ht) {
    ht->table = NULL; ht->size = 0; ht->sizemask = 0; ht->used = 0;
}

static dict *dictCreate(dictType *type, void *privDataPtr) {
    dict *d = malloc(sizeof(*d));
    _dictReset(&d->ht[0]);
    _dictReset(&d->ht[1]);
    d->type = type; d->privdata = privDataPtr;
    d->rehashidx = -1; d->iterators = 0;
    return d;
}

static unsigned long _dictNextPower(unsigned long size) {
    unsigned long i = DICT_HT_INITIAL_SIZE;
    while (i < size) i *= 2;
    return i;
}

static int dictExpand(dict *d, unsigned long size) {
    dictht n;
    unsigned long realsize = _dictNextPower(size);
    if (dictIsRehashing(d) || d->ht[0].used > size) return DICT_ERR;
    n.size = realsize; n.sizemask = realsize - 1;
    n.table = calloc(realsize, sizeof(dictEntry *));
    n.used = 0;
    if (d->ht[0].table == NULL) { d->ht[0] = n; return DICT_OK; }
    d->ht[1] = n;
    d->rehashidx = 0;
    return DICT_OK;
}

static int dictRehash(dict *d, int n) {
    int empty_visits = n * 10;
    if (!dictIsRehashing(d)) return 0;
    while (n-- && d->ht[0].used != 0) {
        dictEntry *de, *nextde;
        while (d->ht[0].table[d->rehashidx] == NULL) {
            d->rehashidx++;
            if (--empty_visits == 0) return 1;
        }
        de = d->ht[0].table[d->rehashidx];
        while (de) {
            uint64_t h;
            nextde = de->next;
            h = dictHashKey(d, de->key) & d->ht[1].sizemask;
            de->next = d->ht[1].table[h];
            d->ht[1].table[h] = de;
            d->ht[0].used--; d->ht[1].used++;
            de = nextde;
        }
        d->ht[0].table[d->rehashidx] = NULL;
        d->rehashidx++;
    }
    if (d->ht[0].used == 0) {
        free(d->ht[0].table);
        d->ht[0] = d->ht[1];
        _dictReset(&d->ht[1]);
        d->rehashidx = -1;
        return 0;
    }
    return 1;
}

static void _dictRehashStep(dict *d) {
    if (d->iterators == 0) dictRehash(d, 1);
}

static int _dictExpandIfNeeded(dict *d) {
    if (dictIsRehashing(d)) return DICT_OK;
    if (d->ht[0].size == 0) return dictExpand(d, DICT_HT_INITIAL_SIZE);
    if (d->ht[0].used >= d->ht[0].size) return dictExpand(d, d->ht[0].used * 2);
    return DICT_OK;
}

static long _dictKeyIndex(dict *d, const void *key, uint64_t hash, dictEntry **existing) {
    unsigned long idx, table;
    dictEntry *he;
    if (existing) *existing = NULL;
    if (_dictExpandIfNeeded(d) == DICT_ERR) return -1;
    for (table = 0; table <= 1; table++) {
        idx = hash & d->ht[table].sizemask;
        he = d->ht[table].table ? d->ht[table].table[idx] : NULL;
        while (he) {
            if (key == he->key || dictCompareKeys(d, key, he->key)) {
                if (existing) *existing = he;
                return -1;
            }
            he = he->next;
        }
        if (!dictIsRehashing(d)) break;
    }
    return idx;
}

static dictEntry *dictAddRaw(dict *d, void *key, dictEntry **existing) {
    long index;
    dictEntry *entry;
    dictht *ht;
    if (dictIsRehashing(d)) _dictRehashStep(d);
    if ((index = _dictKeyIndex(d, key, dictHashKey(d, key), existing)) == -1) return NULL;
    ht = dictIsRehashing(d) ? &d->ht[1] : &d->ht[0];
    entry = malloc(sizeof(*entry));
    entry->next = ht->table[index];
    ht->table[index] = entry;
    ht->used++;
    entry->key = key;
    return entry;
}

static dictEntry *dictFind(dict *d, const void *key) {
    dictEntry *he;
    uint64_t h, idx, table;
    if (dictSize(d) == 0) return NULL;
    if (dictIsRehashing(d)) _dictRehashStep(d);
    h = dictHashKey(d, key);
    for (table = 0; table <= 1; table++) {
        idx = h & d->ht[table].sizemask;
        he = d->ht[table].table[idx];
        while (he) {
            if (key == he->key || dictCompareKeys(d, key, he->key)) return he;
            he = he->next;
        }
        if (!dictIsRehashing(d)) return NULL;
    }
    return NULL;
}

static int dictDelete(dict *d, const void *key) {
    uint64_t h, idx;
    dictEntry *he, *prevHe;
    int table;
    if (d->ht[0].used == 0 && d->ht[1].used == 0) return DICT_ERR;
    if (dictIsRehashing(d)) _dictRehashStep(d);
    h = dictHashKey(d, key);
    for (table = 0; table <= 1; table++) {
        idx = h & d->ht[table].sizemask;
        he = d->ht[table].table[idx];
        prevHe = NULL;
        while (he) {
            if (key == he->key || dictCompareKeys(d, key, he->key)) {
                if (prevHe) prevHe->next = he->next;
                else d->ht[table].table[idx] = he->next;
                dictFreeKey(d, he);
                free(he);
                d->ht[table].used--;
                return DICT_OK;
            }
            prevHe = he;
            he = he->next;
        }
        if (!dictIsRehashing(d)) break;
    }
    return DICT_ERR;
}

static dictIterator *dictGetIterator(dict *d, int safe) {
    dictIterator *iter = malloc(sizeof(*iter));
    iter->d = d; iter->table = 0; iter->index = -1; iter->safe = safe;
    iter->entry = NULL; iter->nextEntry = NULL;
    return iter;
}

static dictEntry *dictNext(dictIterator *iter) {
    while (1) {
        if (iter->entry == NULL) {
            dictht *ht = &iter->d->ht[iter->table];
            if (iter->index == -1 && iter->table == 0 && iter->safe) iter->d->iterators++;
            iter->index++;
            if (iter->index >= (long)ht->size) {
                if (dictIsRehashing(iter->d) && iter->table == 0) {
                    iter->table++; iter->index = 0;
                    ht = &iter->d->ht[1];
                } else break;
            }
            iter->entry = ht->table[iter->index];
        } else {
            iter->entry = iter->nextEntry;
        }
        if (iter->entry) {
            iter->nextEntry = iter->entry->next;
            return iter->entry;
        }
    }
    return NULL;
}

static void dictReleaseIterator(dictIterator *iter) {
    if (iter->safe && !(iter->index == -1 && iter->table == 0)) iter->d->iterators--;
    free(iter);
}

static uint64_t strHash(const void *key) {
    const unsigned char *s = key; uint64_t h = 1469598103934665603ULL;
    while (*s) { h ^= *s++; h *= 1099511628211ULL; }
    return h;
}
static int strCompare(void *priv, const void *a, const void *b) {
    (void)priv; return strcmp(a, b) == 0;
}
static void strFree(void *priv, void *k) { (void)priv; free(k); }

static dictType strType = { strHash, strCompare, strFree };

static unsigned long rng = 12345;
static unsigned long rnd(void) { rng = rng * 6364136223846793005ULL + 1442695040888963407ULL; return rng >> 33; }

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 40000;
    dict *d = dictCreate(&strType, NULL);
    char buf[32];
    long i, found = 0, deleted = 0;
    uint64_t sum = 0;
    for (i = 0; i < n; i++) {
        dictEntry *e, *ex;
        snprintf(buf, sizeof buf, "key:%lu", rnd() % (unsigned long)(n * 2));
        e = dictAddRaw(d, strdup(buf), &ex);
        if (e) e->v.s64 = i;
        else { ex->v.s64 += i; free(NULL); }
        if (i % 7 == 0) {
            snprintf(buf, sizeof buf, "key:%lu", rnd() % (unsigned long)(n * 2));
            if (dictFind(d, buf)) found++;
        }
        if (i % 11 == 0) {
            snprintf(buf, sizeof buf, "key:%lu", rnd() % (unsigned long)(n * 2));
            if (dictDelete(d, buf) == DICT_OK) deleted++;
        }
    }
    {   /* safe iterator: delete odd values while iterating */
        dictIterator *it = dictGetIterator(d, 1);
        dictEntry *e;
        long visited = 0;
        while ((e = dictNext(it)) != NULL) {
            visited++;
            sum += strHash(dictGetKey(e)) ^ (uint64_t)dictGetVal(e);
            if (dictGetVal(e) & 1) dictDelete(d, dictGetKey(e));
        }
        dictReleaseIterator(it);
        printf("visited %ld\n", visited);
    }
    {   /* unsafe iterator: just sum */
        dictIterator *it = dictGetIterator(d, 0);
        dictEntry *e; uint64_t s2 = 0;
        while ((e = dictNext(it)) != NULL) s2 += (uint64_t)dictGetVal(e);
        dictReleaseIterator(it);
        printf("remaining sum %llu\n", (unsigned long long)s2);
    }
    while (dictIsRehashing(d)) dictRehash(d, 100);
    printf("size %lu slots %lu found %ld deleted %ld checksum %llu\n",
           (unsigned long)dictSize(d), (unsigned long)dictSlots(d), found, deleted,
           (unsigned long long)sum);
    return 0;
}
