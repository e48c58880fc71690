// Rewrites how wasm-bindgen's glue hands a string to the module
// (`passStringToWasm0`) and how it finds the memory's DataView, in the glue
// files named on the command line.
//
// The generated function copies the string's ASCII prefix a character at a
// time in a JavaScript loop, and uses `TextEncoder.encodeInto` only from the
// first non-ASCII character on. For source code that loop is the whole
// string, the largest part of the package's tag view of a large file, and
// it is paid for every file `applyEdits` reads. The replacement encodes with one
// `encodeInto` into the `len` bytes an ASCII string needs. Only if a
// character did not fit does it grow the block to what the rest can take
// (3 bytes a UTF-16 unit) and encode the rest. Then it shrinks the block to
// what was written. The bytes are the same: `encodeInto` is also what the
// generated code uses past the prefix. Strings of up to 64 UTF-16 units
// (a stream's chunks, options, paths) keep the loop: there encodeInto's call
// and the view it writes into cost more than the copy (a profile of 20-byte
// estimates put a third of the time in them).
//
// It also rewrites how the glue reads a string back (`getStringFromWasm0`,
// below) and `getDataViewMemory0`'s check for a grown memory (below that).
//
// The build fails if a generated function is not the one this expects
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

const NATIVE = `    // Short strings by a loop, long ones by one native encodeInto (scripts/glue-strings.mjs).
    const len = arg.length;
    let ptr = malloc(len, 1) >>> 0;
    let read = 0;
    let written = 0;
    if (len <= SHORT_STRING) {
        const mem = getUint8ArrayMemory0();
        for (; read < len; read++) {
            const code = arg.charCodeAt(read);
            if (code > 0x7F) break;
            mem[ptr + read] = code;
        }
        written = read;
    } else {
        ({ read, written } = cachedTextEncoder.encodeInto(arg, getUint8ArrayMemory0().subarray(ptr, ptr + len)));
    }
    if (read !== len) {
        const rest = arg.slice(read);
        const size = written + rest.length * 3;
        ptr = realloc(ptr, len, size, 1) >>> 0;
        written += cachedTextEncoder.encodeInto(rest, getUint8ArrayMemory0().subarray(ptr + written, ptr + size)).written;
        ptr = realloc(ptr, size, written, 1) >>> 0;
    }
    WASM_VECTOR_LEN = written;
    return ptr;`;

// Up to this many UTF-16 units, the loop costs less than encodeInto's call
// and the view it needs (measured in node 20: docs/benchmarks.md).
const SHORT_STRING = 64;

// The memory's DataView (return values are read through it after each
// call): the generated check compares the view's buffer with the memory's
// on every call where `ArrayBuffer.prototype.detached` is missing (node
// 20), two buffer getters a call. A one-byte Uint8Array over the same
// buffer tells the same thing (its length is 0 once the memory has grown
// and detached the buffer) for the price of a field read.
const VIEW_GENERATED = `function getDataViewMemory0() {
    if (cachedDataViewMemory0 === null || cachedDataViewMemory0.buffer.detached === true || (cachedDataViewMemory0.buffer.detached === undefined && cachedDataViewMemory0.buffer !== wasm.memory.buffer)) {
        cachedDataViewMemory0 = new DataView(wasm.memory.buffer);
    }
    return cachedDataViewMemory0;
}`;

const VIEW_PROBED = `let cachedDataViewProbe0 = null; // scripts/glue-strings.mjs
function getDataViewMemory0() {
    if (cachedDataViewMemory0 === null || cachedDataViewProbe0.byteLength === 0) {
        cachedDataViewMemory0 = new DataView(wasm.memory.buffer);
        cachedDataViewProbe0 = new Uint8Array(cachedDataViewMemory0.buffer, 0, 1);
    }
    return cachedDataViewMemory0;
}`;

// A string the module returns: node 20's TextDecoder takes 10-12 ms for
// 13 MB of ASCII (the tag view of 10 MB), where node's own Buffer, after
// its SIMD check that the bytes are ASCII, copies them as Latin-1 (the same
// characters below 0x80) in 1.5-2 ms measured apart, 5.5 ms inside the tag
// view (a long string is made outside the JavaScript heap, in pages just
// mapped). Short strings, text with any non-ASCII byte, and every browser
// (no Buffer there) keep the generated TextDecoder path.
const DECODE_GENERATED = `function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return decodeText(getUint8ArrayMemory0().subarray(ptr, ptr + len));
}`;

const DECODE_NODE = `const nodeBuffer0 = globalThis.process?.getBuiltinModule?.('node:buffer'); // scripts/glue-strings.mjs
function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    const bytes = getUint8ArrayMemory0().subarray(ptr, ptr + len);
    if (len >= LONG_STRING && nodeBuffer0 !== undefined && nodeBuffer0.isAscii(bytes)) {
        return nodeBuffer0.Buffer.from(bytes.buffer, ptr, len).toString('latin1');
    }
    return decodeText(bytes);
}`;

// From this many bytes on, the check and the Buffer cost less than the
// TextDecoder (measured in node 20: docs/benchmarks.md).
const LONG_STRING = 4096;

/** `glue` with the one `from` replaced by `to`; fails the build unless `from` occurs exactly once. */
function replaceOnce(file, glue, from, to, what) {
  const parts = glue.split(from);
  if (parts.length !== 2) {
    console.error(`glue-strings: ${file}: ${what} is not the generated function this script rewrites`);
    process.exit(1);
  }
  return parts.join(to);
}

for (const file of process.argv.slice(2)) {
  let glue = readFileSync(file, 'utf8');
  const before = glue;
  const native = NATIVE.replace('SHORT_STRING', String(SHORT_STRING));
  if (glue.includes('function passStringToWasm0(') && !glue.includes(native)) {
    glue = replaceOnce(file, glue, GENERATED, native, 'passStringToWasm0');
  }
  const decode = DECODE_NODE.replace('LONG_STRING', String(LONG_STRING));
  if (glue.includes('function getStringFromWasm0(') && !glue.includes(decode)) {
    glue = replaceOnce(file, glue, DECODE_GENERATED, decode, 'getStringFromWasm0');
  }
  if (glue.includes('function getDataViewMemory0(') && !glue.includes(VIEW_PROBED)) {
    glue = replaceOnce(file, glue, VIEW_GENERATED, VIEW_PROBED, 'getDataViewMemory0');
  }
  if (glue !== before) writeFileSync(file, glue);
}
