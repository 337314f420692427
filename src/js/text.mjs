// wasm-bindgen copies a JavaScript string into wasm memory with a loop over its characters
// in JavaScript (~3 ns a character: ~0.4 ms for a page of 100 cards, more than the rest
// of what the worker itself does for it). The runtime's encoder writes it in one native
// call. Neither function throws: an exception would unwind through wasm frames.

const encoder = new TextEncoder();

/** The length of `value` in UTF-16 units if it is a string. */
export function text_length(value) {
  return typeof value === "string" ? value.length : undefined;
}

/** Writes `text` as UTF-8 into `into` (a view of wasm memory); the bytes written. */
export function encode_into(text, into) {
  try {
    return encoder.encodeInto(text, into).written;
  } catch {
    return 0;
  }
}
