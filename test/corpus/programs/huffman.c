/* Huffman coding of generated text, repeated over blocks: the tree's nodes
 * come from a static array (at most 2*256-1 per tree), a binary min-heap of
 * node pointers orders them, codes are built by recursion into a table,
 * and decoding walks the tree bit by bit.  Between blocks a growing list of
 * per-block statistics nodes is kept on the heap. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT hnode {
    unsigned long freq;
    int sym;                 /* -1 for internal */
    struct hnode *left, *right, *parent;
};

struct CP_COMPACT blockstat {
    int block;
    size_t bits;
    unsigned long digest;
    struct blockstat *next;
    struct hnode *root_copy;   /* a heap copy of the tree */
};

static struct hnode pool[511];
static int npool;

struct heap { struct hnode *a[256]; int n; };

static int less(const struct hnode *x, const struct hnode *y) {
    if (x->freq != y->freq) return x->freq < y->freq;
    return (x - pool) < (y - pool);        /* tie-break on creation order */
}
static void heap_push(struct heap *h, struct hnode *x) {
    int i = h->n++;
    while (i > 0 && less(x, h->a[(i - 1) / 2])) { h->a[i] = h->a[(i - 1) / 2]; i = (i - 1) / 2; }
    h->a[i] = x;
}
static struct hnode *heap_pop(struct heap *h) {
    struct hnode *top = h->a[0], *last = h->a[--h->n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && less(h->a[c + 1], h->a[c])) c++;
        if (!less(h->a[c], last)) break;
        h->a[i] = h->a[c]; i = c;
    }
    h->a[i] = last;
    return top;
}

struct code { unsigned long bits; int len; };
static void make_codes(const struct hnode *n, unsigned long bits, int len, struct code *tab) {
    if (n->sym >= 0) { tab[n->sym].bits = bits; tab[n->sym].len = len ? len : 1; return; }
    make_codes(n->left, bits << 1, len + 1, tab);
    make_codes(n->right, (bits << 1) | 1, len + 1, tab);
}

static struct hnode *copy_tree(const struct hnode *n, struct hnode *parent) {
    struct hnode *c;
    if (!n) return NULL;
    c = malloc(sizeof *c);
    *c = *n;
    c->parent = parent;
    c->left = copy_tree(n->left, c);
    c->right = copy_tree(n->right, c);
    return c;
}
static void free_tree(struct hnode *n) { if (n) { free_tree(n->left); free_tree(n->right); free(n); } }
static int depth_of(const struct hnode *n) { int d = 0; while (n->parent) { n = n->parent; d++; } return d; }

static unsigned seed = 1234;
static unsigned rnd(unsigned m) { seed = seed * 1664525u + 1013904223u; return (seed >> 11) % m; }

int main(int argc, char **argv) {
    int blocks = argc > 1 ? atoi(argv[1]) : 300, b, i;
    size_t len = 20000;
    unsigned char *text = malloc(len), *dec = malloc(len);
    unsigned char *packed = malloc(len * 8);
    struct blockstat *stats = NULL, **tail = &stats;
    unsigned long total_bits = 0, chk = 0;
    for (b = 0; b < blocks; b++) {
        unsigned long freq[256] = { 0 };
        struct heap h; struct code tab[256];
        struct hnode *root, *leaf_of[256] = { 0 };
        size_t nbits = 0, k; int skew = 2 + b % 7;
        struct blockstat *st;
        for (k = 0; k < len; k++) { unsigned r = rnd(1000); text[k] = (unsigned char)(r < 600 ? 'a' + r % skew : r % 96 + 32); freq[text[k]]++; }
        npool = 0; h.n = 0;
        for (i = 0; i < 256; i++) if (freq[i]) {
            struct hnode *n = &pool[npool++];
            n->freq = freq[i]; n->sym = i; n->left = n->right = n->parent = NULL;
            leaf_of[i] = n;
            heap_push(&h, n);
        }
        while (h.n > 1) {
            struct hnode *x = heap_pop(&h), *y = heap_pop(&h), *z = &pool[npool++];
            z->freq = x->freq + y->freq; z->sym = -1; z->left = x; z->right = y; z->parent = NULL;
            x->parent = y->parent = z;
            heap_push(&h, z);
        }
        root = heap_pop(&h);
        memset(tab, 0, sizeof tab);
        make_codes(root, 0, 0, tab);
        memset(packed, 0, len * 8 / 8);
        for (k = 0; k < len; k++) {
            struct code c = tab[text[k]]; int j;
            for (j = c.len - 1; j >= 0; j--, nbits++) if ((c.bits >> j) & 1) packed[nbits >> 3] |= (unsigned char)(1u << (nbits & 7));
        }
        { size_t pos = 0; const struct hnode *n;
          for (k = 0; k < len; k++) {
              n = root;
              while (n->sym < 0) { n = ((packed[pos >> 3] >> (pos & 7)) & 1) ? n->right : n->left; pos++; }
              dec[k] = (unsigned char)n->sym;
          }
        }
        if (memcmp(text, dec, len) != 0) printf("block %d: decode mismatch\n", b);
        st = malloc(sizeof *st);
        st->block = b; st->bits = nbits; st->next = NULL;
        st->root_copy = copy_tree(root, NULL);
        st->digest = 0;
        for (i = 0; i < 256; i++) if (leaf_of[i]) st->digest = st->digest * 31 + depth_of(leaf_of[i]) * 257 + (leaf_of[i] - pool);
        *tail = st; tail = &st->next;
        total_bits += nbits;
    }
    for (; stats; ) {
        struct blockstat *nx = stats->next;
        chk = chk * 1000003 + stats->digest + stats->bits + stats->root_copy->freq + (stats->root_copy->left->sym & 0xff);
        free_tree(stats->root_copy);
        free(stats);
        stats = nx;
    }
    printf("blocks %d bits %lu chk %lu\n", blocks, total_bits, chk);
    free(text); free(dec); free(packed);
    return 0;
}
