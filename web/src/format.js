// Durations and times for people: ns in, short text out.
export function duration(ns) {
  const a = Math.abs(ns);
  if (a >= 1e9) return (ns / 1e9).toFixed(3) + " s";
  if (a >= 1e6) return (ns / 1e6).toFixed(3) + " ms";
  if (a >= 1e3) return (ns / 1e3).toFixed(1) + " µs";
  return Math.round(ns) + " ns";
}

// A time relative to the recording's origin, with the precision the window needs.
export function offset(ns, span) {
  if (span >= 1e8) return "+" + (ns / 1e9).toFixed(3) + " s";
  if (span >= 1e5) return "+" + (ns / 1e6).toFixed(3) + " ms";
  return "+" + (ns / 1e3).toFixed(2) + " µs";
}

export function shortId(id) { return String(id).slice(0, 8); }
