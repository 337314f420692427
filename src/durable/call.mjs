// One call to a Durable Object, start to finish in JavaScript: the object's address, the
// request, the answer's status and text. Made from wasm it was a dozen crossings and two
// awaits in wasm-bindgen's futures; the token gate makes one on every API request.

/** `[status, text]` of a `GET` of `url` (`body` null or undefined) or a `POST` of `body` to it. */
export async function object_call(env, binding, name, url, body) {
  const ns = env[binding];
  const stub = ns.get(ns.idFromName(name));
  const resp = await (body == null ? stub.fetch(url) : stub.fetch(url, { method: "POST", body }));
  return [resp.status, await resp.text()];
}
