/* Instantiates the cwtest tracepoint provider (cwtest_tp.h) in the writer program. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "cwtest_tp.h"
