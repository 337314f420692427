// WebCrypto's signature check for the account area's passkeys (domain::webauthn): the key
// and its algorithm arrive as JSON text, made by the domain; one call, one promise.
export async function verify_signature_js(jwk, algorithm, signature, message) {
  const alg = JSON.parse(algorithm);
  const key = await crypto.subtle.importKey("jwk", JSON.parse(jwk), alg, false, ["verify"]);
  return crypto.subtle.verify(alg, key, signature, message);
}
