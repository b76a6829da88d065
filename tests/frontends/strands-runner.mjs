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
// process has a run of that thread in flight, the connect attaches to it as InMemoryAgentRunner does.
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
      this.isRunning({ threadId: request.threadId })
        .then((running) => {
          if (running) {
            live = super.connect(request).subscribe(subscriber);
            return;
          }
          return this.restore(url, request).then((events) => {
            for (const event of events) subscriber.next(event);
            subscriber.complete();
          });
        })
        .catch((error) => subscriber.error(error));
      return () => live?.unsubscribe();
    });
  }

  /** The thread as the events of one run, or none when the server does not hold it. */
  async restore(url, { threadId, headers }) {
    const response = await this.fetch(`${url}/threads/${encodeURIComponent(threadId)}`, {
      headers: { accept: "application/json", ...(headers ?? {}) },
    });
    if (response.status === 404) return [];
    if (!response.ok) throw new Error(`GET ${url}/threads/${threadId}: ${response.status} ${await response.text()}`);
    const thread = await response.json();
    const runId = `restore-${crypto.randomUUID()}`;
    const interrupts = thread.pendingInterrupts ?? [];
    const events = [
      { type: EventType.RUN_STARTED, threadId, runId },
      { type: EventType.MESSAGES_SNAPSHOT, messages: thread.messages ?? [] },
    ];
    if (thread.state != null) events.push({ type: EventType.STATE_SNAPSHOT, snapshot: thread.state });
    const finished = { type: EventType.RUN_FINISHED, threadId, runId };
    if (interrupts.length) finished.outcome = { type: "interrupt", interrupts };
    events.push(finished);
    return events;
  }
}
