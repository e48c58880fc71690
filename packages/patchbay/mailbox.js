// A worker's answers in shared memory, so that a page can take them in the
// next animation frame. A browser runs the message a worker posts after a
// keystroke only once it has rendered the frame that keystroke caused
// (Chromium puts rendering first after input), so an answer the worker
// had ready in 1 ms reaches the page 10-25 ms later. Read from shared
// memory in a `requestAnimationFrame` callback, it is shown in that frame.
//
// One writer (the worker) and one reader (the page). The buffer holds
// records one after the other from byte HEAD: the request's id (int32),
// the byte length of its answer's JSON (int32), the JSON in UTF-8, padded
// to 4 bytes. `end` (int32 at byte 0) is where the next record goes. The
// writer writes a record past `end`, then moves `end` over it with a
// compare-and-swap; the reader reads the records up to `end` and sets it
// back to 0 with a compare-and-swap that fails if one more arrived
// meanwhile (it reads that one too and tries again). Large answers are
// left to the message (`put` returns false): the reader's JSON.parse of a
// megabyte costs more in the frame than the frame it saves, where
// structured cloning it costs the page nothing until it arrives. So is
// everything when shared memory is not available (a page without
// cross-origin isolation).

const HEAD = 8;
/** Answers (and requests, see `fits`) up to this many UTF-16 units go through the mailbox. */
export const LIMIT = 1 << 18;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class Mailbox {
  /** A new mailbox (for the page's side), or null where shared memory is not available. */
  static create(bytes = 1 << 20, max = 1 << 28) {
    if (typeof SharedArrayBuffer !== 'function') return null;
    try {
      return new Mailbox(new SharedArrayBuffer(bytes, { maxByteLength: max }));
    } catch {
      return null;
    }
  }

  /** The mailbox over `buffer` (the worker's side: the buffer the page sent). */
  constructor(buffer) {
    this.buffer = buffer;
    this.end = new Int32Array(buffer, 0, 1);
  }

  /** Writes `value` (JSON-compatible) as the answer to request `id`; false when it does not fit. */
  put(id, value) {
    const json = JSON.stringify(value);
    if (json === undefined || json.length > LIMIT) return false;
    // Encoded apart and copied in: browsers encode into no shared memory.
    const bytes = encoder.encode(json);
    for (;;) {
      const at = Atomics.load(this.end, 0);
      const room = HEAD + at + 8 + bytes.length + 4;
      if (room > this.buffer.byteLength && !this.grow(room)) return false;
      new Uint8Array(this.buffer, HEAD + at + 8, bytes.length).set(bytes);
      new Int32Array(this.buffer, HEAD + at, 2).set([id, bytes.length]);
      const next = at + 8 + Math.ceil(bytes.length / 4) * 4;
      if (Atomics.compareExchange(this.end, 0, at, next) === at) return true;
      // The reader emptied the mailbox meanwhile: write it again at the start.
    }
  }

  /**
   * Whether a request's answer may be small enough to go through the
   * mailbox: its string arguments (and the strings of its object
   * arguments: the files) are below the limit. An answer carries about
   * what the request did (a file's new text), and a big one would be
   * turned into JSON only to be sent by message after all.
   */
  static fits(args) {
    let units = 0;
    for (const a of args) {
      if (typeof a === 'string') units += a.length;
      else if (a && typeof a === 'object') for (const v of Object.values(a)) units += typeof v === 'string' ? v.length : 0;
    }
    return units <= LIMIT;
  }

  grow(bytes) {
    if (!this.buffer.growable || bytes > this.buffer.maxByteLength) return false;
    this.buffer.grow(Math.min(this.buffer.maxByteLength, Math.max(bytes, this.buffer.byteLength * 2)));
    return true;
  }

  /** The answers written since the last call, `[id, value]` each, in the order written. */
  take() {
    const out = [];
    let from = 0;
    for (;;) {
      const end = Atomics.load(this.end, 0);
      while (from < end) {
        const [id, length] = new Int32Array(this.buffer, HEAD + from, 2);
        // TextDecoder reads no shared memory: copy the bytes out first.
        const bytes = new Uint8Array(this.buffer, HEAD + from + 8, length).slice();
        out.push([id, JSON.parse(decoder.decode(bytes))]);
        from += 8 + Math.ceil(length / 4) * 4;
      }
      if (end === 0 || Atomics.compareExchange(this.end, 0, end, 0) === end) return out;
    }
  }
}
