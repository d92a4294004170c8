/* Instantiates the LTTng-UST probes of cwbench_tp.h (one translation unit only). */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "cwbench_tp.h"
