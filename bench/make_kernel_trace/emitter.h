// Stamps and writes the simulation's events through the CtfWriter. Each CPU's clock moves
// forward by a random gap before an event (At, Soon); with --lost, Keep drops bursts of
// events and reports them as discarded (packet-context events_discarded) before the next
// kept one. Callers draw an event's random fields only when Keep says it is kept. Events
// written from several places have their own methods: each moves the clock (Soon), then
// writes the event if kept.
#pragma once

#include <cstdint>

#include "ctf/writer/ctf_writer.h"
#include "make_kernel_trace/event_classes.h"
#include "make_kernel_trace/kernel_model.h"
#include "make_kernel_trace/rng.h"

namespace make_kernel_trace {

class Emitter {
 public:
  Emitter(causeway::ctf::CtfWriter& w, const EventIds& ids, Rng& rng, bool lost)
      : w_(w), ids_(ids), rng_(rng), lost_(lost) {}

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

  // sched_waking, sched_wakeup or sched_wakeup_new (`id`): t is to run on `target`.
  void SchedWakeup(Cpu& c, uint32_t id, const Thread& t, uint32_t target) {
    Soon(c);
    if (Keep(c))
      Event(c, id).Chars16(t.Comm()).S32(t.tid).S32(t.prio).S32(static_cast<int32_t>(target));
  }
  // block_rq_insert or block_rq_issue (`id`) of t's read.
  void BlockRq(Cpu& c, uint32_t id, const Thread& t) {
    Soon(c);
    if (Keep(c))
      Event(c, id)
          .U32(8388608)
          .U64(t.io_sector)
          .U32(t.io_nr)
          .U32(t.io_nr * 512)
          .S32(t.tid)
          .U32(8)
          .Chars16(t.Comm());
  }
  void HrtimerExpireEntry(Cpu& c, uint64_t hrtimer, uint64_t function) {
    Soon(c);
    if (Keep(c))
      Event(c, ids_.hrtimer_expire_entry)
          .Hex64(hrtimer)
          .S64(static_cast<int64_t>(c.now))
          .Hex64(function);
  }
  void HrtimerExpireExit(Cpu& c, uint64_t hrtimer) {
    Soon(c);
    if (Keep(c)) Event(c, ids_.hrtimer_expire_exit).Hex64(hrtimer);
  }

 private:
  causeway::ctf::CtfWriter& w_;
  const EventIds& ids_;
  Rng& rng_;
  bool lost_;
};

}  // namespace make_kernel_trace
