#!/usr/bin/env python3
"""Writes the seed stream files of packet_fuzzer (fuzz/corpus/packet/).

Each seed is a valid stream file for the metadata embedded in packet_fuzzer.cc (kMetadata):
one or two packets of one stream class with a few events of every event class. The layout
below follows that metadata field by field; keep the two in step.

Usage: python3 fuzz/make_packet_seeds.py
"""

import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "packet")
UUID = bytes.fromhex("2a6422d06cee11e08c08cb07d7b3a564")
MAGIC = 0xC1FC1FC1


class Bits:
    """CTF bit packing: little-endian fields fill each byte from its least significant bit,
    big-endian fields from its most significant bit."""

    def __init__(self):
        self.buf = bytearray()
        self.pos = 0  # bits

    def _set(self, p, bit):
        while len(self.buf) <= p // 8:
            self.buf.append(0)
        if bit:
            self.buf[p // 8] |= 1 << (p % 8)

    def _set_be(self, p, bit):
        while len(self.buf) <= p // 8:
            self.buf.append(0)
        if bit:
            self.buf[p // 8] |= 0x80 >> (p % 8)

    def align(self, bits):
        self.pos = (self.pos + bits - 1) // bits * bits
        while len(self.buf) * 8 < self.pos:
            self.buf.append(0)

    def le(self, size, value, align=8):
        self.align(align)
        value &= (1 << size) - 1
        for i in range(size):
            self._set(self.pos + i, (value >> i) & 1)
        self.pos += size

    def be(self, size, value, align=8):
        self.align(align)
        value &= (1 << size) - 1
        for i in range(size):
            self._set_be(self.pos + i, (value >> (size - 1 - i)) & 1)
        self.pos += size

    def raw(self, data):
        self.align(8)
        self.buf += data
        self.pos += 8 * len(data)

    def string(self, s):
        self.raw(s.encode() + b"\0")

    def f32(self, v):
        self.le(32, struct.unpack("<I", struct.pack("<f", v))[0])

    def f64be(self, v):
        self.be(64, struct.unpack(">Q", struct.pack(">d", v))[0])


def packet_header(b, stream_id):
    b.le(32, MAGIC)
    b.raw(UUID)
    b.le(32, stream_id)
    b.le(64, 7)  # stream_instance_id


def lttng_context(b, ts_begin, ts_end, seq, discarded, cpu):
    """Writes the LTTng packet context; returns the bit offsets of content/packet size."""
    b.le(64, ts_begin)
    b.le(64, ts_end)
    at = b.pos
    b.le(64, 0)  # content_size, patched
    b.le(64, 0)  # packet_size, patched
    b.le(64, seq)
    b.le(64, discarded)
    b.le(32, cpu)
    return at, at + 64


def finish(b, content_at, packet_at, size_bits, pad_to=8):
    content = b.pos
    b.align(8)
    packet = (len(b.buf) + pad_to - 1) // pad_to * pad_to
    b.buf += bytes(packet - len(b.buf))
    b.pos = packet * 8
    for at, v in ((content_at, content), (packet_at, packet * 8)):
        b.buf[at // 8 : at // 8 + size_bits // 8] = v.to_bytes(size_bits // 8, "little")
    return bytes(b.buf)


# Stream 0: compact header (5-bit id, 27-bit timestamp; id 31: u32 id + u64 timestamp),
# event context { i32 _vtid; string _procname; }.
def compact_header(b, event_id, ts):
    b.align(8)
    if event_id < 31:
        b.le(5, event_id, align=1)
        b.le(27, ts & ((1 << 27) - 1), align=1)
    else:
        b.le(5, 31, align=1)
        b.le(32, event_id)
        b.le(64, ts)


def stream_event_context(b, vtid, procname):
    b.le(32, vtid)
    b.string(procname)


def everything(b, ts, n, m, kind):
    compact_header(b, 0, ts)
    stream_event_context(b, 1234, "fuzz")
    b.le(16, 3)  # event.context._ctx_len
    b.le(5, 2, align=1)  # _ctx_sel = Z
    b.le(3, -3)  # _bits3 (align 1, but the payload struct is byte aligned)
    b.le(11, 0x5A5, align=1)  # _hex11
    b.be(13, 0x1ABC)  # _be13 (align 8)
    b.be(3, 0b101, align=1)  # _be3
    b.be(32, -123456)  # _be32
    b.le(64, 0o1234567)  # _oct64
    b.be(7, 0b1011001)  # _bin7 (align 8)
    b.f32(1.5)
    b.f64be(-2.25)
    b.le(8, 15)  # _color: BLUE and DARK_BLUE
    b.raw(b"hi there")  # _text[8]
    for w in (1, 2, 3):
        b.le(16, w)  # _words[3]
    b.le(32, n)  # _n
    for i in range(n):
        b.le(16, 100 + i)  # _seq16[_n]
    b.raw(b"abcdefgh"[:n])  # _seqtext[_n]
    b.raw(b"\x01\x02\x03")  # _ctx_bytes[event.context._ctx_len]
    b.string("name")
    for i in range(n):
        b.string(f"s{i}")  # _names[_n]
    b.le(8, kind)  # _kind
    if kind == 1:
        b.le(32, 99)
    elif kind == 2:
        b.string("variant string")
    elif kind == 3:
        b.le(8, 7)
        b.le(64, 1 << 40)
    b.le(8, m)  # _m
    for i in range(m):  # _items[_m]
        b.le(8, i % 2)  # tag: i or s
        if i % 2 == 0:
            b.le(16, 500 + i)
        else:
            b.string(f"item{i}")
        b.le(4, 0xA, align=1)  # nib
    for k in (2, 0):  # _nested[2]
        b.le(8, k)
        for j in range(k):
            b.le(8, 40 + j)


def tick(b, ts):
    compact_header(b, 1, ts)
    stream_event_context(b, 7, "")


def by_header(b, ts):
    compact_header(b, 2, ts)
    stream_event_context(b, 2, "t")  # _vtid: length of _tail
    b.le(8, 9)  # _h.compact
    b.raw(b"\x10\x20")  # _tail[stream.event.context._vtid]


def by_header_extended(b, ts):
    b.align(8)
    b.le(5, 31, align=1)
    b.le(32, 2)
    b.le(64, ts)
    stream_event_context(b, 2, "t")
    b.le(64, 0xFFFF)  # _h.extended
    b.raw(b"\x10\x20")


def empties(b, ts, n):
    compact_header(b, 3, ts)
    stream_event_context(b, 3, "e")
    b.le(8, n)  # _n
    b.le(3, 2)  # _k (align 8)
    b.le(8, 0)  # _zero; _none, _few and _nest take no bits


def extended_only(b, ts):
    compact_header(b, 40, ts)
    stream_event_context(b, 5, "ext")
    for v in (1, 2, 3, 4):
        b.le(32, v)
    b.string("forty")


def stream0():
    out = b""
    base = 13960577721947
    for p, (seq, discarded) in enumerate(((0, 0), (1, 3))):
        b = Bits()
        packet_header(b, 0)
        c, s = lttng_context(b, base + p * 1000, base + p * 1000 + 900, seq, discarded, 2)
        ts = base + p * 1000
        extended_only(b, ts + 1)  # an extended header first, as LTTng does
        everything(b, ts + 10, n=3, m=4, kind=2)
        tick(b, ts + 20)
        by_header(b, ts + 30)
        by_header_extended(b, ts + 40)
        everything(b, ts + 50, n=0, m=0, kind=3 - p)
        everything(b, ts + 60, n=1, m=1, kind=0)
        empties(b, ts + 70, n=3 - p)
        out += finish(b, c, s, 64, pad_to=64)
    return out


# Stream 1: large header (u16 id, u32 timestamp; id 65535: u32 id + u64 timestamp).
def large_header(b, event_id, ts):
    b.align(8)
    if event_id < 65535:
        b.le(16, event_id)
        b.le(32, ts & 0xFFFFFFFF)
    else:
        b.le(16, 65535)
        b.le(32, event_id)
        b.le(64, ts)


def stream1():
    b = Bits()
    packet_header(b, 1)
    base = 1 << 33
    c, s = lttng_context(b, base, base + 100, 5, 0, 0)
    large_header(b, 70000, base + 1)
    b.string("large")
    for i, n in enumerate((0, 3, 9)):
        large_header(b, 0, base + 10 + i)
        b.align(32)  # the payload struct has the alignment of its float
        b.le(64, n)
        b.raw(bytes(range(n)))
        b.align(32)
        b.be(32, struct.unpack(">I", struct.pack(">f", 3.25))[0], align=32)
    return finish(b, c, s, 64)


# Stream 2: packet context { u64 timestamp_begin (slow clock); u32 content_size; u32
# packet_size; }, header { u8 id; 20-bit timestamp } align(32).
def stream2(first_begin=1000000):
    out = b""
    for p in range(2):
        b = Bits()
        packet_header(b, 2)
        b.le(64, first_begin if p == 0 else 1000000 * (p + 1))
        c = b.pos
        b.le(32, 0)
        s = b.pos
        b.le(32, 0)
        for i in range(3):
            b.align(32)
            b.le(8, 0)
            b.le(20, (1000000 * (p + 1) + 10 * i) & 0xFFFFF, align=1)
            b.le(8, i)
            b.string("slow" * i)
            b.align(32)
            b.le(8, 3)
            b.le(20, (1000000 * (p + 1) + 10 * i + 5) & 0xFFFFF, align=1)
            for r in range(2):  # _recs[2]: struct elements aligned as their uint16 sequence
                b.align(16)
                b.string(f"r{r}")
                b.le(8, r + 1)
                for w in range(r + 1):
                    b.le(16, w)
        out += finish(b, c, s, 32)
    return out


# Stream 3: the LTTng packet context, header { u32 id; u64 timestamp } align(8) (perf's).
def plain_header(b, event_id, ts):
    b.align(8)
    b.le(32, event_id)
    b.le(64, ts)


def stream3():
    out = b""
    ts = 1000
    for p in range(2):
        b = Bits()
        packet_header(b, 3)
        c, s = lttng_context(b, ts, ts + 1000, p, 0, 2)
        for i in range(6):
            ts += 7
            plain_header(b, 0, ts)  # plain_fixed
            b.le(32, i)
            b.le(64, i * 1000)
            ts += 3
            plain_header(b, 1, ts)  # plain_tail
            b.le(16, i)
            b.string("tail" * i)
            if i % 2:
                ts += 1
                plain_header(b, 4, ts)  # plain_mid
                b.string("mid" * i)
                b.le(32, i)
        out += finish(b, c, s, 64)
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {
        "stream0": stream0(),
        "stream1": stream1(),
        "stream2": stream2(),
        "stream3": stream3(),
    }
    # A stream without any event, and one packet of each alone.
    b = Bits()
    packet_header(b, 0)
    c, s = lttng_context(b, 5, 6, 0, 0, 1)
    seeds["stream0-empty"] = finish(b, c, s, 64)
    # The slow clock (1 MHz) at a timestamp_begin whose time is beyond 2^64 ns: refused,
    # naming the clock's fields.
    seeds["stream2-clock-beyond-range"] = stream2(first_begin=(1 << 64) - 1)
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
