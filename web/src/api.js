// The UI's JSON endpoints (src/server/ui_api.h): every time is ns from `origin`.
// A server started with --token is opened as /?access_token=T: every fetch carries it.
const token = new URLSearchParams(window.location.search).get("access_token");

async function get(path) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = "Bearer " + token;
  const r = await fetch(path, { headers });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.title || body.detail || `${r.status} ${r.statusText}`);
  return body;
}

export function fetchRequests({ operation, cause, limit } = {}) {
  const p = new URLSearchParams();
  if (operation) p.set("operation", operation);
  if (cause) p.set("cause", cause);
  if (limit) p.set("limit", String(limit));
  return get("/api/requests?" + p.toString());
}

export function fetchRequest(id, { begin, end, pixels }) {
  const p = new URLSearchParams({ pixels: String(pixels) });
  if (begin !== undefined && end !== undefined) {
    p.set("begin", String(Math.round(begin)));
    p.set("end", String(Math.round(end)));
  }
  return get("/api/requests/" + encodeURIComponent(id) + "?" + p.toString());
}

export function fetchThreads(workers, { begin, end, pixels }) {
  const p = new URLSearchParams({
    workers: workers.join(","), begin: String(Math.round(begin)), end: String(Math.round(end)),
    pixels: String(pixels),
  });
  return get("/api/threads?" + p.toString());
}
