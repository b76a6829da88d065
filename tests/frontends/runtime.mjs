// The CopilotKit runtime in front of `strands-agui serve`, as a CopilotKit app deploys it, plus the test page.
//
//   node runtime.mjs <strands-agui base url> <routes, comma-separated> [--restore]
//
// With --restore (a server run with --threads), each runtime's runner is strands-runner.mjs's
// StrandsThreadRunner: a page's connect restores its thread from the server.
// Listens on a free loopback port and prints `listening <port>` once ready. It serves:
//   /api/copilotkit   the runtime as most apps mount it (v1 entry point, `copilotRuntimeNodeHttpEndpoint`)
//   /api/v2           the v2 runtime (`@copilotkit/runtime/v2`, `createCopilotNodeListener`)
//   /, /page.js, ...  the page (dist/, built by build.mjs), same origin as the runtime
// Each strands-agui route is one AG-UI `HttpAgent` named after the route, in both runtimes.
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { HttpAgent } from "@ag-ui/client";
import { CopilotRuntime, ExperimentalEmptyAdapter, copilotRuntimeNodeHttpEndpoint } from "@copilotkit/runtime";
import { CopilotRuntime as CopilotRuntimeV2 } from "@copilotkit/runtime/v2";
import { createCopilotNodeListener } from "@copilotkit/runtime/v2/node";

import { StrandsThreadRunner } from "./strands-runner.mjs";

const [baseUrl, routeList, mode] = process.argv.slice(2);
const routes = routeList.split(",");
const DIST = join(fileURLToPath(new URL(".", import.meta.url)), "dist");
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".map": "application/json",
  ".woff": "font/woff", ".woff2": "font/woff2", ".ttf": "font/ttf" };

// --- the snippet docs/copilotkit.md shows: one HttpAgent per strands-agui route, the restoring runner --------
const urls = Object.fromEntries(routes.map((name) => [name, `${baseUrl}/${name}`]));
const agents = () => Object.fromEntries(routes.map((name) => [name, new HttpAgent({ url: urls[name] })]));
// --restore: a page reloaded, in another browser or after a runtime restart shows what `serve --threads` holds
const runner = mode === "--restore" ? new StrandsThreadRunner({ urls }) : undefined;

const v1 = copilotRuntimeNodeHttpEndpoint({
  endpoint: "/api/copilotkit",
  runtime: new CopilotRuntime({ agents: agents(), a2ui: {}, runner }),
  serviceAdapter: new ExperimentalEmptyAdapter(),
});
const v2 = createCopilotNodeListener({
  runtime: new CopilotRuntimeV2({ agents: agents(), a2ui: {}, runner }),
  basePath: "/api/v2",
  activateChannels: false,
});
// ------------------------------------------------------------------------------------------------------------

async function page(req, res) {
  const path = new URL(req.url, "http://localhost").pathname;
  const file = path === "/" ? "index.html" : path.slice(1);
  try {
    const body = await readFile(join(DIST, file.replaceAll("..", "")));
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(body);
  } catch {
    res.writeHead(404).end("not found");
  }
}

const server = createServer((req, res) => {
  if (req.url.startsWith("/api/copilotkit")) return v1(req, res);
  if (req.url.startsWith("/api/v2")) return v2(req, res);
  return page(req, res);
});
server.listen(0, "127.0.0.1", () => console.log(`listening ${server.address().port}`));
