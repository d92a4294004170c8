// Colours of causes (requests::Cause, as the HTML report draws them), of thread states
// (graph::State, lower-case names) and of arrow kinds.
export const CAUSE_COLORS = {
  running: "#2e7d32", preempted: "#f9a825", blocked_by_request: "#c62828",
  waiting_for_thread: "#8e24aa", network: "#1565c0", disk: "#6d4c41", timer: "#00897b",
  interrupted: "#ef6c00", blocked: "#9e9e9e", unknown: "#cfcfcf", other: "#607d8b",
  disk_queue: "#a1887f",
};

export const STATE_COLORS = {
  running: "#66bb6a", preempted: "#ffd54f", blocked: "#bdbdbd", interrupted: "#ffb74d",
  timer: "#4db6ac", network: "#64b5f6", block_device: "#a1887f", user_input: "#ba68c8",
  ipi: "#f06292", unknown: "#e0e0e0", block_queue: "#d7ccc8",
};

export const ARROW_COLORS = {
  wakeup: "#37474f", network: "#1565c0", fork: "#8d6e63", blocked_by_request: "#c62828",
};

export function causeLabel(c) { return String(c).replace(/_/g, " "); }
