// Stamps and writes the simulation's events through the CtfWriter. Each CPU's clock moves
// forward by a random gap before an event (At, Soon); with --lost, Keep drops bursts of
// events and reports them as discarded (packet-context events_discarded) before the next
// kept one. Callers draw an event's random fields only when Keep says it is kept.
#pragma once

#include <cstdint>

#include "ctf/writer/ctf_writer.h"
#include "make_kernel_trace/kernel_model.h"
#include "make_kernel_trace/rng.h"

namespace make_kernel_trace {

class Emitter {
 public:
  Emitter(causeway::ctf::CtfWriter& w, Rng& rng, bool lost) : w_(w), rng_(rng), lost_(lost) {}

  // Moves c's clock forward by a random gap in [lo, hi].
  uint64_t At(Cpu& c, uint64_t lo, uint64_t hi) { return c.now += rng_.Range(lo, hi); }
  // Most events are a few hundred ns apart.
  uint64_t Soon(Cpu& c) { return At(c, 150, 900); }

  // --lost: bursts of dropped events, reported as discarded before the next kept event.
  bool Keep(Cpu& c) {
    if (!lost_) return true;
    if (c.drop_left) {
      c.lost++;
      if (--c.drop_left == 0) (void)w_.SetDiscarded(c.id, c.lost);
      return false;
    }
    if (--c.until_drop == 0) {
      c.drop_left = rng_.Range(50, 3000);
      c.until_drop = rng_.Range(50000, 300000);
    }
    return true;
  }
  // Reports a burst of drops still running when the recording ends.
  void FinishDrops(const Cpu& c) {
    if (c.drop_left) (void)w_.SetDiscarded(c.id, c.lost);
  }

  // An event of class `id` on c at c's clock.
  causeway::ctf::CtfWriter::EventBuilder Event(Cpu& c, uint32_t id) {
    return w_.Begin(c.id, id, c.now);
  }

 private:
  causeway::ctf::CtfWriter& w_;
  Rng& rng_;
  bool lost_;
};

}  // namespace make_kernel_trace
