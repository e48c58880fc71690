// Writes a wasm module without its `target_features` custom section.
//
// The modules are built without the reference-types proposal
// (.cargo/config.toml says why), but the standard library, built with it,
// still names it in that section, and wasm-bindgen reads the section to
// decide whether to keep JS values in a table of externrefs. Without the
// section it looks at the code, which holds no externref intrinsics, and
// keeps them in the glue. Only that section is dropped; every other byte is
// copied as it is.
//
//   node scripts/strip-target-features.mjs IN.wasm OUT.wasm
import { readFileSync, writeFileSync } from 'node:fs';

const [input, output] = process.argv.slice(2);
const bytes = readFileSync(input);
const leb = (at) => {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [value, at];
  }
};
const kept = [bytes.subarray(0, 8)]; // magic and version
let dropped = 0;
for (let at = 8; at < bytes.length; ) {
  const [size, body] = leb(at + 1);
  const end = body + size;
  let drop = false;
  if (bytes[at] === 0) {
    const [length, name] = leb(body);
    drop = bytes.subarray(name, name + length).toString() === 'target_features';
  }
  if (drop) dropped++;
  else kept.push(bytes.subarray(at, end));
  at = end;
}
if (dropped !== 1) {
  console.error(`${input}: ${dropped} target_features sections, expected one`);
  process.exit(1);
}
writeFileSync(output, Buffer.concat(kept));
