#!/usr/bin/env node
// Many recordings through the official client in ONE node process (the client's packages load once):
//
//   node agui_client_batch.mjs JOBS.json
//
// JOBS.json is a list of argument lists for agui_client_check.mjs (a recording's path and its flags). Each job
// evaluates a fresh instance of that script (its own HttpAgent, captures and findings), which hands its report
// to this batch instead of printing it. Prints one JSON array of reports, each with its "exit_code".
import { readFileSync } from "node:fs";

const jobs = JSON.parse(readFileSync(process.argv[2], "utf8"));
const node = process.argv[0];
const reports = [];
for (const [i, args] of jobs.entries()) {
  const report = new Promise((resolve) => {
    globalThis.__aguiReport = (summary, code) => resolve({ ...summary, exit_code: code });
  });
  process.argv = [node, "agui_client_check.mjs", ...args];
  await import(`./agui_client_check.mjs?job=${i}`);
  reports.push(await report);
}
process.stdout.write(JSON.stringify(reports) + "\n", () => process.exit(0));
