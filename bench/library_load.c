/* library_load: how long dlopen + cuInit of a libcuda.so.1 take, and the
 * process's resident memory after them (docs/PERFORMANCE.md, "Loading
 * libcuda.so.1"). Usage: ZLUDA_BACKEND=cpu library_load PATH/libcuda.so.1
 * Prints: cuInit's result, milliseconds, VmRSS in kB. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
int main(int c, char **v) {
  struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
  void *h = dlopen(v[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) { printf("%s\n", dlerror()); return 1; }
  int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
  int r = init(0);
  clock_gettime(CLOCK_MONOTONIC, &b);
  FILE *f = fopen("/proc/self/status", "r"); char line[256]; long rss = 0;
  while (fgets(line, sizeof line, f)) if (!strncmp(line, "VmRSS:", 6)) sscanf(line + 6, "%ld", &rss);
  printf("%d %.2f ms %ld kB\n", r, (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6, rss);
}
