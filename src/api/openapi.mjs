// The published OpenAPI description, read from KV. It is not bundled: the ~95 KB document
// was 15 KiB of the upload's gzip budget, and every cold start parsed it. `build.rs` names
// its key by content (`openapi:<sha256 prefix>`); scripts/openapi-kv.sh stores it there.
// Kept per isolate, so KV is read once; the body never enters wasm memory.

let cached = null; // [key, text]

/** The answer, or null when the key holds nothing (a deploy that did not store it). */
export async function openapi_response(kv, key, headers, with_body) {
  if (cached === null || cached[0] !== key) {
    const text = await kv.get(key);
    if (text === null) return null;
    cached = [key, text];
  }
  return new Response(with_body ? cached[1] : null, { headers });
}
