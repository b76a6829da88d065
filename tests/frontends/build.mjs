// Bundles the test page (src/) into dist/ with esbuild: no dev server, the runtime serves dist/.
import { copyFile, mkdir } from "node:fs/promises";

import { build } from "esbuild";

await mkdir("dist", { recursive: true });
await build({
  entryPoints: ["src/page.jsx"],
  bundle: true,
  outdir: "dist",
  format: "esm",
  jsx: "automatic",
  minify: true,
  sourcemap: false,
  logLevel: "warning",
  define: { "process.env.NODE_ENV": '"production"' },
  loader: { ".woff": "file", ".woff2": "file", ".ttf": "file", ".svg": "file", ".png": "file" },
});
await copyFile("src/index.html", "dist/index.html");
