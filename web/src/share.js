// The case (files, reply, format, options) in the address's hash, compressed
// with lz-string, and the last case in localStorage. Nothing leaves the
// browser: the hash is never sent to a server.
import { compressToEncodedURIComponent, decompressFromEncodedURIComponent } from 'lz-string';

const STORE = 'patchbay-playground-case';
const VERSION = 1;

/** A case as plain data, or null when `value` is not one. */
function validCase(value) {
  if (!value || value.v !== VERSION || !Array.isArray(value.files) || typeof value.reply !== 'string') return null;
  const files = value.files.filter((f) => f && typeof f.path === 'string' && typeof f.text === 'string');
  if (files.length === 0) return null;
  return {
    files,
    reply: value.reply,
    format: typeof value.format === 'string' ? value.format : 'auto',
    partial: value.partial === true,
    active: Number.isInteger(value.active) && value.active >= 0 && value.active < files.length ? value.active : 0,
  };
}

/** The hash (`#case=...`) that restores `c`. */
export function hashOf(c) {
  return `#case=${compressToEncodedURIComponent(JSON.stringify({ v: VERSION, ...c }))}`;
}

/** The case in `hash`, or null (none, damaged, or another version). */
export function caseFromHash(hash) {
  const m = /^#case=(.+)$/.exec(hash ?? '');
  if (!m) return null;
  try {
    return validCase(JSON.parse(decompressFromEncodedURIComponent(m[1]) ?? 'null'));
  } catch {
    return null;
  }
}

/** Remembers `c` as the last case; a full or disabled storage just forgets. */
export function remember(c) {
  try {
    localStorage.setItem(STORE, JSON.stringify({ v: VERSION, ...c }));
  } catch {
    // Storage full or disabled (private mode): the hash still works.
  }
}

/** The last case remembered, or null. */
export function lastCase() {
  try {
    return validCase(JSON.parse(localStorage.getItem(STORE) ?? 'null'));
  } catch {
    return null;
  }
}
