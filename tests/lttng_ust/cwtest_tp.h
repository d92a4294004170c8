/* Test events for the LTTng-UST interoperability test (tests/ctf_lttng_ust_interop_test.cc):
 * one event with every field kind LTTng-UST 2.13's provider macros write, and a small one
 * for bursts. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER cwtest

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./cwtest_tp.h"

#if !defined(CWTEST_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define CWTEST_TP_H

#include <lttng/tracepoint.h>
#include <stddef.h>
#include <stdint.h>

/* Overlapping labels (0 to 2 have two), a label that needs escapes, unnamed values (7). */
LTTNG_UST_TRACEPOINT_ENUM(
    cwtest, state,
    LTTNG_UST_TP_ENUM_VALUES(
        lttng_ust_field_enum_value("RUNNING", 0) lttng_ust_field_enum_range("WAITING", 1, 5)
            lttng_ust_field_enum_range("LOW", 0, 2) lttng_ust_field_enum_value("it's \"6\"", 6)
                lttng_ust_field_enum_value("DEAD", -1) lttng_ust_field_enum_value("BIG", 1000000)))

/* Every field kind; `k` picks the values (see ust_writer.c). */
LTTNG_UST_TRACEPOINT_EVENT(
    cwtest, every_kind,
    LTTNG_UST_TP_ARGS(int64_t, k, const char*, text, const int32_t*, ints, size_t, n_ints, double,
                      d, int, state),
    LTTNG_UST_TP_FIELDS(
        lttng_ust_field_integer(int8_t, i8, (int8_t)(k * 37)) lttng_ust_field_integer(
            uint8_t, u8, (uint8_t)(k * 91)) lttng_ust_field_integer(int16_t, i16,
                                                                    (int16_t)(k * -7919))
            lttng_ust_field_integer(uint16_t, u16, (uint16_t)(k * 40503)) lttng_ust_field_integer(
                int32_t, i32,
                (int32_t)(k * -2654435761LL)) lttng_ust_field_integer(uint32_t, u32,
                                                                      (uint32_t)(k * 2654435761ULL))
                lttng_ust_field_integer(int64_t, i64, k % 3 == 0 ? INT64_MIN + k : -k * 1000003)
                    lttng_ust_field_integer(
                        uint64_t, u64,
                        k % 5 == 0
                            ? UINT64_MAX - k
                            : (uint64_t)k
                                  << 40) lttng_ust_field_integer_hex(uint32_t, hex32,
                                                                     (uint32_t)(k * 0x9e3779b9u))
                        lttng_ust_field_integer_hex(
                            int16_t, hex16_signed,
                            (int16_t)(-k)) lttng_ust_field_integer_network(uint16_t, net16,
                                                                           (uint16_t)(k * 257))
                            lttng_ust_field_integer_network(int32_t, net32, (int32_t)(-k * 65599))
                                lttng_ust_field_integer_network_hex(uint64_t, net64hex,
                                                                    (uint64_t)k * 0x0102030405ULL)
                                    lttng_ust_field_float(float, f32,
                                                          (float)d) lttng_ust_field_float(double,
                                                                                          f64, d)
                                        lttng_ust_field_string(str, text) lttng_ust_field_array(
                                            int32_t, arr3, ints,
                                            3) lttng_ust_field_array_hex(uint8_t, arr4hex, ints, 4)
                                            lttng_ust_field_array_text(char, arr_text, text, 8)
                                                lttng_ust_field_sequence(int32_t, seq, ints, size_t,
                                                                         n_ints)
                                                    lttng_ust_field_sequence_network(
                                                        uint16_t, seq_net, ints, uint8_t, n_ints)
                                                        lttng_ust_field_sequence_text(
                                                            char, seq_text, text, uint32_t, n_ints)
                                                            lttng_ust_field_enum(cwtest, state, int,
                                                                                 st, state)))

LTTNG_UST_TRACEPOINT_EVENT(cwtest, tick, LTTNG_UST_TP_ARGS(uint64_t, i),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, i, i)))

#endif /* CWTEST_TP_H */

#include <lttng/tracepoint-event.h>
