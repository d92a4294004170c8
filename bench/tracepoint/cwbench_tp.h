/* The LTTng-UST side of the tracepoint benchmark: the same event as the Causeway side
 * (int64 i, string name, uint64 span), declared with LTTng-UST 2.13's provider macros. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER cwbench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./cwbench_tp.h"

#if !defined(CWBENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define CWBENCH_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_EVENT(
    cwbench, event, LTTNG_UST_TP_ARGS(int64_t, i, const char*, name, uint64_t, span),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int64_t, i, i) lttng_ust_field_string(name, name)
                            lttng_ust_field_integer(uint64_t, span, span)))

/* Never enabled by the benchmark script: the disabled case. */
LTTNG_UST_TRACEPOINT_EVENT(
    cwbench, disabled_event, LTTNG_UST_TP_ARGS(int64_t, i, const char*, name, uint64_t, span),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int64_t, i, i) lttng_ust_field_string(name, name)
                            lttng_ust_field_integer(uint64_t, span, span)))

#endif /* CWBENCH_TP_H */

#include <lttng/tracepoint-event.h>
