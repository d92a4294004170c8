/* Emits the cwtest events (cwtest_tp.h) for tests/ctf_lttng_ust_interop_test.cc.
 *
 * usage: causeway_ust_writer every-kind|burst COUNT THREADS
 *   every-kind: each thread emits COUNT cwtest:every_kind events whose values cycle through
 *               edge cases (extreme integers, NaN and infinities, empty and escaped texts),
 *               each followed by a cwtest:tick, and every tenth by a tracef and a tracelog
 *               event (not counted: enable lttng_ust_tracef:* and lttng_ust_tracelog:* to
 *               record them);
 *   burst:      each thread emits COUNT cwtest:tick events as fast as it can, to overflow
 *               small buffers.
 * Prints "emitted N" (every event of every thread) on success. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lttng/tracef.h>
#include <lttng/tracelog.h>

#include "cwtest_tp.h"

/* Every byte from 0x01 to 0x7f, and from 0x80 to 0xff: filled in by main(). */
static char kLowBytes[128], kHighBytes[129];
static const char* const kTexts[] = {
    "", "a", "hello world", "tab\there \"quoted\" back\\slash", "\xc3\xbcnic\xc3\xb6" "de",
    "0123456789abcdefghijklmnopqrstu", "new\nline", "it's a question? \x1b[0m \x7f \x01 \xff",
    kLowBytes, kHighBytes,
};
static const double kDoubles[] = {0.0, -0.0, 1.5, -2.25e-3, 1e300, 3.0e-310, NAN, INFINITY,
                                  -INFINITY, 123456789.125, 0.1};

static long g_count;
static int g_burst;

static void* Emit(void* arg) {
  const int64_t thread = (int64_t)(intptr_t)arg;
  for (long i = 0; i < g_count; ++i) {
    const int64_t k = thread * g_count + i;
    if (g_burst) {
      lttng_ust_tracepoint(cwtest, tick, (uint64_t)k);
      continue;
    }
    /* Fixed buffers: the array and sequence fields copy a fixed number of bytes. */
    char text[160];
    memset(text, 0, sizeof text);
    strcpy(text, kTexts[k % (sizeof kTexts / sizeof kTexts[0])]);
    int32_t ints[6];
    for (int j = 0; j < 6; ++j) ints[j] = (int32_t)((k + j) * -1640531527LL);
    const size_t n_ints = (size_t)(k % 7);
    const double d = kDoubles[k % (sizeof kDoubles / sizeof kDoubles[0])];
    const int state = (int)(k % 9) - 1; /* -1..7: DEAD, RUNNING, WAITING, and unnamed values */
    lttng_ust_tracepoint(cwtest, every_kind, k, text, ints, n_ints, d,
                         k % 11 == 10 ? 1000000 : state);
    lttng_ust_tracepoint(cwtest, tick, (uint64_t)k);
    if (k % 10 == 0) {
      /* LTTng-UST's own printf-like events: lttng_ust_tracef:event and
       * lttng_ust_tracelog:TRACE_WARNING (a sequence of text, and the call site). */
      lttng_ust_tracef("tracef %lld: %s", (long long)k, text);
      lttng_ust_tracelog(LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING, "tracelog %lld", (long long)k);
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 4 || (strcmp(argv[1], "every-kind") != 0 && strcmp(argv[1], "burst") != 0)) {
    fprintf(stderr, "usage: %s every-kind|burst COUNT THREADS\n", argv[0]);
    return 2;
  }
  for (int b = 1; b < 128; ++b) kLowBytes[b - 1] = (char)b;
  for (int b = 128; b < 256; ++b) kHighBytes[b - 128] = (char)b;
  g_burst = strcmp(argv[1], "burst") == 0;
  g_count = atol(argv[2]);
  const int threads = atoi(argv[3]);
  if (g_count <= 0 || threads <= 0 || threads > 64) {
    fprintf(stderr, "COUNT and THREADS must be positive (THREADS at most 64)\n");
    return 2;
  }
  pthread_t ids[64];
  for (int t = 0; t < threads; ++t) {
    if (pthread_create(&ids[t], NULL, Emit, (void*)(intptr_t)t) != 0) {
      fprintf(stderr, "pthread_create failed\n");
      return 1;
    }
  }
  for (int t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
  printf("emitted %ld\n", g_count * threads * (g_burst ? 1 : 2));
  return 0;
}
