#!/usr/bin/env python3
"""Writes the seed recipes of merge_fuzzer (fuzz/corpus/merge/).

A recipe (see merge_fuzzer.cc): decoding threads, events per batch and how they are taken,
shape (streams, one trace or two, clock transform, perf's plain event header, or rotations),
packing (packet size, second trace's clock offset), number of byte flips (and whether one
class's 32-bit field is declared again as fields off byte boundaries); then (op, arg)
pairs, one event, discard or rotation each; then 4 bytes per flip
(file, offset high, offset low, xor mask). The seeds are long enough for many batches and
packets per stream, so that mutations start deep in the merge rather than from a few events
(libFuzzer grows inputs slowly). Keep this in step with merge_fuzzer.cc.

Usage: python3 fuzz/make_merge_seeds.py
"""

import os
import random

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "merge")


def step(rng, streams, rotating=False):
    """A small time step (ops 0-4: tick or note, step op >> 4); never op 252 or 253 (a
    rotation) in a recipe that rotates."""
    return bytes([rng.randrange(5) + 8 * rng.randrange(31 if rotating else 32),
                  rng.randrange(streams)])


def recipe(seed, threads, batch, streams, packet_shift, ops, flips=0, discards=0.0,
           jumps=0.0, clock_end_from=None, traces=1, transform=False, offset_ns=0, api=0,
           plain=False, rotations=0.0, empty_packets=0.0, reshape=False):
    """rotations: the share of ops that rotate; empty_packets: the share of those that close
    an idle stream's file with a packet of no event (op 253) rather than leave it empty;
    reshape: the tick's field declared as bit fields over the same bits (ReshapeTick)."""
    rng = random.Random(seed)
    # Rotations (shape 192 and up) leave out the clock transform and the plain header, and
    # the clock's end (its ops may be 253, a rotation in a recipe that rotates).
    assert not rotations or not (transform or plain or clock_end_from is not None)
    shape = streams - 1 + 24 * (traces - 1) + 48 * transform + 96 * plain + 192 * (rotations > 0)
    # api: how the pipelined read takes the events (0 Next(), 1 ForEach, 2 both in turn).
    out = bytearray([threads - 1, batch - 1 + 16 * api, shape, packet_shift + 4 * offset_ns,
                     flips + 4 * reshape])
    for i in range(ops):
        r = rng.random()
        if clock_end_from is not None and i >= clock_end_from:
            out += bytes([5 + 8 * rng.randrange(32), rng.randrange(streams)])
        elif r < discards:
            out += bytes([6 + 8 * rng.randrange(4), rng.randrange(streams)])
        elif r < discards + jumps:
            out += bytes([7 + 8 * rng.randrange(1, 32), rng.randrange(streams)])
        elif r < discards + jumps + rotations:
            idle_packet = empty_packets > 0 and rng.random() < empty_packets
            out += bytes([253 if idle_packet else 252, rng.randrange(streams)])
        else:
            out += step(rng, streams, rotations > 0)
    for _ in range(flips):
        out += bytes([rng.randrange(256), rng.randrange(256), rng.randrange(256),
                      1 << rng.randrange(8)])
    return bytes(out)


SEEDS = {
    "four-streams-ties": recipe(1, 1, 3, 4, 0, 1500, api=1),
    "seventeen-streams": recipe(2, 2, 1, 17, 1, 1800),
    "many-streams-clock-end": recipe(3, 3, 5, 24, 2, 1800, clock_end_from=1500),
    "discards-and-jumps": recipe(4, 1, 8, 4, 1, 1500, discards=0.05, jumps=0.05, api=2),
    "flipped": recipe(5, 2, 4, 3, 0, 1500, flips=2, api=2),
    "one-stream": recipe(6, 1, 16, 1, 3, 800),
    "two-traces": recipe(7, 2, 6, 6, 1, 1500, traces=2, offset_ns=3, api=1),
    "two-traces-transformed": recipe(8, 1, 2, 20, 0, 1800, discards=0.02, traces=2,
                                     transform=True, offset_ns=17, api=2),
    "plain-header-jumps": recipe(9, 1, 7, 4, 1, 1500, discards=0.03, jumps=0.05, api=1,
                                 plain=True),
    "plain-header-flipped": recipe(10, 2, 3, 9, 0, 1500, flips=3, api=2, plain=True),
    "rotated": recipe(11, 1, 5, 4, 1, 1800, discards=0.03, rotations=0.01, api=1),
    "rotated-two-traces-flipped": recipe(12, 2, 3, 6, 0, 1800, discards=0.02, flips=2,
                                         traces=2, offset_ns=5, rotations=0.008, api=2),
    "rotated-idle-streams-empty-packets": recipe(14, 1, 4, 12, 0, 1800, discards=0.04,
                                                 rotations=0.03, empty_packets=0.7, api=2),
    "reshaped-fields": recipe(15, 1, 6, 4, 1, 1500, discards=0.02, jumps=0.03, api=1,
                              reshape=True),
    "reshaped-fields-plain-header-flipped": recipe(16, 2, 3, 5, 0, 1500, flips=2, api=2,
                                                   plain=True, reshape=True),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
