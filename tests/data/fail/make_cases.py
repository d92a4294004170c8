#!/usr/bin/env python3
"""Regenerates the broken traces of tests/data/fail/ (see README.md there).

Binary cases are cut from the real LTTng trace tests/data/traces/lttng/hello-lost: its
metadata (decoded to plain TSDL text, or re-packetized) and a two-packet stream file made
of the first three events of the first two packets of channel1_2, then corrupted. The
expected messages are written from the layout computed here, not copied from the reader.

Usage: python3 tests/data/fail/make_cases.py   (rewrites every case directory)
"""

import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "traces", "lttng", "hello-lost")

# LTTng (hello-lost) packet layout, little endian: packet header = magic u32, uuid[16],
# stream_id u32; packet context = timestamp_begin u64, timestamp_end u64, content_size
# u64, packet_size u64, events_discarded u64, cpu_id u32. Events start at byte 68.
OFF_MAGIC, OFF_UUID, OFF_STREAM_ID = 0, 4, 20
OFF_CONTENT_SIZE, OFF_PACKET_SIZE = 40, 48
EVENTS_START = 68


def read(path):
    with open(path, "rb") as f:
        return f.read()


def metadata_text():
    """The TSDL text of hello-lost's packetized metadata."""
    data = read(os.path.join(SOURCE, "metadata"))
    text, off = b"", 0
    while off < len(data):
        content_bits, packet_bits = struct.unpack_from("<II", data, off + 24)
        text += data[off + 37 : off + content_bits // 8]
        off += packet_bits // 8
    return text


def events_of(packet):
    """(start, end, fields) of each ust_tests_hello:tptest event of a hello-lost packet."""
    content_bytes = struct.unpack_from("<Q", packet, OFF_CONTENT_SIZE)[0] // 8
    p, out = EVENTS_START, []
    while p < content_bytes:
        start = p
        event_id = packet[p] & 31
        if event_id == 31:  # extended header: 5-bit tag, then u32 id, u64 timestamp
            event_id = struct.unpack_from("<I", packet, p + 1)[0]
            p += 1 + 4 + 8
        else:  # compact header: 5-bit id, 27-bit timestamp
            p += 4
        assert event_id == 0, event_id
        info = {"header": start, "payload": p}
        p += 4 + 4 + 8 + 4 + 4 + 3 * 8 + 10  # ints, arrfield1[3], arrfield2[10]
        info["seqfield1_length"] = p
        p += 8 + struct.unpack_from("<Q", packet, p)[0]
        info["seqfield2_length"] = p
        p += 8 + struct.unpack_from("<Q", packet, p)[0]
        info["stringfield"] = p
        p = packet.index(b"\0", p) + 1
        p += 4 + 8 + 1  # float, double, bool
        out.append((start, p, info))
    return out


def small_packet(packet, n_events, packet_bytes):
    """The first n_events of a real packet, content_size and packet_size rewritten."""
    evs = events_of(packet)
    content = evs[n_events - 1][1]
    assert content <= packet_bytes
    out = bytearray(packet[:content]) + bytes(packet_bytes - content)
    struct.pack_into("<QQ", out, OFF_CONTENT_SIZE, content * 8, packet_bytes * 8)
    return out, [(s, e, i) for s, e, i in evs[:n_events]]


class Stream:
    """Two packets of 400 bytes, three events each: offsets 0 and 400."""

    def __init__(self):
        data = read(os.path.join(SOURCE, "channel1_2"))
        self.packet_bytes = 400
        a, self.events_a = small_packet(data[0:4096], 3, self.packet_bytes)
        b, self.events_b = small_packet(data[4096:8192], 3, self.packet_bytes)
        self.data = a + b
        self.b = self.packet_bytes  # file offset of the second packet

    def copy(self):
        return bytearray(self.data)


STREAM_FILE = "channel1_2"


def write_case(name, expected=None, files=None, events=None, make_trace_dir=True):
    case = os.path.join(HERE, name)
    shutil.rmtree(case, ignore_errors=True)
    os.makedirs(case)
    if make_trace_dir:
        trace = os.path.join(case, "trace")
        os.makedirs(trace)
        for fname, content in (files or {}).items():
            with open(os.path.join(trace, fname), "wb") as f:
                f.write(content)
        if not files:  # git keeps no empty directory
            open(os.path.join(trace, ".gitkeep"), "wb").close()
    if expected is not None:
        with open(os.path.join(case, "expected_error.txt"), "w") as f:
            f.write(expected + "\n")
    if events is not None:
        with open(os.path.join(case, "expected_events.txt"), "w") as f:
            f.write(f"{events}\n")


def packetize(text, packet_bytes, template):
    """Re-packetizes TSDL text with the header of a real metadata packet (`template`)."""
    payload = packet_bytes - 37
    out, offsets = bytearray(), []
    for i in range(0, len(text), payload):
        chunk = text[i : i + payload]
        header = bytearray(template[:37])
        struct.pack_into("<II", header, 24, (37 + len(chunk)) * 8, packet_bytes * 8)
        offsets.append(len(out))
        out += header + chunk + bytes(payload - len(chunk))
    return out, offsets


# The trace block of the hand-written metadata below: little endian, a packet header of
# magic and stream_id.
TRACE_BLOCK = """trace {
	major = 1;
	minor = 8;
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint32_t stream_id;
	};
};
"""

# A small hand-written metadata for the cases about metadata meaning. `{FIELDS}` is
# replaced by the payload of the one event; the line numbers below count from 1.
SMALL_TSDL = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;

""" + TRACE_BLOCK + """
stream {
	id = 0;
	event.header := struct {
		uint32_t id;
	};
};

event {
	name = "small";
	id = 0;
	stream_id = 0;
	fields := struct {
{FIELDS}
	};
};
"""
SMALL_FIELDS_LINE = 28  # first line of {FIELDS}


def small_tsdl(fields):
    return SMALL_TSDL.replace("{FIELDS}", fields).encode()


# The event header `perf data convert --to-ctf` writes: `struct { uint32 id; uint64
# timestamp; } align(8)`, a 32-bit id and a 64-bit clock value (the reader's plain-header
# path), in 256-byte packets with content_size and packet_size.
PLAIN_TSDL = ("""/* CTF 1.8 */
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;

""" + TRACE_BLOCK + """
clock {
	name = perf_clock;
	freq = 1000000000;
	offset = 0;
};

typealias integer { size = 64; align = 8; signed = false; map = clock.perf_clock.value; } := uint64_clock_t;

stream {
	id = 0;
	event.header := struct {
		uint32_t id;
		uint64_clock_t timestamp;
	} align(8);
	packet.context := struct {
		uint64_t content_size;
		uint64_t packet_size;
	};
};

event {
	name = "tick";
	id = 0;
	stream_id = 0;
	fields := struct {
		uint32_t n;
		string s;
	};
};

event {
	name = "tock";
	id = 1;
	stream_id = 0;
	fields := struct {
		uint64_t v;
	};
};
""").encode()
PLAIN_PACKET_BYTES = 256
PLAIN_EVENTS_START = 24  # magic, stream_id, content_size, packet_size


def plain_stream():
    """Two packets of four events (tick, tock, tick, tock); returns the bytes and, per
    packet, the (start, end) of each event."""
    data, layout = bytearray(), []
    ts = 1000
    for packet in range(2):
        p = bytearray(struct.pack("<IIQQ", 0xC1FC1FC1, 0, 0, PLAIN_PACKET_BYTES * 8))
        events = []
        for i in range(4):
            start = len(p)
            ts += 10
            if i % 2 == 0:
                p += struct.pack("<IQI", 0, ts, packet * 4 + i) + b"tick %d\0" % i
            else:
                p += struct.pack("<IQQ", 1, ts, packet * 4 + i)
            events.append((start, len(p)))
        assert len(p) <= PLAIN_PACKET_BYTES
        struct.pack_into("<Q", p, 8, len(p) * 8)
        data += p + bytes(PLAIN_PACKET_BYTES - len(p))
        layout.append(events)
    return data, layout


def plain_header_cases():
    data, layout = plain_stream()
    b = PLAIN_PACKET_BYTES
    write_case("plain-header-reads", events=8, files={"metadata": PLAIN_TSDL, "stream": bytes(data)})

    d = bytearray(data)
    start = layout[1][2][0]
    struct.pack_into("<I", d, b + start, 9)
    write_case("plain-header-unknown-event-id",
               f"trace/stream, packet offset={b}, event offset={b + start}: CAUSED BY event id 9 is not "
               "declared in stream class 0", {"metadata": PLAIN_TSDL, "stream": bytes(d)})

    d = bytearray(data)
    start, end = layout[1][3]
    cut = start + 4 + 5  # content ends inside the last event's timestamp (bytes 4 to 12)
    struct.pack_into("<Q", d, b + 8, cut * 8)
    write_case("plain-header-content-ends-mid-header",
               f"trace/stream, packet offset={b}, event offset={b + start}: CAUSED BY timestamp extends past "
               f"the packet content ({(start + 12) * 8} > {cut * 8} bits) in stream.event.header",
               {"metadata": PLAIN_TSDL, "stream": bytes(d)})


def main():
    text = metadata_text()
    template = read(os.path.join(SOURCE, "metadata"))[:37]
    s = Stream()
    ev_a, ev_b = s.events_a, s.events_b
    meta = {"metadata": text}

    def with_stream(data):
        return {"metadata": text, STREAM_FILE: bytes(data)}

    path = f"trace/{STREAM_FILE}"

    # Packet header and context.
    d = s.copy()
    struct.pack_into("<I", d, s.b + OFF_MAGIC, 0xDEADBEEF)
    write_case("bad-packet-magic", f"{path}, offset=400: CAUSED BY bad packet magic 0xDEADBEEF (expected 0xC1FC1FC1)",
               with_stream(d))

    d = s.copy()[: s.b + 200]
    write_case("truncated-packet",
               f"{path}, offset=400: CAUSED BY packet_size 3200 bits exceeds the 200 bytes left in the file "
               "(truncated packet)", with_stream(d))

    d = s.copy()[: s.b + 30]
    write_case("truncated-packet-context",
               f"{path}, offset=400: CAUSED BY field extends past the packet content (544 > 240 bits) in "
               "stream.packet.context", with_stream(d))

    d = s.copy()
    struct.pack_into("<Q", d, OFF_PACKET_SIZE, 65536)
    write_case("packet-size-beyond-file",
               f"{path}, offset=0: CAUSED BY packet_size 65536 bits exceeds the 800 bytes left in the file",
               with_stream(d))

    d = s.copy()
    struct.pack_into("<Q", d, s.b + OFF_PACKET_SIZE, 0)
    write_case("zero-packet-size",
               f"{path}, offset=400: CAUSED BY packet_size 0 bits is not a positive whole number of bytes",
               with_stream(d))

    d = s.copy()
    struct.pack_into("<Q", d, s.b + OFF_CONTENT_SIZE, 4000)
    write_case("content-size-over-packet-size",
               f"{path}, offset=400: CAUSED BY content_size 4000 bits exceeds packet_size 3200 bits",
               with_stream(d))

    d = s.copy()
    struct.pack_into("<Q", d, s.b + OFF_CONTENT_SIZE, 256)
    write_case("content-size-under-header",
               f"{path}, offset=400: CAUSED BY content_size 256 bits is smaller than the packet header and "
               "context (544 bits)", with_stream(d))

    d = s.copy()
    struct.pack_into("<I", d, s.b + OFF_STREAM_ID, 7)
    write_case("undeclared-stream-class",
               f"{path}, offset=400: CAUSED BY packet names stream class 7, which the metadata does not declare",
               with_stream(d))

    d = s.copy()
    d[s.b + OFF_UUID] ^= 0xFF
    write_case("packet-uuid-mismatch",
               f"{path}, offset=400: CAUSED BY packet uuid differs from the trace uuid in the metadata",
               with_stream(d))

    # Events.
    d = s.copy()
    start = ev_b[2][0]
    assert d[s.b + start] & 31 == 0
    d[s.b + start] = (d[s.b + start] & ~31) | 5  # compact header: id 5
    write_case("unknown-event-id",
               f"{path}, packet offset=400, event offset={s.b + start}: CAUSED BY event id 5 is not declared in "
               "stream class 0", with_stream(d))

    # An id below the last declared one that no event class takes (the metadata's id 1
    # becomes 3): the reader's table has an entry for it, but no plan.
    holed = text.replace(b"\tid = 1;\n", b"\tid = 3;\n", 1)
    assert holed != text
    d = s.copy()
    start = ev_b[2][0]
    d[s.b + start] = (d[s.b + start] & ~31) | 1  # compact header: id 1
    write_case("undeclared-event-id-below-last",
               f"{path}, packet offset=400, event offset={s.b + start}: CAUSED BY event id 1 is not declared in "
               "stream class 0", {"metadata": holed, STREAM_FILE: bytes(d)})

    d = s.copy()
    start = ev_a[0][0]
    assert d[start] & 31 == 31  # the first event of a packet has the extended header
    struct.pack_into("<I", d, start + 1, 1000)
    write_case("unknown-extended-event-id",
               f"{path}, packet offset=0, event offset={start}: CAUSED BY event id 1000 is not declared in "
               "stream class 0", with_stream(d))

    d = s.copy()
    start, end, info = ev_a[2]
    for i in range(info["stringfield"], end):  # "test\0", float, double, bool: no NUL left
        d[i] = ord("x")
    write_case("unterminated-string",
               f"{path}, packet offset=0, event offset={start}: CAUSED BY unterminated string at bit "
               f"{info['stringfield'] * 8} in event.fields", with_stream(d))

    d = s.copy()
    start, end, info = ev_b[1]
    struct.pack_into("<Q", d, s.b + info["seqfield1_length"], 1 << 40)
    write_case("huge-sequence-length",
               f"{path}, packet offset=400, event offset={s.b + start}: CAUSED BY sequence of 1099511627776 "
               f"elements of 8 bits extends past the packet content (bit {(info['seqfield1_length'] + 8) * 8} "
               f"of {ev_b[-1][1] * 8})", with_stream(d))

    d = s.copy()
    start, end, info = ev_b[2]
    cut = info["payload"] + 10  # content ends inside _longfield
    struct.pack_into("<Q", d, s.b + OFF_CONTENT_SIZE, cut * 8)
    write_case("content-ends-mid-event",
               f"{path}, packet offset=400, event offset={s.b + start}: CAUSED BY field extends past the packet "
               f"content", with_stream(d))

    # Metadata.
    lines = text.split(b"\n")
    line_no = next(i for i, l in enumerate(lines) if l.startswith(b"\tuint32_t cpu_id;")) + 1
    lines[line_no - 1] = lines[line_no - 1].replace(b";", b"")  # the next line's '}' is unexpected
    bad = b"\n".join(lines)
    write_case("tsdl-syntax-error",
               f"metadata: CAUSED BY TSDL syntax error at line {line_no + 1}, column 1: expected ';'",
               {"metadata": bad, STREAM_FILE: bytes(s.data)})

    lines = text.split(b"\n")
    line_no = next(i for i, l in enumerate(lines) if l.startswith(b"\tname = \"ust_tests_hello:tptest\";")) + 1
    lines[line_no - 1] = b'\tname = "ust_tests_hello:tptest'  # string literal runs to the end of line
    write_case("tsdl-unterminated-string",
               f"metadata: CAUSED BY TSDL syntax error at line {line_no}, column 9",
               {"metadata": b"\n".join(lines)})

    # Clock fields whose times leave the range of ns timestamps (0 to 2^64): refused, not
    # wrapped. The packet's timestamp_begin is checked first (its origin fits).
    begin = struct.unpack_from("<Q", s.data, 24)[0]
    freq_1 = text.replace(b"freq = 1000000000;", b"freq = 1;").replace(
        b"offset = 1376578704245614726;", b"offset = 0;")
    write_case("clock-freq-1",
               f"{path}, offset=0: CAUSED BY clock monotonic: timestamp_begin ({begin} cycles) at "
               "freq = 1 Hz, offset_s = 0, offset = 0 is beyond the range of timestamps",
               {"metadata": freq_1, STREAM_FILE: bytes(s.data)})
    for name, offset_s, side in (("clock-offset-s-max", "9223372036854775807", "beyond"),
                                 ("clock-offset-s-min", "-9223372036854775808", "before")):
        shifted = text.replace(b"offset = 1376578704245614726;",
                               b"offset_s = " + offset_s.encode() + b";\n\toffset = 1376578704245614726;")
        write_case(name,
                   f"{path}, offset=0: CAUSED BY clock monotonic: the origin (0 cycles) at freq = "
                   f"1000000000 Hz, offset_s = {offset_s}, offset = 1376578704245614726 is {side} the "
                   "range of timestamps",
                   {"metadata": shifted, STREAM_FILE: bytes(s.data)})

    packets, offsets = packetize(text, 1024, template)
    struct.pack_into("<I", packets, offsets[2] + 24, 9000 * 8)
    write_case("metadata-packet-bad-content-size",
               f"metadata, offset={offsets[2]}: content_size 72000 exceeds packet_size 8192",
               {"metadata": bytes(packets), STREAM_FILE: bytes(s.data)})

    packets, offsets = packetize(text, 1024, template)
    packets = packets[: offsets[3] + 20]
    write_case("metadata-packet-truncated-header",
               f"metadata, offset={offsets[3]}: truncated packet header (20 bytes left, the header has 37)",
               {"metadata": bytes(packets)})

    write_case("unknown-type-alias",
               f"metadata: CAUSED BY TSDL error at line {SMALL_FIELDS_LINE + 1}, column 3: unknown type name "
               "'uint33_t'",
               {"metadata": small_tsdl("\t\tuint32_t a;\n\t\tuint33_t b;")})

    write_case("unresolved-variant-tag",
               "metadata: CAUSED BY Cannot compile event.fields of event 'small' (id 0): CAUSED BY field 'v': "
               "cannot resolve variant tag 'nosuch'",
               {"metadata": small_tsdl("\t\tenum : uint8_t { A, B } tag;\n"
                                       "\t\tvariant <nosuch> { uint8_t A; uint32_t B; } v;")})

    # Arrays of empty elements: no bits to bound their length, so the reader bounds the
    # count of a sequence, and of iterations of nested loops, by the bits left.
    header = struct.pack("<III", 0xC1FC1FC1, 0, 0)  # magic, stream_id, event id
    write_case("empty-elements-sequence",
               "trace/stream, packet offset=0, event offset=8: CAUSED BY sequence of 2147483647 empty "
               "elements cannot fit in the 32 bits left",
               {"metadata": small_tsdl("\t\tuint32_t n;\n\t\tstruct { } e[n];"),
                "stream": header + struct.pack("<I", 0x7FFFFFFF) + bytes(4)})

    fields = ("\t\tuint16_t a; uint16_t b; uint16_t c; uint8_t zero;\n"
              "\t\tstruct { struct { struct { uint8_t z[zero]; } in3[c]; } in2[b]; } out[a];")
    data = header + struct.pack("<HHHB", 4000, 4000, 4000, 0) + bytes(200)
    bits_left = (len(data) - len(header)) * 8
    write_case("nested-empty-arrays",
               "trace/stream, packet offset=0, event offset=8: CAUSED BY array elements repeat more "
               f"than {2 * bits_left + 65536} times in event.fields",
               {"metadata": small_tsdl(fields), "stream": data})

    write_case("empty-directory", "Cannot open trace: no CTF metadata file in or below", {})
    write_case("nonexistent-path", "nonexistent-path/trace does not exist", make_trace_dir=False)
    write_case("metadata-only", events=0, files=meta)

    plain_header_cases()


if __name__ == "__main__":
    main()
