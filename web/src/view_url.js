// The view in the URL's hash, so that a link (or a reload) shows the same thing:
//   #request=ID&begin=NS&end=NS&operation=KEY&cause=NAME
// begin and end are ns from the recording's origin (the API's time base), whole numbers.
const KEYS = ["request", "begin", "end", "operation", "cause"];

export function readView(hash = window.location.hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ""));
  const v = {};
  for (const k of KEYS) if (p.has(k) && p.get(k) !== "") v[k] = p.get(k);
  for (const k of ["begin", "end"]) {
    if (k in v) {
      const n = Number(v[k]);
      if (Number.isFinite(n)) v[k] = Math.round(n); else delete v[k];
    }
  }
  return v;
}

export function writeView(v) {
  const p = new URLSearchParams();
  for (const k of KEYS) if (v[k] !== undefined && v[k] !== null && v[k] !== "") p.set(k, String(v[k]));
  const hash = "#" + p.toString();
  if (hash !== window.location.hash) history.replaceState(null, "", hash);
}
