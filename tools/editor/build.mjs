// Builds the question studio's editor: one minified script of CodeMirror 6 and its YAML mode,
// written with its licences to static/vendor/studio-editor/ (committed, so a deployment needs
// no Node). Run `npm ci && npm run build` here after changing src/ or package.json.
import { readdirSync, readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";

const out = join("..", "..", "static", "vendor", "studio-editor");
mkdirSync(out, { recursive: true });

const result = await esbuild.build({
  entryPoints: ["src/editor.js"],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  outfile: join(out, "editor.js"),
  legalComments: "none",
  metafile: true,
  banner: {
    js: "/* The question studio's editor: CodeMirror 6 and its YAML mode (MIT; see LICENSE.txt"
      + " beside this file), bundled by tools/editor (npm run build). */",
  },
});

// Every bundled package's licence, in one file beside the bundle.
const packages = new Set();
for (const input of Object.keys(result.metafile.inputs)) {
  const match = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (match) packages.add(match[1]);
}
const sections = [...packages].sort().map((name) => {
  const dir = join("node_modules", name);
  const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  if (!file) throw new Error(`${name} has no licence file`);
  return `${name} ${meta.version} (${meta.license})\n\n${readFileSync(join(dir, file), "utf8").trim()}\n`;
});
writeFileSync(
  join(out, "LICENSE.txt"),
  "The studio editor bundle (editor.js) contains these packages, under these licences.\n\n"
    + sections.join("\n" + "-".repeat(72) + "\n\n"),
);
console.log(`editor.js: ${packages.size} packages, ${existsSync(join(out, "editor.js")) ? "written" : "missing"}`);
