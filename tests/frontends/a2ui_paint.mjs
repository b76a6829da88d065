// What @ag-ui/a2ui-middleware (as CopilotKit 1.74's runtime applies it) makes of a strands-agui run.
//
//   node a2ui_paint.mjs <route url> <RunAgentInput.json>
//
// Prints, in order, the events the middleware passes on: type, tool call name/id, and for its A2UI
// activity snapshots the operations (what a renderer paints at that moment).
import { readFileSync } from "node:fs";

import { HttpAgent } from "@ag-ui/client";
import { A2UIMiddleware } from "@ag-ui/a2ui-middleware";

const [url, inputPath] = process.argv.slice(2);
const input = JSON.parse(readFileSync(inputPath, "utf8"));
const agent = new HttpAgent({ url, threadId: input.threadId, initialMessages: input.messages });
agent.use(new A2UIMiddleware({}));

const seen = [];
const names = new Map();
await agent.runAgent({ runId: input.runId, tools: input.tools, context: input.context }, {
  onEvent: ({ event }) => {
    if (event.type === "TOOL_CALL_START") names.set(event.toolCallId, event.toolCallName);
    const entry = { type: event.type };
    if (event.toolCallId) Object.assign(entry, { toolCallId: event.toolCallId, name: names.get(event.toolCallId) });
    if (event.type === "ACTIVITY_SNAPSHOT") Object.assign(entry, { activityType: event.activityType, content: event.content });
    seen.push(entry);
  },
});
process.stdout.write(JSON.stringify(seen));
