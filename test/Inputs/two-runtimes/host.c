/* A host built without the plugin that opens a plugin-built library,
 * closes it and opens it again: one copy of the runtime at a time. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  for (int round = 0; round < 2; round++) {
    void *lib = dlopen(argv[1], RTLD_NOW);
    if (!lib) {
      printf("dlopen: %s\n", dlerror());
      return 1;
    }
    long (*build_and_sum)(long) = (long (*)(long))dlsym(lib, "build_and_sum");
    printf("round %d sum %ld\n", round, build_and_sum(10));
    dlclose(lib);
  }
  (void)argc;
  return 0;
}
