// WebCrypto's signature check for the account area's passkeys (domain::webauthn): the key
// and its algorithm arrive as JSON text, made by the domain; one call, one promise.
export async function verify_signature_js(jwk, algorithm, signature, message) {
  const alg = JSON.parse(algorithm);
  const key = await crypto.subtle.importKey("jwk", JSON.parse(jwk), alg, false, ["verify"]);
  return crypto.subtle.verify(alg, key, signature, message);
}

// Wallet signatures (wallet.md): WebCrypto reads the private key from its secret itself
// (`env[name]`), so the key never enters wasm memory; it is imported once per isolate as
// a non-extractable key. With the certificate's public key (`spki`), a probe signature
// checks that the two belong together. A refused key stays refused: its rejected promise
// is kept, and every call answers the same error until a new deploy.
const keys = new Map();

export async function wallet_sign_js(env, name, algorithm, spki, data) {
  const alg = JSON.parse(algorithm);
  let key = keys.get(name);
  if (!key) {
    key = wallet_key(env[name], alg, spki);
    keys.set(name, key);
  }
  return new Uint8Array(await crypto.subtle.sign(alg, await key, data));
}

async function wallet_key(pem, alg, spki) {
  // Line breaks may be real or `\n` (a value copied out of a JSON key file).
  const m = /-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END \1-----/.exec(String(pem ?? "").replace(/\\n/g, "\n"));
  if (!m) throw new Error("it holds no PEM block");
  if (m[1] !== "PRIVATE KEY") throw new Error(`it holds a ${m[1]} block, not PRIVATE KEY (PKCS#8)`);
  let der;
  try {
    der = Uint8Array.from(atob(m[2].replace(/\s/g, "")), (c) => c.charCodeAt(0));
  } catch {
    throw new Error("its PRIVATE KEY block is not base64");
  }
  let key;
  try {
    key = await crypto.subtle.importKey("pkcs8", der, alg, false, ["sign"]);
  } catch (e) {
    throw new Error(`WebCrypto does not import it as an ${alg.name} key (${e.message})`);
  }
  if (spki.length) {
    const probe = new Uint8Array(32);
    const pub = await crypto.subtle.importKey("spki", spki, alg, false, ["verify"]);
    if (!(await crypto.subtle.verify(alg, pub, await crypto.subtle.sign(alg, key, probe), probe))) {
      throw new Error("it is not the key of the certificate");
    }
  }
  return key;
}

// SHA-1 of a pass's files (Apple's manifest asks for it): the runtime's, so no SHA-1 code
// in the wasm.
export async function sha1_js(data) {
  return new Uint8Array(await crypto.subtle.digest("SHA-1", data));
}
