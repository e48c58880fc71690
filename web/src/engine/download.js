// A wasm file fetched with its progress posted to the page: the syntax
// module weighs megabytes, and the page shows how much has arrived.

/** Fetches `url`, posting `{progress: {module, received}}` per chunk, and returns its bytes. */
export async function download(url, module) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status}`);
  const reader = response.body.getReader();
  const parts = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    received += value.length;
    self.postMessage({ progress: { module, received } });
  }
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return bytes;
}
