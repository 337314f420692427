// The published OpenAPI description as JavaScript data. esbuild (run by worker-build) bundles
// the repository's openapi.json into the worker's JavaScript, so the ~115 KB document stays
// out of the wasm and its size budget, and no static-assets router has to run in front of
// every request to serve this one file (it cost ~1 ms of CPU per request in workerd).
// The path is relative to where worker-build puts this snippet:
// build/.tmp/snippets/cardapi-<hash>/src/api/openapi.mjs (a wrong path fails the build).
import doc from "../../../../../../openapi.json";

let text;

/** The document as served: compact JSON, made once per isolate. */
export function openapi_text() {
  text ??= JSON.stringify(doc);
  return text;
}

/** The answer, body and all, made here so the document never enters wasm memory. */
export function openapi_response(headers, with_body) {
  return new Response(with_body ? openapi_text() : null, { headers });
}
