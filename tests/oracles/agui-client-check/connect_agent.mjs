#!/usr/bin/env node
// The official client's connectAgent against a resumable endpoint (README: "Resumable runs"):
//
//   node connect_agent.mjs URL RUN_ID
//
// HttpAgent leaves connect(input) unimplemented; this subclass implements it as the README says, with the
// client's own runHttpRequest + transformHttpEventStream, over GET URL/runs/RUN_ID/events (a replay from the
// run's start). Prints {ok, messages, state} as JSON; exit 1 when connectAgent rejects.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { HttpAgent, runHttpRequest, transformHttpEventStream } = require("@ag-ui/client");

class ResumableAgent extends HttpAgent {
  connect(input) {
    return transformHttpEventStream(runHttpRequest(() => this.fetch(`${this.url}/runs/${input.runId}/events`,
      { headers: { Accept: "text/event-stream" } })));
  }
}

const [url, runId] = process.argv.slice(2);
const agent = new ResumableAgent({ url });
try {
  await agent.connectAgent({ runId });
  console.log(JSON.stringify({ ok: true, messages: agent.messages, state: agent.state }));
} catch (error) {
  console.log(JSON.stringify({ ok: false, error: String(error) }));
  process.exit(1);
}
