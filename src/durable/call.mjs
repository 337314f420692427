// One call to a Durable Object, start to finish in JavaScript: the object's address, the
// request, the answer's status and text. Made from wasm it was a dozen crossings and two
// awaits in wasm-bindgen's futures; the token gate makes one on every API request.

/**
 * `[status, text]` of a `GET` of `url` (`body` null or undefined) or a `POST` of `body` to
 * the object `name` of `env[binding]`. With a `jurisdiction` ("eu", "fedramp") the object
 * is addressed, and created, in that jurisdiction (`DurableObjectNamespace.jurisdiction`,
 * which workers-rs 0.8.7 does not expose); the same name there is another object. Local
 * workerd throws "Jurisdiction restrictions are not implemented in workerd.".
 */
export async function object_call(env, binding, jurisdiction, name, url, body) {
  const ns = jurisdiction == null ? env[binding] : env[binding].jurisdiction(jurisdiction);
  const stub = ns.get(ns.idFromName(name));
  const resp = await (body == null ? stub.fetch(url) : stub.fetch(url, { method: "POST", body }));
  return [resp.status, await resp.text()];
}
