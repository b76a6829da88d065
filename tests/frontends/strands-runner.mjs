// A CopilotKit v2 runtime runner that restores threads from `strands-agui serve --threads`
// (docs/copilotkit.md, "Restoring a conversation"). Copy this file next to your runtime.
//
//   import { StrandsThreadRunner } from "./strands-runner.mjs";
//   new CopilotRuntime({ agents, runner: new StrandsThreadRunner({ urls: { my_agent: "http://.../my_agent" } }) });
//
// Runs go through CopilotKit's own InMemoryAgentRunner (unchanged). A connect - what the page does when
// <CopilotChat threadId> mounts: a reload, a second browser, a runtime restarted - reads the thread from the
// server, `GET {url}/threads/{threadId}`, and replays it as one run: RUN_STARTED, MESSAGES_SNAPSHOT,
// STATE_SNAPSHOT, RUN_FINISHED (with `outcome: interrupt` when the thread waits on an approval, so the page's
// useInterrupt card comes back). The request's forwarded headers (e.g. Authorization) go with it, so the
// thread is the caller's. A thread the server does not hold (404) restores nothing. While this runtime
// process has a run of that thread in flight, the connect attaches to it as InMemoryAgentRunner does; while
// the server names a live run of the thread (`liveRun`, `serve --threads --resumable`: a reload mid-run after
// this runtime restarted, or on another one), it attaches to that, `GET {url}/runs/{runId}/events` from its
// first event, with the thread's messages and state after its RUN_STARTED.
import { EventType } from "@ag-ui/client";
import { InMemoryAgentRunner } from "@copilotkit/runtime/v2";
import { Observable } from "rxjs";

export class StrandsThreadRunner extends InMemoryAgentRunner {
  /** @param {{urls: Record<string, string>, fetch?: typeof fetch}} options the strands-agui route of each agent id */
  constructor({ urls, fetch: fetcher = fetch }) {
    super();
    this.urls = urls;
    this.fetch = fetcher;
  }

  connect(request) {
    const url = this.urls[request.agentId];
    if (!url) return super.connect(request);
    return new Observable((subscriber) => {
      let live = null;
      const left = new AbortController();  // the page went away: stop following the run
      this.isRunning({ threadId: request.threadId })
        .then(async (running) => {
          if (running) {
            live = super.connect(request).subscribe(subscriber);
            return;
          }
          let thread = await this.thread(url, request);
          if (thread?.liveRun) {
            if (await this.attach(url, request, thread, subscriber, left.signal)) return;
            thread = await this.thread(url, request);  // the run is gone: the thread holds what it kept
          }
          for (const event of this.replay(request.threadId, thread)) subscriber.next(event);
          subscriber.complete();
        })
        .catch((error) => left.signal.aborted || subscriber.error(error));
      return () => {
        live?.unsubscribe();
        left.abort();
      };
    });
  }

  /** The thread as the events of one run, or none when the server does not hold it. */
  async restore(url, request) {
    return this.replay(request.threadId, await this.thread(url, request));
  }

  /** `GET {url}/threads/{threadId}` with the request's headers; null when the server does not hold it (404). */
  async thread(url, { threadId, headers }) {
    const response = await this.fetch(`${url}/threads/${encodeURIComponent(threadId)}`, {
      headers: { accept: "application/json", ...(headers ?? {}) },
    });
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(`GET ${url}/threads/${threadId}: ${response.status} ${await response.text()}`);
    return response.json();
  }

  replay(threadId, thread) {
    if (!thread) return [];
    const runId = `restore-${crypto.randomUUID()}`;
    const interrupts = thread.pendingInterrupts ?? [];
    const events = [{ type: EventType.RUN_STARTED, threadId, runId }, ...this.snapshots(thread)];
    const finished = { type: EventType.RUN_FINISHED, threadId, runId };
    if (interrupts.length) finished.outcome = { type: "interrupt", interrupts };
    events.push(finished);
    return events;
  }

  snapshots(thread) {
    const messages = [...(thread.messages ?? []), ...(thread.liveRun?.messages ?? [])];
    const events = [{ type: EventType.MESSAGES_SNAPSHOT, messages }];
    if (thread.state != null) events.push({ type: EventType.STATE_SNAPSHOT, snapshot: thread.state });
    return events;
  }

  /**
   * The thread's live run (`liveRun` of the thread API, `--resumable`), from its first event:
   * `GET {url}/runs/{runId}/events`; the thread's messages (and the run's new ones) and state right after its
   * RUN_STARTED. False when the run can no longer be read (ended and expired): the thread, read again, is
   * replayed instead.
   */
  async attach(url, { headers }, thread, subscriber, signal) {
    const response = await this.fetch(`${url}/runs/${encodeURIComponent(thread.liveRun.runId)}/events`, {
      headers: { accept: "text/event-stream", ...(headers ?? {}) },
      signal,
    });
    if (response.status === 404 || response.status === 204) return false;
    if (!response.ok) throw new Error(`GET ${url}/runs/${thread.liveRun.runId}/events: ${response.status}`);
    let first = true;
    for await (const event of sseEvents(response.body)) {
      subscriber.next(event);
      if (first && event.type === EventType.RUN_STARTED) for (const snapshot of this.snapshots(thread)) subscriber.next(snapshot);
      first = false;
    }
    subscriber.complete();
    return true;
  }
}

/** The events of an SSE body: frames split on a blank line, `data:` lines joined, comments skipped. */
async function* sseEvents(body) {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) !== -1) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = frame.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).replace(/^ /, ""));
      if (data.length) yield JSON.parse(data.join("\n"));
    }
  }
}
