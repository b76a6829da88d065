// The transport: the page's requests to its server (a run's SSE stream, the examples list), with failures
// turned into what a person can act on. No DOM.
"use strict";

// A request that failed; `unreachable`: it never got an answer (the server is down or the network is gone).
export class RequestFailed extends Error {
  constructor(message, { unreachable = false, status = 0 } = {}) {
    super(message);
    this.name = "RequestFailed";
    this.unreachable = unreachable;
    this.status = status;
  }
}

const UNREACHABLE = (what) => `The server did not answer ${what} (${location.origin}): it may have stopped. Start it again `
  + "(strands-agui serve), then press Send.";

async function request(url, init, what) {
  let response;
  try {
    response = await fetch(url, init);
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new RequestFailed(UNREACHABLE(what), { unreachable: true });
  }
  if (!response.ok) {
    const body = await response.text().catch(() => "");
    let detail = body;
    try { detail = JSON.parse(body).detail ?? body; } catch { /* not JSON: the text itself */ }
    if (typeof detail !== "string") detail = JSON.stringify(detail);
    throw new RequestFailed(`${what} was refused: HTTP ${response.status}${detail ? `, ${detail.slice(0, 300)}` : ""}`,
      { status: response.status });
  }
  return response;
}

// GET /examples: the agents this server serves. Resolves to a list, or throws RequestFailed.
export async function fetchExamples() {
  const response = await request("/examples", { headers: { Accept: "application/json" } }, "the list of agents (GET /examples)");
  const list = await response.json().catch(() => null);
  if (!Array.isArray(list)) throw new RequestFailed("GET /examples did not answer a list of agents.");
  return list;
}

// POST a RunAgentInput to `path`; yields the AG-UI events of the answer.
export async function* streamRun(path, input, signal) {
  const response = await request(path, {
    method: "POST", body: JSON.stringify(input), signal,
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
  }, `the run (POST ${path})`);
  try {
    yield* readEvents(response);
  } catch (err) {
    if (err.name === "AbortError" || err instanceof SyntaxError) throw err;
    throw new RequestFailed(`The connection to the server broke during the run (${err.message}): it may have stopped.`,
      { unreachable: true });
  }
}

// GET {path}/runs/{runId}/events: a resumable run from its first event, then live to its end (a page reloaded
// mid-run attaches to it); yields its AG-UI 1.0 events.
export async function* followRun(path, runId, signal) {
  const url = `${path.replace(/\/$/, "")}/runs/${encodeURIComponent(runId)}/events?protocolVersion=1.0`;
  const response = await request(url, { signal, headers: { Accept: "text/event-stream" } }, `the run (GET ${url})`);
  if (response.status === 204) return;  // it ended meanwhile: nothing follows
  yield* readEvents(response);
}

// POST {path}/runs/{runId}/cancel: ask the server to cancel a resumable run (Stop: closing a resumable run's stream
// leaves it running, waiting for a reconnect). A 404 is a run the server has not opened yet (Stop right after
// Send): asked again for a few seconds. Best effort: a run that ended meanwhile answers 409.
export async function cancelRun(path, runId, { tries = 20, pause = 150 } = {}) {
  const url = `${path.replace(/\/$/, "")}/runs/${encodeURIComponent(runId)}/cancel`;
  for (let i = 0; i < tries; i += 1) {
    let response;
    try {
      response = await fetch(url, { method: "POST", headers: { Accept: "application/json" } });
    } catch { return false; }  // the server is gone: nothing runs there any more
    if (response.status !== 404) return response.ok;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
  return false;
}

// ---- SSE over fetch: frames split on a blank line, `data:` lines joined, `:` comments ignored ----------
export async function* readEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    buffer += decoder.decode(value || new Uint8Array(), { stream: !done }).replace(/\r\n?/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) !== -1) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = frame.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, ""));
      if (data.length) yield JSON.parse(data.join("\n"));
    }
    if (done) {
      if (buffer.trim() && !buffer.trim().startsWith(":")) throw new Error(`stream ended inside a frame: ${buffer.slice(0, 200)}`);
      return;
    }
  }
}

