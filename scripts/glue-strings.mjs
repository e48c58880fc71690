// Rewrites how wasm-bindgen's glue hands a string to the module
// (`passStringToWasm0`), in the glue files named on the command line.
//
// The generated function copies the string's ASCII prefix a character at a
// time in a JavaScript loop, and uses `TextEncoder.encodeInto` only from the
// first non-ASCII character on. For source code that loop is the whole
// string: in node it was 54% of the package's tag view of 10 MB, and it is
// paid for every file `applyEdits` reads. The replacement encodes with one
// `encodeInto` into the `len` bytes an ASCII string needs. Only if a
// character did not fit does it grow the block to what the rest can take
// (3 bytes a UTF-16 unit) and encode the rest. Then it shrinks the block to
// what was written. The bytes are the same: `encodeInto` is also what the
// generated code uses past the prefix.
//
// The build fails if the generated function is not the one this expects
// (a new wasm-bindgen would need this looked at again).
//
//   node scripts/glue-strings.mjs GLUE.js...
import { readFileSync, writeFileSync } from 'node:fs';

const GENERATED = `    let len = arg.length;
    let ptr = malloc(len, 1) >>> 0;

    const mem = getUint8ArrayMemory0();

    let offset = 0;

    for (; offset < len; offset++) {
        const code = arg.charCodeAt(offset);
        if (code > 0x7F) break;
        mem[ptr + offset] = code;
    }
    if (offset !== len) {
        if (offset !== 0) {
            arg = arg.slice(offset);
        }
        ptr = realloc(ptr, len, len = offset + arg.length * 3, 1) >>> 0;
        const view = getUint8ArrayMemory0().subarray(ptr + offset, ptr + len);
        const ret = cachedTextEncoder.encodeInto(arg, view);

        offset += ret.written;
        ptr = realloc(ptr, len, offset, 1) >>> 0;
    }

    WASM_VECTOR_LEN = offset;
    return ptr;`;

const NATIVE = `    // One native encodeInto, not a loop over the ASCII prefix (scripts/glue-strings.mjs).
    const len = arg.length;
    let ptr = malloc(len, 1) >>> 0;
    let { read, written } = cachedTextEncoder.encodeInto(arg, getUint8ArrayMemory0().subarray(ptr, ptr + len));
    if (read !== len) {
        const rest = arg.slice(read);
        const size = written + rest.length * 3;
        ptr = realloc(ptr, len, size, 1) >>> 0;
        written += cachedTextEncoder.encodeInto(rest, getUint8ArrayMemory0().subarray(ptr + written, ptr + size)).written;
        ptr = realloc(ptr, size, written, 1) >>> 0;
    }
    WASM_VECTOR_LEN = written;
    return ptr;`;

for (const file of process.argv.slice(2)) {
  const glue = readFileSync(file, 'utf8');
  if (glue.includes(NATIVE) || !glue.includes('function passStringToWasm0(')) continue;
  const parts = glue.split(GENERATED);
  if (parts.length !== 2) {
    console.error(`glue-strings: ${file}: passStringToWasm0 is not the generated function this script rewrites`);
    process.exit(1);
  }
  writeFileSync(file, parts.join(NATIVE));
}
