// What memcheck and racecheck write to stderr, read back by their planted-bug
// programs (tests/cuda/memcheck/).
#ifndef ZLUDA_TESTS_MEMCHECK_CAPTURE_H
#define ZLUDA_TESTS_MEMCHECK_CAPTURE_H

#include <cstdio>
#include <string>
#include <unistd.h>

/// stderr goes to a file while the launch runs; its text comes back (and is
/// written to the real stderr as well, for the test's log).
struct CaptureStderr {
  int Saved = -1;
  FILE *F = nullptr;
  CaptureStderr() {
    std::fflush(stderr);
    F = std::tmpfile();
    Saved = dup(2);
    dup2(fileno(F), 2);
  }
  std::string finish() {
    std::fflush(stderr);
    dup2(Saved, 2);
    close(Saved);
    std::string Text;
    std::rewind(F);
    char Buf[4096];
    for (size_t N; (N = std::fread(Buf, 1, sizeof Buf, F)) > 0;)
      Text.append(Buf, N);
    std::fclose(F);
    std::fputs(Text.c_str(), stderr);
    return Text;
  }
};

/// 1 (and a FAIL line naming \p Tool) when \p Text lacks \p Want, else 0.
inline int lacks(const std::string &Text, const char *Want, const char *Tool) {
  if (Text.find(Want) != std::string::npos)
    return 0;
  std::printf("FAIL: %s's report lacks \"%s\"\n", Tool, Want);
  return 1;
}

#endif // ZLUDA_TESTS_MEMCHECK_CAPTURE_H
