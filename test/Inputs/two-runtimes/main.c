#include "node.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  struct item *head = NULL;
  for (long i = 1; i <= 10; i++) {
    struct item *it = malloc(sizeof *it);
    it->value = i;
    it->next = head;
    head = it;
  }
  void *lib = dlopen(argc > 1 ? argv[1] : "./libsum.so", RTLD_NOW);
  if (!lib) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  long (*sum)(const struct item *) =
      (long (*)(const struct item *))dlsym(lib, "sum_items");
  printf("sum %ld\n", sum(head));
  return 0;
}
