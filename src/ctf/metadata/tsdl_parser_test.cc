#include "ctf/metadata/tsdl_parser.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "ctf/metadata/metadata_file.h"
#include "ctf/metadata/tsdl_lexer.h"

namespace causeway::ctf {
namespace {

// ---- Helpers -------------------------------------------------------------------------

std::string ReadDataFile(const std::string& name) {
  std::ifstream in(std::string(CAUSEWAY_TEST_DATA) + "/metadata/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Parses tests/data/metadata/NAME.metadata (packetized or plain).
TraceClass ParseDataFile(const std::string& name) {
  std::string bytes = ReadDataFile(name + ".metadata");
  std::string text = bytes;
  if (IsPacketizedMetadata(bytes)) {
    auto decoded = DecodeMetadataPackets(bytes, name);
    EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
    if (!decoded.ok()) return {};
    text = *decoded;
  }
  auto trace = ParseTsdl(text);
  EXPECT_TRUE(trace.ok()) << trace.status().ToString();
  if (!trace.ok()) return {};
  return std::move(trace).value();
}

size_t CountOccurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
    ++n;
  return n;
}

const EventClass* FindEvent(const TraceClass& trace, const std::string& name) {
  for (const auto& s : trace.streams)
    for (const auto& e : s.events)
      if (e.name == name) return &e;
  return nullptr;
}

const Type* FieldType(const TypePtr& type, const std::string& name) {
  if (!type) return nullptr;
  for (const auto& f : type->fields)
    if (f.name == name) return f.type.get();
  return nullptr;
}

std::vector<std::string> FieldNames(const TypePtr& type) {
  std::vector<std::string> names;
  if (type)
    for (const auto& f : type->fields) names.push_back(f.name);
  return names;
}

void ExpectInteger(const Type* t, uint32_t size, bool is_signed, ByteOrder order, uint32_t align,
                   uint8_t base = 10) {
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->kind, TypeKind::kInteger);
  EXPECT_EQ(t->size_bits, size);
  EXPECT_EQ(t->is_signed, is_signed);
  EXPECT_EQ(t->byte_order, order);
  EXPECT_EQ(t->align_bits, align);
  EXPECT_EQ(t->base, base);
}

constexpr char kPrelude[] =
    "trace { major = 1; minor = 8; byte_order = le; };\n"
    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
    "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n";

// Parses kPrelude + `body`, expecting success.
TraceClass Parse(const std::string& body) {
  auto trace = ParseTsdl(std::string(kPrelude) + body);
  EXPECT_TRUE(trace.ok()) << trace.status().ToString();
  if (!trace.ok()) return {};
  return std::move(trace).value();
}

// The payload struct of the only event of `Parse(body)`.
TypePtr ParseFields(const std::string& struct_body) {
  TraceClass trace =
      Parse("event { name = \"e\"; fields := struct {\n" + struct_body + "\n}; };\n");
  if (trace.streams.size() != 1 || trace.streams[0].events.size() != 1) {
    ADD_FAILURE() << "expected one event";
    return nullptr;
  }
  return trace.streams[0].events[0].fields;
}

std::string ParseError(const std::string& text) {
  auto trace = ParseTsdl(text);
  EXPECT_FALSE(trace.ok());
  return trace.ok() ? "" : trace.status().ToString();
}

// ---- Real metadata -------------------------------------------------------------------

TEST(TsdlParserTest, ManyThreadsKernelTrace) {
  TraceClass trace = ParseDataFile("many-threads");
  EXPECT_EQ(trace.major, 1u);
  EXPECT_EQ(trace.minor, 8u);
  EXPECT_EQ(trace.byte_order, ByteOrder::kLittle);
  ASSERT_TRUE(trace.uuid.has_value());
  EXPECT_EQ((*trace.uuid)[0], 0x69);
  EXPECT_EQ((*trace.uuid)[15], 0xec);
  EXPECT_EQ(trace.EnvString("hostname"), "wilbrod");
  EXPECT_EQ(trace.EnvString("domain"), "kernel");
  EXPECT_EQ(trace.EnvString("kernel_release"), "4.4.3-1-ARCH");
  ASSERT_GE(trace.env.size(), 7u);
  EXPECT_EQ(trace.env[0].first, "hostname");
  EXPECT_EQ(std::get<int64_t>(trace.env[6].second), 2);  // tracer_major

  ASSERT_EQ(trace.clocks.size(), 1u);
  const ClockClass& clock = trace.clocks[0];
  EXPECT_EQ(clock.name, "monotonic");
  EXPECT_EQ(clock.freq, 1'000'000'000u);
  EXPECT_EQ(clock.offset, 1457111225177515989);
  EXPECT_EQ(clock.offset_s, 0);
  EXPECT_EQ(clock.description, "Monotonic Clock");
  EXPECT_FALSE(clock.absolute);
  ASSERT_TRUE(clock.uuid.has_value());
  EXPECT_EQ((*clock.uuid)[0], 0xe0);

  // Packet header: magic, uuid[16], stream_id, stream_instance_id.
  ASSERT_NE(trace.packet_header, nullptr);
  EXPECT_EQ(FieldNames(trace.packet_header),
            (std::vector<std::string>{"magic", "uuid", "stream_id", "stream_instance_id"}));
  const Type* uuid = FieldType(trace.packet_header, "uuid");
  ASSERT_EQ(uuid->kind, TypeKind::kArray);
  EXPECT_EQ(uuid->length, 16u);
  ExpectInteger(uuid->element.get(), 8, false, ByteOrder::kLittle, 8);

  ASSERT_EQ(trace.streams.size(), 1u);
  const StreamClass& stream = trace.streams[0];
  EXPECT_EQ(stream.id, 0u);
  std::string text = *DecodeMetadataPackets(ReadDataFile("many-threads.metadata"), "x");
  EXPECT_EQ(stream.events.size(), CountOccurrences(text, "event {"));
  EXPECT_EQ(stream.events.size(), 1181u);
  for (size_t i = 1; i < stream.events.size(); ++i)
    EXPECT_LT(stream.events[i - 1].id, stream.events[i].id);

  // The compact event header: 5-bit enum id, then variant v <id>.
  ASSERT_NE(stream.event_header, nullptr);
  EXPECT_EQ(stream.event_header->align_bits, 8u);
  const Type* id = FieldType(stream.event_header, "id");
  ASSERT_EQ(id->kind, TypeKind::kEnum);
  EXPECT_EQ(id->size_bits, 5u);
  EXPECT_EQ(id->align_bits, 1u);
  ASSERT_EQ(id->mappings.size(), 2u);
  EXPECT_EQ(id->mappings[0].label, "compact");
  EXPECT_EQ(id->mappings[0].lo, 0);
  EXPECT_EQ(id->mappings[0].hi, 30);
  EXPECT_EQ(id->mappings[1].label, "extended");
  EXPECT_EQ(id->mappings[1].lo, 31);
  const Type* v = FieldType(stream.event_header, "v");
  ASSERT_EQ(v->kind, TypeKind::kVariant);
  EXPECT_EQ(v->ref, "id");
  const Type* compact_ts = FieldType(v->fields[0].type, "timestamp");
  ExpectInteger(compact_ts, 27, false, ByteOrder::kLittle, 1);
  EXPECT_EQ(compact_ts->mapped_clock, "monotonic");
  EXPECT_EQ(
      FieldNames(stream.packet_context),
      (std::vector<std::string>{"timestamp_begin", "timestamp_end", "content_size", "packet_size",
                                "packet_seq_num", "events_discarded", "cpu_id"}));
  ExpectInteger(FieldType(stream.packet_context, "events_discarded"), 64, false, ByteOrder::kLittle,
                8);  // `unsigned long`

  const EventClass* sched_switch = FindEvent(trace, "sched_switch");
  ASSERT_NE(sched_switch, nullptr);
  EXPECT_EQ(sched_switch->id, 1180u);
  EXPECT_EQ(sched_switch->stream_id, 0u);
  EXPECT_FALSE(sched_switch->loglevel.has_value());
  EXPECT_EQ(FieldNames(sched_switch->fields),
            (std::vector<std::string>{"_prev_comm", "_prev_tid", "_prev_prio", "_prev_state",
                                      "_next_comm", "_next_tid", "_next_prio"}));
  const Type* comm = FieldType(sched_switch->fields, "_prev_comm");
  ASSERT_EQ(comm->kind, TypeKind::kArray);
  EXPECT_EQ(comm->length, 16u);
  ExpectInteger(comm->element.get(), 8, false, ByteOrder::kLittle, 8);
  EXPECT_EQ(comm->element->encoding, Encoding::kUtf8);
  ExpectInteger(FieldType(sched_switch->fields, "_prev_tid"), 32, true, ByteOrder::kLittle, 8);
  ExpectInteger(FieldType(sched_switch->fields, "_prev_state"), 64, true, ByteOrder::kLittle, 8);

  const EventClass* fork = FindEvent(trace, "sched_process_fork");
  ASSERT_NE(fork, nullptr);
  const Type* vtids = FieldType(fork->fields, "_vtids");
  ASSERT_EQ(vtids->kind, TypeKind::kSequence);
  EXPECT_EQ(vtids->ref, "__vtids_length");
  ExpectInteger(vtids->element.get(), 32, true, ByteOrder::kLittle, 8);

  const EventClass* block_device = FindEvent(trace, "lttng_statedump_block_device");
  ASSERT_NE(block_device, nullptr);
  EXPECT_EQ(block_device->id, 0u);
  EXPECT_EQ(FieldType(block_device->fields, "_diskname")->kind, TypeKind::kString);
}

TEST(TsdlParserTest, Bug446190ThirtyTwoBitAlignedKernelTrace) {
  TraceClass trace = ParseDataFile("bug446190");
  EXPECT_EQ(trace.EnvString("hostname"), "lager");
  EXPECT_EQ(trace.EnvString("kernel_release"), "3.10.31-ltsi");
  ASSERT_EQ(trace.streams.size(), 1u);
  EXPECT_EQ(trace.streams[0].events.size(), 541u);
  EXPECT_EQ(trace.packet_header->align_bits, 32u);
  ASSERT_EQ(trace.clocks.size(), 1u);
  EXPECT_EQ(trace.clocks[0].offset, 1412663327522716450);

  const StreamClass& stream = trace.streams[0];
  EXPECT_EQ(stream.packet_context->align_bits, 64u);
  const Type* id = FieldType(stream.event_header, "id");
  ASSERT_EQ(id->kind, TypeKind::kEnum);
  EXPECT_EQ(id->size_bits, 16u);
  EXPECT_EQ(id->mappings[0].hi, 65534);
  EXPECT_EQ(id->mappings[1].lo, 65535);

  const EventClass* sched_switch = FindEvent(trace, "sched_switch");
  ASSERT_NE(sched_switch, nullptr);
  EXPECT_EQ(sched_switch->id, 64u);
  ExpectInteger(FieldType(sched_switch->fields, "_prev_tid"), 32, true, ByteOrder::kLittle, 32);
  EXPECT_EQ(sched_switch->fields->align_bits, 32u);
}

TEST(TsdlParserTest, MemoryUstTraceWithEventContext) {
  TraceClass trace = ParseDataFile("memory");
  EXPECT_EQ(trace.EnvString("domain"), "ust");
  EXPECT_EQ(trace.EnvString("hostname"), "elxa5slvvz1");
  ASSERT_EQ(trace.streams.size(), 1u);
  const StreamClass& stream = trace.streams[0];
  EXPECT_EQ(stream.events.size(), 6u);
  EXPECT_EQ(FieldNames(stream.event_context), (std::vector<std::string>{"_procname", "_vtid"}));
  const Type* procname = FieldType(stream.event_context, "_procname");
  ASSERT_EQ(procname->kind, TypeKind::kArray);
  EXPECT_EQ(procname->length, 17u);

  const EventClass* malloc_event = FindEvent(trace, "lttng_ust_libc:malloc");
  ASSERT_NE(malloc_event, nullptr);
  EXPECT_EQ(malloc_event->id, 1u);
  EXPECT_EQ(malloc_event->loglevel, 13);
  ExpectInteger(FieldType(malloc_event->fields, "_size"), 64, false, ByteOrder::kLittle, 8, 10);
  ExpectInteger(FieldType(malloc_event->fields, "_ptr"), 64, false, ByteOrder::kLittle, 8, 16);
}

TEST(TsdlParserTest, HelloLostUstTrace) {
  TraceClass trace = ParseDataFile("hello-lost");
  EXPECT_EQ(trace.EnvString("hostname"), "loki");
  EXPECT_EQ(trace.EnvString("tracer_minor"), "3");
  ASSERT_EQ(trace.clocks.size(), 1u);
  EXPECT_EQ(trace.clocks[0].name, "monotonic");  // written as an identifier here
  ASSERT_EQ(trace.streams.size(), 1u);
  ASSERT_EQ(trace.streams[0].events.size(), 2u);

  const EventClass& tptest = trace.streams[0].events[0];
  EXPECT_EQ(tptest.name, "ust_tests_hello:tptest");
  EXPECT_EQ(tptest.loglevel, 13);
  const TypePtr& f = tptest.fields;
  ExpectInteger(FieldType(f, "_intfield"), 32, true, ByteOrder::kLittle, 8);
  ExpectInteger(FieldType(f, "_intfield2"), 32, true, ByteOrder::kLittle, 8, 16);
  ExpectInteger(FieldType(f, "_netintfield"), 32, true, ByteOrder::kBig, 8);
  ExpectInteger(FieldType(f, "_netintfieldhex"), 32, true, ByteOrder::kBig, 8, 16);
  const Type* arr = FieldType(f, "_arrfield1");
  ASSERT_EQ(arr->kind, TypeKind::kArray);
  EXPECT_EQ(arr->length, 3u);
  const Type* seq = FieldType(f, "_seqfield1");
  ASSERT_EQ(seq->kind, TypeKind::kSequence);
  EXPECT_EQ(seq->ref, "__seqfield1_length");
  ExpectInteger(seq->element.get(), 8, true, ByteOrder::kLittle, 8);
  EXPECT_EQ(FieldType(f, "_seqfield2")->element->encoding, Encoding::kUtf8);
  EXPECT_EQ(FieldType(f, "_stringfield")->kind, TypeKind::kString);
  const Type* flt = FieldType(f, "_floatfield");
  ASSERT_EQ(flt->kind, TypeKind::kFloat);
  EXPECT_EQ(flt->exp_dig, 8u);
  EXPECT_EQ(flt->mant_dig, 24u);
  EXPECT_EQ(flt->size_bits, 32u);
  EXPECT_EQ(flt->align_bits, 8u);
  const Type* dbl = FieldType(f, "_doublefield");
  EXPECT_EQ(dbl->exp_dig, 11u);
  EXPECT_EQ(dbl->mant_dig, 53u);
  EXPECT_EQ(dbl->size_bits, 64u);

  const EventClass& sighandler = trace.streams[0].events[1];
  EXPECT_EQ(sighandler.name, "ust_tests_hello:tptest_sighandler");
  ASSERT_NE(sighandler.fields, nullptr);
  EXPECT_TRUE(sighandler.fields->fields.empty());
}

TEST(TsdlParserTest, PerfPlainTextTrace) {
  std::string bytes = ReadDataFile("perf.metadata");
  EXPECT_FALSE(IsPacketizedMetadata(bytes));
  TraceClass trace = ParseDataFile("perf");
  EXPECT_EQ(trace.EnvString("host"), "vm");
  EXPECT_EQ(trace.EnvString("tracer_name"), "perf");
  ASSERT_EQ(trace.clocks.size(), 1u);
  const ClockClass& clock = trace.clocks[0];
  EXPECT_EQ(clock.name, "perf_clock");
  EXPECT_EQ(clock.description, "perf clock");
  EXPECT_EQ(clock.precision, 10u);
  EXPECT_FALSE(clock.absolute);
  ASSERT_EQ(trace.streams.size(), 1u);
  const StreamClass& stream = trace.streams[0];
  ASSERT_EQ(stream.events.size(), 3u);
  EXPECT_EQ(stream.event_header->align_bits, 8u);
  EXPECT_EQ(FieldType(stream.event_header, "timestamp")->mapped_clock, "perf_clock");
  ExpectInteger(FieldType(stream.packet_context, "cpu_id"), 32, false, ByteOrder::kLittle, 1);

  const EventClass& sched_switch = stream.events[0];
  EXPECT_EQ(sched_switch.name, "sched:sched_switch");
  EXPECT_EQ(sched_switch.fields->align_bits, 8u);  // align(8) on a struct of 1-aligned ints
  ExpectInteger(FieldType(sched_switch.fields, "perf_ip"), 64, false, ByteOrder::kLittle, 1, 16);
  ExpectInteger(FieldType(sched_switch.fields, "prev_state"), 64, true, ByteOrder::kLittle, 1);
  const Type* prev_comm = FieldType(sched_switch.fields, "prev_comm");
  EXPECT_EQ(prev_comm->kind, TypeKind::kString);
  EXPECT_EQ(prev_comm->encoding, Encoding::kUtf8);
  EXPECT_EQ(stream.events[2].name, "dummy:HG");
  EXPECT_EQ(stream.events[2].fields->align_bits, 1u);
}

// ---- Features, on small snippets -----------------------------------------------------

TEST(TsdlParserTest, EnumRangesImplicitValuesAndQuotedLabels) {
  TypePtr f = ParseFields(
      "enum : integer { size = 8; signed = true; } {\n"
      "  A, B = 3, C = 5 ... 9, D, \"quoted label\" = -2, E, F = 0x7f\n"
      "} e;");
  const Type* e = FieldType(f, "e");
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(e->kind, TypeKind::kEnum);
  EXPECT_EQ(e->size_bits, 8u);
  EXPECT_TRUE(e->is_signed);
  struct M {
    const char* label;
    int64_t lo, hi;
  };
  std::vector<M> expected = {
      {"A", 0, 0},   {"B", 3, 3},    {"C", 5, 9}, {"D", 10, 10}, {"quoted label", -2, -2},
      {"E", -1, -1}, {"F", 127, 127}};
  ASSERT_EQ(e->mappings.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(e->mappings[i].label, expected[i].label);
    EXPECT_EQ(e->mappings[i].lo, expected[i].lo) << expected[i].label;
    EXPECT_EQ(e->mappings[i].hi, expected[i].hi) << expected[i].label;
  }
}

TEST(TsdlParserTest, EnumDefaultContainerIsIntAndNamedEnumsAreReusable) {
  TypePtr f = ParseFields(
      "typealias integer { size = 32; signed = true; } := int;\n"
      "enum color { RED, GREEN, BLUE, };\n"
      "enum color c1;\n"
      "enum color c2;\n"
      "enum big : uint64_t { MAX = 0xffffffffffffffff } b;");
  const Type* c1 = FieldType(f, "c1");
  ASSERT_EQ(c1->kind, TypeKind::kEnum);
  EXPECT_EQ(c1->size_bits, 32u);
  EXPECT_TRUE(c1->is_signed);
  EXPECT_EQ(c1->mappings.size(), 3u);
  EXPECT_EQ(c1->mappings[2].lo, 2);
  EXPECT_EQ(c1, FieldType(f, "c2"));
  EXPECT_EQ(FieldType(f, "b")->mappings[0].lo, -1);  // all 64 bits set
}

TEST(TsdlParserTest, NestedVariants) {
  TypePtr f = ParseFields(
      "enum : uint8_t { small, large } tag;\n"
      "variant <tag> {\n"
      "  uint8_t small;\n"
      "  variant <stream.event.header.id> { uint16_t x; string y; } large;\n"
      "} v;");
  const Type* v = FieldType(f, "v");
  ASSERT_EQ(v->kind, TypeKind::kVariant);
  EXPECT_EQ(v->ref, "tag");
  EXPECT_EQ(v->align_bits, 1u);
  ASSERT_EQ(v->fields.size(), 2u);
  const Type* inner = v->fields[1].type.get();
  ASSERT_EQ(inner->kind, TypeKind::kVariant);
  EXPECT_EQ(inner->ref, "stream.event.header.id");
  EXPECT_EQ(inner->fields[1].name, "y");
  EXPECT_EQ(inner->fields[1].type->kind, TypeKind::kString);
}

TEST(TsdlParserTest, NamedVariantTaggedAtUse) {
  TypePtr f = ParseFields(
      "variant choice { uint32_t a; string b; };\n"
      "enum : uint8_t { a, b } sel;\n"
      "variant choice <sel> v;\n"
      "variant choice <sel> w[2];");
  const Type* v = FieldType(f, "v");
  ASSERT_EQ(v->kind, TypeKind::kVariant);
  EXPECT_EQ(v->ref, "sel");
  EXPECT_EQ(v->fields.size(), 2u);
  const Type* w = FieldType(f, "w");
  ASSERT_EQ(w->kind, TypeKind::kArray);
  EXPECT_EQ(w->element->ref, "sel");
}

TEST(TsdlParserTest, TypealiasOfTypealiasAndMultiWordNames) {
  TypePtr f = ParseFields(
      "typealias integer { size = 16; align = 16; signed = true; base = hex; } := s16;\n"
      "typealias s16 := my_s16;\n"
      "typealias my_s16 := signed short int;\n"
      "typedef signed short int short_t;\n"
      "s16 a;\n"
      "signed short int b;\n"
      "short_t c;");
  const Type* a = FieldType(f, "a");
  ExpectInteger(a, 16, true, ByteOrder::kLittle, 16, 16);
  EXPECT_EQ(a, FieldType(f, "b"));  // aliases share the node
  EXPECT_EQ(a, FieldType(f, "c"));
}

TEST(TsdlParserTest, MultiDimensionalArraysAndSequences) {
  TypePtr f = ParseFields(
      "uint32_t len;\n"
      "uint8_t m[2][3];\n"
      "uint16_t s[len][4];\n"
      "uint8_t t[stream.event.context.len];\n"
      "typedef uint8_t uuid_t[16];\n"
      "uuid_t u, v[2];");
  const Type* m = FieldType(f, "m");
  ASSERT_EQ(m->kind, TypeKind::kArray);
  EXPECT_EQ(m->length, 2u);
  ASSERT_EQ(m->element->kind, TypeKind::kArray);
  EXPECT_EQ(m->element->length, 3u);
  EXPECT_EQ(m->element->element->kind, TypeKind::kInteger);
  EXPECT_EQ(m->align_bits, 8u);

  const Type* s = FieldType(f, "s");
  ASSERT_EQ(s->kind, TypeKind::kSequence);
  EXPECT_EQ(s->ref, "len");
  ASSERT_EQ(s->element->kind, TypeKind::kArray);
  EXPECT_EQ(s->element->length, 4u);
  EXPECT_EQ(FieldType(f, "t")->ref, "stream.event.context.len");

  EXPECT_EQ(FieldType(f, "u")->length, 16u);
  const Type* v = FieldType(f, "v");
  EXPECT_EQ(v->length, 2u);
  EXPECT_EQ(v->element->length, 16u);
}

TEST(TsdlParserTest, NativeByteOrderIsResolvedAfterTheTraceBlock) {
  auto trace = ParseTsdl(
      "typealias integer { size = 32; } := u32;\n"
      "typealias integer { size = 16; byte_order = native; } := u16;\n"
      "typealias integer { size = 8; byte_order = le; } := u8le;\n"
      "typealias floating_point { exp_dig = 11; mant_dig = 53; } := f64;\n"
      "trace { major = 1; minor = 8; byte_order = be; };\n"
      "event { name = e; fields := struct {\n"
      "  u32 a; u16 b; u8le c; f64 d; enum : u16 { X } e;\n"
      "  integer { size = 24; byte_order = network; } f;\n"
      "}; };\n");
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  EXPECT_EQ(trace->byte_order, ByteOrder::kBig);
  const TypePtr& f = trace->streams[0].events[0].fields;
  EXPECT_EQ(FieldType(f, "a")->byte_order, ByteOrder::kBig);
  EXPECT_EQ(FieldType(f, "b")->byte_order, ByteOrder::kBig);
  EXPECT_EQ(FieldType(f, "c")->byte_order, ByteOrder::kLittle);
  EXPECT_EQ(FieldType(f, "d")->byte_order, ByteOrder::kBig);
  EXPECT_EQ(FieldType(f, "e")->byte_order, ByteOrder::kBig);
  EXPECT_EQ(FieldType(f, "f")->byte_order, ByteOrder::kBig);
  EXPECT_EQ(FieldType(f, "f")->align_bits, 8u);
}

TEST(TsdlParserTest, NamedStructReuseAndAlignment) {
  TypePtr f = ParseFields(
      "struct point { uint32_t x; uint32_t y; } align(64);\n"
      "struct point a;\n"
      "struct point b;\n"
      "struct { uint8_t z; } c;\n"
      "struct { integer { size = 3; } bits; } d;");
  const Type* a = FieldType(f, "a");
  ASSERT_EQ(a->kind, TypeKind::kStruct);
  EXPECT_EQ(a->align_bits, 64u);
  EXPECT_EQ(a, FieldType(f, "b"));
  EXPECT_EQ(FieldType(f, "c")->align_bits, 8u);
  EXPECT_EQ(FieldType(f, "d")->align_bits, 1u);
  EXPECT_EQ(f->align_bits, 64u);
}

TEST(TsdlParserTest, TopLevelNamedTypesAndBlockScopes) {
  TraceClass trace = Parse(
      "struct header { uint32_t id; uint64_t ts; } align(8);\n"
      "stream {\n"
      "  typealias integer { size = 64; } := local_u64;\n"
      "  event.header := struct header;\n"
      "  packet.context := struct { local_u64 begin; };\n"
      "};\n");
  ASSERT_EQ(trace.streams.size(), 1u);
  EXPECT_EQ(FieldNames(trace.streams[0].event_header), (std::vector<std::string>{"id", "ts"}));
  EXPECT_EQ(FieldType(trace.streams[0].packet_context, "begin")->size_bits, 64u);
  // local_u64 is not visible outside the stream block.
  auto outside = ParseTsdl(std::string(kPrelude) +
                           "stream { typealias integer { size = 64; } := local_u64; };\n"
                           "event { name = e; fields := struct { local_u64 x; }; };\n");
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.status().ToString(),
            "TSDL error at line 7, column 38: unknown type name 'local_u64'");
}

TEST(TsdlParserTest, IntegerAttributes) {
  TraceClass trace = Parse(
      "clock { name = c0; };\n"
      "event { name = e; fields := struct {\n"
      "  integer { size = 8; base = 2; } b2;\n"
      "  integer { size = 8; base = b; } b2b;\n"
      "  integer { size = 8; base = octal; } b8;\n"
      "  integer { size = 8; base = o; } b8o;\n"
      "  integer { size = 8; base = d; } b10;\n"
      "  integer { size = 8; base = u; } b10u;\n"
      "  integer { size = 8; base = X; } b16;\n"
      "  integer { size = 8; base = p; } b16p;\n"
      "  integer { size = 8; signed = TRUE; encoding = ASCII; } s;\n"
      "  integer { size = 27; } odd;\n"
      "  integer { size = 64; map = clock.c0.value; future_attribute = 3; } ts;\n"
      "}; };\n");
  const TypePtr& f = trace.streams[0].events[0].fields;
  EXPECT_EQ(FieldType(f, "b2")->base, 2);
  EXPECT_EQ(FieldType(f, "b2b")->base, 2);
  EXPECT_EQ(FieldType(f, "b8")->base, 8);
  EXPECT_EQ(FieldType(f, "b8o")->base, 8);
  EXPECT_EQ(FieldType(f, "b10")->base, 10);
  EXPECT_EQ(FieldType(f, "b10u")->base, 10);
  EXPECT_EQ(FieldType(f, "b16")->base, 16);
  EXPECT_EQ(FieldType(f, "b16p")->base, 16);
  EXPECT_TRUE(FieldType(f, "s")->is_signed);
  EXPECT_EQ(FieldType(f, "s")->encoding, Encoding::kAscii);
  EXPECT_EQ(FieldType(f, "odd")->align_bits, 1u);
  EXPECT_EQ(FieldType(f, "ts")->align_bits, 8u);
  EXPECT_EQ(FieldType(f, "ts")->mapped_clock, "c0");
}

TEST(TsdlParserTest, ClockEnvAndEventAttributes) {
  TraceClass trace = Parse(
      "env { hostname = \"box\"; answer = 42; below = -7; hostname = \"box2\"; };\n"
      "clock {\n"
      "  name = \"realtime\";\n"
      "  uuid = \"f9888afb-e5cd-4d55-8592-e050aa5b9613\";\n"
      "  description = \"Wall clock\";\n"
      "  freq = 1000;\n"
      "  offset_s = -1234567890;\n"
      "  offset = 17;\n"
      "  precision = 3;\n"
      "  absolute = TRUE;\n"
      "};\n"
      "callsite { name = \"x\"; func = \"main\"; ip = 0x400ac4; file = \"a.c\"; line = 88; };\n"
      "stream { id = 5; unknown.thing = 3; };\n"
      "stream { id = 2; };\n"
      "event { name = later; id = 9; stream_id = 5; loglevel = -1;\n"
      "        model.emf.uri = \"http://x\"; context := struct { uint8_t c; }; };\n"
      "event { name = earlier; id = 1; stream_id = 5; };\n");
  ASSERT_EQ(trace.env.size(), 3u);
  EXPECT_EQ(trace.EnvString("hostname"), "box2");
  EXPECT_EQ(std::get<int64_t>(trace.env[1].second), 42);
  EXPECT_EQ(std::get<int64_t>(trace.env[2].second), -7);

  ASSERT_EQ(trace.clocks.size(), 1u);
  const ClockClass& c = trace.clocks[0];
  EXPECT_EQ(c.name, "realtime");
  EXPECT_EQ(c.description, "Wall clock");
  EXPECT_EQ(c.freq, 1000u);
  EXPECT_EQ(c.offset_s, -1234567890);
  EXPECT_EQ(c.offset, 17);
  EXPECT_EQ(c.precision, 3u);
  EXPECT_TRUE(c.absolute);
  ASSERT_TRUE(c.uuid.has_value());
  EXPECT_EQ((*c.uuid)[0], 0xf9);
  EXPECT_EQ((*c.uuid)[15], 0x13);

  ASSERT_EQ(trace.streams.size(), 2u);
  EXPECT_EQ(trace.streams[0].id, 2u);
  EXPECT_EQ(trace.streams[1].id, 5u);
  const auto& events = trace.streams[1].events;
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].name, "earlier");
  EXPECT_EQ(events[1].name, "later");
  EXPECT_EQ(events[1].loglevel, -1);
  EXPECT_EQ(events[1].model_emf_uri, "http://x");
  EXPECT_EQ(FieldNames(events[1].context), std::vector<std::string>{"c"});
  EXPECT_EQ(events[1].fields, nullptr);
}

TEST(TsdlParserTest, DefaultStreamIds) {
  // No stream block: events go to an implicit stream 0.
  TraceClass implicit = Parse("event { name = a; id = 1; };\nevent { name = b; id = 0; };\n");
  ASSERT_EQ(implicit.streams.size(), 1u);
  EXPECT_EQ(implicit.streams[0].id, 0u);
  EXPECT_EQ(implicit.streams[0].event_header, nullptr);
  ASSERT_EQ(implicit.streams[0].events.size(), 2u);
  EXPECT_EQ(implicit.streams[0].events[0].name, "b");

  // A stream without id is stream 0; events may come before it.
  TraceClass unnamed =
      Parse("event { name = a; };\nstream { packet.context := struct { uint8_t x; }; };\n");
  ASSERT_EQ(unnamed.streams.size(), 1u);
  EXPECT_NE(unnamed.streams[0].packet_context, nullptr);
  EXPECT_EQ(unnamed.streams[0].events.size(), 1u);

  TraceClass none = Parse("");
  EXPECT_TRUE(none.streams.empty());
}

TEST(TsdlParserTest, CommentsAndLiterals) {
  TraceClass trace = Parse(
      "// a line comment\n"
      "/* a block\n   comment */ env {\n"
      "  s = \"q\\\"b\\\\s\\n\\t\\x41\\101\";  // trailing\n"
      "  hex = 0x1F; oct = 010; dec = 16U; big = 42UL; zero = 0;\n"
      "};\n"
      "clock { name = c; offset = -0x10; };\n");
  EXPECT_EQ(trace.EnvString("s"), "q\"b\\s\n\tAA");
  EXPECT_EQ(trace.EnvString("hex"), "31");
  EXPECT_EQ(trace.EnvString("oct"), "8");
  EXPECT_EQ(trace.EnvString("dec"), "16");
  EXPECT_EQ(trace.EnvString("big"), "42");
  EXPECT_EQ(trace.EnvString("zero"), "0");
  EXPECT_EQ(trace.clocks[0].offset, -16);
}

TEST(TsdlParserTest, LexerTokens) {
  TsdlTokens lexed = TokenizeTsdl("a := 0x10 ... \"s\"\n  b[-3];");
  ASSERT_TRUE(lexed.error.ok());
  std::vector<TokenKind> kinds;
  for (const Token& t : lexed.tokens) kinds.push_back(t.kind);
  EXPECT_EQ(kinds, (std::vector<TokenKind>{
                       TokenKind::kIdentifier, TokenKind::kColonEquals, TokenKind::kInteger,
                       TokenKind::kEllipsis, TokenKind::kString, TokenKind::kIdentifier,
                       TokenKind::kLBracket, TokenKind::kMinus, TokenKind::kInteger,
                       TokenKind::kRBracket, TokenKind::kSemicolon, TokenKind::kEnd}));
  EXPECT_EQ(lexed.tokens[2].integer, 16u);
  EXPECT_EQ(lexed.StringValue(lexed.tokens[4]), "s");
  EXPECT_EQ(lexed.tokens[5].line, 2u);
  EXPECT_EQ(lexed.tokens[5].column, 3u);
}

// ---- Errors --------------------------------------------------------------------------

TEST(TsdlParserErrorTest, UnterminatedComment) {
  EXPECT_EQ(ParseError("trace {\n  /* never closed\n  major = 1;\n"),
            "TSDL syntax error at line 2, column 3: unterminated comment");
}

TEST(TsdlParserErrorTest, MissingSemicolonAfterField) {
  EXPECT_EQ(ParseError(std::string(kPrelude) + "struct s {\n"
                                               "\tuint32_t a\n"
                                               "};\n"),
            "TSDL syntax error at line 8, column 1: expected ';' after field declaration, "
            "found '}'");
  // Two fields on consecutive lines, the first without ';'.
  EXPECT_EQ(ParseError(std::string(kPrelude) + "struct s {\n"
                                               "\tuint32_t a\n"
                                               "\tuint32_t b;\n"
                                               "};\n"),
            "TSDL syntax error at line 8, column 2: expected ';' after field declaration, "
            "found 'uint32_t'");
}

TEST(TsdlParserErrorTest, MissingSemicolonAfterAttribute) {
  EXPECT_EQ(ParseError("trace {\n  major = 1\n  minor = 8;\n};\n"),
            "TSDL syntax error at line 3, column 3: expected ';' after attribute 'major', "
            "found 'minor'");
}

TEST(TsdlParserErrorTest, UnknownTypeName) {
  EXPECT_EQ(ParseError(std::string(kPrelude) + "struct s {\n\tuint33_t a;\n};\n"),
            "TSDL error at line 7, column 2: unknown type name 'uint33_t'");
  EXPECT_EQ(ParseError(std::string(kPrelude) + "struct s {\n\tunsigned long a;\n};\n"),
            "TSDL error at line 7, column 2: unknown type name 'unsigned long'");
  EXPECT_EQ(ParseError(std::string(kPrelude) + "struct s { struct nope a; };\n"),
            "TSDL error at line 6, column 19: unknown struct 'nope'");
}

TEST(TsdlParserErrorTest, UnknownTypealias) {
  EXPECT_EQ(ParseError("typealias uint32_t := u32;\n"),
            "TSDL error at line 1, column 11: unknown type name 'uint32_t'");
}

TEST(TsdlParserErrorTest, BadIntegerSize) {
  auto zero = ParseTsdl("typealias integer { size = 0; } := bad;\n");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(zero.status().ToString(),
            "TSDL error at line 1, column 28: integer size must be between 1 and 64 bits, "
            "found 0");
  auto big = ParseTsdl("typealias integer { size = 65; } := bad;\n");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(big.status().ToString(),
            "TSDL error at line 1, column 28: integer size 65 is not supported (at most 64 bits)");
  EXPECT_EQ(ParseError("typealias integer { align = 8; } := bad;\n"),
            "TSDL error at line 1, column 11: integer declaration has no size attribute");
  EXPECT_EQ(ParseError("typealias integer { size = 8; align = 3; } := bad;\n"),
            "TSDL error at line 1, column 39: align must be a power of two (in bits), found 3");
}

TEST(TsdlParserErrorTest, DuplicateEventId) {
  EXPECT_EQ(ParseError(std::string(kPrelude) + "event { name = a; id = 3; };\n"
                                               "event { name = b; id = 4; };\n"
                                               "event {\n  name = c;\n  id = 3;\n};\n"),
            "TSDL error at line 10, column 8: duplicate event id 3 in stream 0: 'c' and 'a' "
            "(line 6)");
}

TEST(TsdlParserErrorTest, DuplicatesAndUndeclaredReferences) {
  EXPECT_EQ(ParseError(std::string(kPrelude) + "stream { id = 1; };\nstream { id = 1; };\n"),
            "TSDL error at line 7, column 15: duplicate stream id 1 (also declared at line 6)");
  EXPECT_EQ(ParseError(std::string(kPrelude) +
                       "stream { id = 1; };\nevent { name = e; stream_id = 2; };\n"),
            "TSDL error at line 7, column 1: event 'e' belongs to stream 2, which is not declared");
  EXPECT_EQ(ParseError(std::string(kPrelude) + "struct s { uint8_t a; uint16_t a; };\n"),
            "TSDL error at line 6, column 32: duplicate field 'a' in struct");
  EXPECT_EQ(ParseError(std::string(kPrelude) + "typealias uint8_t := uint16_t;\n"),
            "TSDL error at line 6, column 22: type 'uint16_t' is already declared in this scope");
  EXPECT_EQ(ParseError(std::string(kPrelude) + "clock { name = a; };\nclock { name = a; };\n"),
            "TSDL error at line 7, column 16: duplicate clock 'a'");
  EXPECT_EQ(ParseError(std::string(kPrelude) +
                       "typealias integer { size = 64; map = clock.nope.value; } := ts_t;\n"),
            "TSDL error at line 6, column 38: integer is mapped to clock 'nope', which is not "
            "declared");
  EXPECT_EQ(ParseError("trace { major = 1; };\ntrace { major = 1; };\n"),
            "TSDL error at line 2, column 1: duplicate trace block (the first one is at line 1)");
}

TEST(TsdlParserErrorTest, BadTypes) {
  EXPECT_EQ(ParseError(std::string(kPrelude) + "struct s { variant { uint8_t a; } v; };\n"),
            "TSDL error at line 6, column 35: variant field 'v' has no tag (write variant <tag>)");
  EXPECT_EQ(ParseError(std::string(kPrelude) + "struct s { enum : uint8_t { A = 256 } e; };\n"),
            "TSDL error at line 6, column 33: enum value 256 does not fit in its 8-bit unsigned "
            "container");
  EXPECT_EQ(ParseError(std::string(kPrelude) + "struct s { enum : uint8_t { A = 5 ... 2 } e; };\n"),
            "TSDL error at line 6, column 39: enum range 5 ... 2 of 'A' is reversed");
  EXPECT_EQ(ParseError(std::string(kPrelude) + "struct s { enum { A } e; };\n"),
            "TSDL error at line 6, column 12: enum has no container type and no 'int' typealias "
            "is declared");
  EXPECT_EQ(
      ParseError(std::string(kPrelude) + "struct s { enum : struct { uint8_t a; } { A } e; };\n"),
      "TSDL error at line 6, column 12: enum container must be an integer type, found "
      "struct");
  auto half = ParseTsdl(std::string(kPrelude) +
                        "typealias floating_point { exp_dig = 5; mant_dig = 11; } := half;\n");
  ASSERT_FALSE(half.ok());
  EXPECT_EQ(half.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(ParseError(std::string(kPrelude) + "event { name = e; fields := uint8_t; };\n"),
            "TSDL error at line 6, column 29: event fields must be a struct, found integer");
  EXPECT_EQ(ParseError(std::string(kPrelude) + "event { name = e; fields = struct { }; };\n"),
            "TSDL syntax error at line 6, column 19: attribute 'fields' takes a type: write "
            "'fields := TYPE;'");
}

TEST(TsdlParserErrorTest, BadValues) {
  EXPECT_EQ(ParseError("trace { byte_order = middle; };\n"),
            "TSDL error at line 1, column 22: byte_order must be le, be, network or native, "
            "found 'middle'");
  EXPECT_EQ(ParseError("trace { uuid = \"not-a-uuid\"; };\n"),
            "TSDL error at line 1, column 16: trace uuid is not a UUID: \"not-a-uuid\"");
  EXPECT_EQ(
      ParseError("trace { major = \"one\"; };\n"),
      "TSDL error at line 1, column 17: trace major must be an integer, found string \"one\"");
  auto ctf2 = ParseTsdl("trace { major = 2; minor = 0; };\n");
  ASSERT_FALSE(ctf2.ok());
  EXPECT_EQ(ctf2.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(ParseError("trace { major = 1; };\nclock { name = c; freq = 0; };\n"),
            "TSDL error at line 2, column 26: clock freq must not be 0");
}

TEST(TsdlParserErrorTest, LexicalErrors) {
  EXPECT_EQ(ParseError("env { s = \"abc\n\"; };\n"),
            "TSDL syntax error at line 1, column 11: unterminated string literal");
  EXPECT_EQ(ParseError("env { x = 12abc; };\n"),
            "TSDL syntax error at line 1, column 11: invalid integer literal '12abc'");
  EXPECT_EQ(ParseError("env { x = 099; };\n"),
            "TSDL syntax error at line 1, column 11: invalid digit '9' in octal integer literal");
  EXPECT_EQ(ParseError("env { x = 99999999999999999999; };\n"),
            "TSDL syntax error at line 1, column 11: integer literal '99999999999999999999' does "
            "not fit in 64 bits");
  EXPECT_EQ(ParseError("env {\n  x = @;\n};\n"),
            "TSDL syntax error at line 2, column 7: unexpected character '@'");
  EXPECT_EQ(ParseError(std::string("env { x = 1; }\x01;", 17)),
            "TSDL syntax error at line 1, column 15: unexpected byte 0x01");
  // A syntax error before a lexical one is reported first.
  EXPECT_EQ(ParseError("trace { major = 1 };\n@"),
            "TSDL syntax error at line 1, column 19: expected ';' after attribute 'major', found "
            "'}'");
}

TEST(TsdlParserErrorTest, StructuralErrors) {
  EXPECT_EQ(ParseError("env { x = 1; };\n"),
            "TSDL error at line 2, column 1: no trace block: this is not CTF 1.8 metadata");
  EXPECT_EQ(ParseError("trace { major = 1;\n"),
            "TSDL syntax error at line 2, column 1: expected '}' to close the trace block opened "
            "at line 1, found end of input");
  EXPECT_EQ(ParseError("trace { major = 1; };\nfoo bar;\n"),
            "TSDL syntax error at line 2, column 1: expected a block (trace, env, clock, stream, "
            "event, callsite) or a type declaration, found 'foo'");
  EXPECT_EQ(
      ParseError(std::string(kPrelude) + "event { name = e; fields := struct { uint8_t; }; };\n"),
      "TSDL syntax error at line 6, column 45: expected a field name, found ';'");
  EXPECT_EQ(ParseError(std::string(kPrelude) +
                       "event { name = e; fields := struct { uint8_t a[; }; };\n"),
            "TSDL syntax error at line 6, column 48: expected an array length or a sequence "
            "length field after '[', found ';'");
  EXPECT_EQ(ParseError("trace { major = 1; };\nevent { id = 1; };\n"),
            "TSDL error at line 2, column 1: event block has no name");
}

TEST(TsdlParserErrorTest, NestingIsCapped) {
  std::string deep = std::string(kPrelude) + "event { name = e; fields := ";
  for (int i = 0; i < 100; ++i) deep += "struct { ";
  deep += "uint8_t x; ";
  for (int i = 1; i < 100; ++i) deep += "} f; ";
  deep += "}; };";
  auto trace = ParseTsdl(deep);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(trace.status().ToString().find("types are nested more than 64 levels deep"),
            std::string::npos)
      << trace.status().ToString();

  std::string dims = std::string(kPrelude) + "struct s { uint8_t a";
  for (int i = 0; i < 100; ++i) dims += "[1]";
  dims += "; };";
  auto arrays = ParseTsdl(dims);
  ASSERT_FALSE(arrays.ok());
  EXPECT_EQ(arrays.status().ToString(),
            "TSDL error at line 6, column 20: types are nested more than 64 levels deep");

  // 63 levels of structs around an integer (64 nodes deep) still parse.
  std::string ok = std::string(kPrelude) + "event { name = e; fields := ";
  for (int i = 0; i < 63; ++i) ok += "struct { ";
  ok += "uint8_t x; ";
  for (int i = 1; i < 63; ++i) ok += "} f; ";
  ok += "}; };";
  EXPECT_TRUE(ParseTsdl(ok).ok());
}

TEST(TsdlParserErrorTest, ExpandedTypeSizeIsCapped) {
  // Each typedef doubles the expanded tree: 2^40 nodes from 40 lines.
  std::string text = std::string(kPrelude) + "typedef uint8_t t0;\n";
  for (int i = 1; i <= 40; ++i)
    text += "typedef struct { t" + std::to_string(i - 1) + " a; t" + std::to_string(i - 1) +
            " b; } t" + std::to_string(i) + ";\n";
  auto trace = ParseTsdl(text);
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(trace.status().ToString().find("type has more than 1048576 nodes"), std::string::npos)
      << trace.status().ToString();
}

// Hostile sizes get their exact error (no timing assertion here: tests check behaviour; a
// quadratic regression would show up as a ctest timeout).
TEST(TsdlParserErrorTest, HostileSizesGetTheirErrors) {
  // 50,000 fields with a duplicate at the end: found without a quadratic scan.
  std::string wide = std::string(kPrelude) + "struct s {\n";
  for (int i = 0; i < 50000; ++i) wide += "uint8_t f" + std::to_string(i) + ";\n";
  wide += "uint8_t f7;\n};\n";
  EXPECT_EQ(ParseError(wide), "TSDL error at line 50007, column 9: duplicate field 'f7' in struct");

  // A run of 100,000 identifiers is not a type name.
  std::string run = std::string(kPrelude) + "struct s {\n";
  for (int i = 0; i < 100000; ++i) run += "w ";
  run += "x;\n};\n";
  EXPECT_EQ(ParseError(run), "TSDL error at line 7, column 1: unknown type name 'w w w w w w w w'");
  EXPECT_EQ(ParseError("typealias integer { size = 8; } := a b c d e f g h i;\n"),
            "TSDL error at line 1, column 36: type name has more than 8 words");

  // 20,000 streams and clocks: duplicates found by hashing.
  std::string many = std::string(kPrelude);
  for (int i = 0; i < 20000; ++i)
    many += "stream { id = " + std::to_string(i) + "; };\nclock { name = c" + std::to_string(i) +
            "; };\n";
  many += "stream { id = 3; };\n";
  EXPECT_EQ(ParseError(many),
            "TSDL error at line 40006, column 15: duplicate stream id 3 (also "
            "declared at line 12)");
}

}  // namespace
}  // namespace causeway::ctf
