// libFuzzer target: the input is one stream file, decoded with a fixed metadata (kMetadata)
// and every event formatted as text and as JSON, so the packet decoder and the field walker
// are both fuzzed.
//
// The metadata covers: LTTng's compact and large event headers (fast paths, extended ids),
// a plain header (u32 id, u64 timestamp: perf's, decoded on the extended option's path), a
// generic header with a 20-bit timestamp on a 1 MHz clock, packet contexts with and
// without the LTTng fields, a stream event context, an event context, little- and
// big-endian bit fields, floats, enums with overlapping ranges, text arrays, sequences
// (lengths from the same struct, the event context and the stream event context), strings,
// arrays and sequences of variable-size structs, arrays and sequences of empty structs
// (nested too), variants (tag in the payload and in the event header) and an event id
// above 65535. fuzz/make_packet_seeds.py writes valid stream files for it
// (fuzz/corpus/packet/); keep the two in step. Counts stay small so that each input runs
// fast (huge arrays of empty elements are covered by the tests).
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "ctf/reader/stream_cursor.h"
#include "ctf/reader/trace.h"
#include "report/event_format.h"

namespace {

using namespace causeway;

constexpr char kMetadata[] = R"(/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 5; align = 1; signed = false; } := uint5_t;

trace {
	major = 1;
	minor = 8;
	uuid = "2a6422d0-6cee-11e0-8c08-cb07d7b3a564";
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint8_t  uuid[16];
		uint32_t stream_id;
		uint64_t stream_instance_id;
	};
};

env {
	hostname = "fuzz";
	domain = "kernel";
	tracer_major = 2;
};

clock {
	name = monotonic;
	freq = 1000000000;
	offset = 1376578704245614726;
};

clock {
	name = slow;
	freq = 1000000;
	offset_s = 1376578704;
	offset = 500;
};

typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_monotonic_t;
typealias integer { size = 32; align = 8; signed = false; map = clock.monotonic.value; } := uint32_clock_monotonic_t;
typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;
typealias integer { size = 64; align = 8; signed = false; map = clock.slow.value; } := uint64_clock_slow_t;
typealias integer { size = 20; align = 1; signed = false; map = clock.slow.value; } := uint20_clock_slow_t;

struct packet_context {
	uint64_clock_monotonic_t timestamp_begin;
	uint64_clock_monotonic_t timestamp_end;
	uint64_t content_size;
	uint64_t packet_size;
	uint64_t packet_seq_num;
	uint64_t events_discarded;
	uint32_t cpu_id;
};

struct event_header_compact {
	enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
	variant <id> {
		struct {
			uint27_clock_monotonic_t timestamp;
		} compact;
		struct {
			uint32_t id;
			uint64_clock_monotonic_t timestamp;
		} extended;
	} v;
} align(8);

struct event_header_large {
	enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;
	variant <id> {
		struct {
			uint32_clock_monotonic_t timestamp;
		} compact;
		struct {
			uint32_t id;
			uint64_clock_monotonic_t timestamp;
		} extended;
	} v;
} align(8);

enum color : uint8_t { RED, GREEN = 5, BLUE = 10 ... 20, DARK_BLUE = 15 };

stream {
	id = 0;
	event.header := struct event_header_compact;
	packet.context := struct packet_context;
	event.context := struct {
		integer { size = 32; align = 8; signed = 1; } _vtid;
		string _procname;
	};
};

stream {
	id = 1;
	event.header := struct event_header_large;
	packet.context := struct packet_context;
};

stream {
	id = 2;
	packet.context := struct {
		uint64_clock_slow_t timestamp_begin;
		uint32_t content_size;
		uint32_t packet_size;
	};
	event.header := struct {
		uint8_t id;
		uint20_clock_slow_t timestamp;
	} align(32);
};

stream {
	id = 3;
	packet.context := struct packet_context;
	event.header := struct {
		uint32_t id;
		uint64_clock_monotonic_t timestamp;
	} align(8);
};

event {
	name = "everything";
	id = 0;
	stream_id = 0;
	context := struct {
		uint16_t _ctx_len;
		enum : uint5_t { X, Y, Z } _ctx_sel;
	};
	fields := struct {
		integer { size = 3; align = 1; signed = true; } _bits3;
		integer { size = 11; align = 1; signed = false; base = 16; } _hex11;
		integer { size = 13; align = 8; signed = false; byte_order = be; } _be13;
		integer { size = 3; align = 1; signed = false; byte_order = be; } _be3;
		integer { size = 32; align = 8; signed = true; byte_order = be; } _be32;
		integer { size = 64; align = 8; signed = false; base = 8; } _oct64;
		integer { size = 7; align = 8; signed = false; base = 2; byte_order = be; } _bin7;
		floating_point { exp_dig = 8; mant_dig = 24; align = 8; } _f32;
		floating_point { exp_dig = 11; mant_dig = 53; align = 8; byte_order = be; } _f64be;
		enum color _color;
		integer { size = 8; align = 8; signed = 0; encoding = UTF8; } _text[8];
		uint16_t _words[3];
		uint32_t _n;
		uint16_t _seq16[_n];
		integer { size = 8; align = 8; signed = 1; encoding = UTF8; } _seqtext[_n];
		uint8_t _ctx_bytes[event.context._ctx_len];
		string _name;
		string _names[_n];
		enum : uint8_t { none, num, str, pair } _kind;
		variant <_kind> {
			struct { } none;
			uint32_t num;
			string str;
			struct { uint8_t a; uint64_t b; } pair;
		} _value;
		uint8_t _m;
		struct {
			enum : uint8_t { i, s } tag;
			variant <tag> { uint16_t i; string s; } v;
			integer { size = 4; align = 1; signed = false; } nib;
		} _items[_m];
		struct { uint8_t k; uint8_t vals[k]; } _nested[2];
	};
};

event {
	name = "tick";
	id = 1;
	stream_id = 0;
	fields := struct { };
};

event {
	name = "by_header";
	id = 2;
	stream_id = 0;
	fields := struct {
		variant <stream.event.header.id> {
			uint8_t compact;
			uint64_t extended;
		} _h;
		uint8_t _tail[stream.event.context._vtid];
	};
};

event {
	name = "empties";
	id = 3;
	stream_id = 0;
	fields := struct {
		uint8_t _n;
		integer { size = 3; align = 8; signed = false; } _k;
		uint8_t _zero;
		struct { } _none[_n];
		struct { } _few[3];
		struct { struct { uint8_t z[_zero]; } in[_k]; } _nest[_k];
	};
};

event {
	name = "extended_only";
	id = 40;
	stream_id = 0;
	fields := struct {
		uint32_t _arr[4];
		string _s;
	};
};

event {
	name = "large_a";
	id = 0;
	stream_id = 1;
	fields := struct {
		uint64_t _len;
		uint8_t _bytes[_len];
		floating_point { exp_dig = 8; mant_dig = 24; align = 32; byte_order = be; } _f;
	};
};

event {
	name = "large_ext";
	id = 70000;
	stream_id = 1;
	fields := struct {
		string _s;
	};
};

event {
	name = "slow_a";
	id = 0;
	stream_id = 2;
	fields := struct {
		uint8_t _x;
		string _s;
	};
};

event {
	name = "slow_b";
	id = 3;
	stream_id = 2;
	fields := struct {
		struct { string s; uint8_t n; uint16_t w[n]; } _recs[2];
	};
};

event {
	name = "plain_fixed";
	id = 0;
	stream_id = 3;
	fields := struct {
		uint32_t _a;
		uint64_t _b;
	};
};

event {
	name = "plain_tail";
	id = 1;
	stream_id = 3;
	fields := struct {
		uint16_t _n;
		string _s;
	};
};

event {
	name = "plain_mid";
	id = 4;
	stream_id = 3;
	fields := struct {
		string _s;
		uint32_t _n;
	};
};
)";

// Trace::Open reads a directory: the metadata goes to a temporary one, once.
std::unique_ptr<ctf::Trace> LoadTrace() {
  std::string dir =
      (std::filesystem::temp_directory_path() / "causeway-packet-fuzzer-XXXXXX").string();
  if (!mkdtemp(dir.data())) {
    std::perror("mkdtemp");
    std::abort();
  }
  const std::string path = dir + "/metadata";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(kMetadata, 1, sizeof kMetadata - 1, f) != sizeof kMetadata - 1 ||
      std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
  auto trace = ctf::Trace::Open(dir);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!trace.ok()) {
    std::fprintf(stderr, "packet_fuzzer: bad embedded metadata: %s\n",
                 trace.status().ToString().c_str());
    std::abort();
  }
  return std::move(trace).value();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::unique_ptr<ctf::Trace> trace = LoadTrace();
  // The input is decoded in place: ASan sees any read past its last byte.
  ctf::StreamCursor cursor(trace.get(), 0, 0, 0, "fuzz-input");
  if (!cursor.OpenMemory(data, size).ok()) return 0;
  report::EventFormatter text({.time = report::TimeFormat::kSeconds});
  report::EventFormatter json({.time = report::TimeFormat::kGmt});
  std::string out;
  // After every other event, a run of static-layout records (NextStaticRun, what the
  // decoding pipeline calls), so that its loop meets the same bytes.
  ctf::EventRecord records[8];
  for (int n = 0; n < 100000 && cursor.Next(); ++n) {
    out.clear();
    text.AppendText(cursor.event(), &out);
    json.AppendJson(cursor.event(), &out);
    if (n % 2) cursor.NextStaticRun(records, 1 + n % 8);
  }
  if (!cursor.status().ok()) out = cursor.status().ToString();
  return 0;
}
