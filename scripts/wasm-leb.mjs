// The unsigned LEB128 integer at `at` in a wasm module's bytes, and where the next field
// starts: the one reader of section and name sizes for the build's wasm scripts
// (strip-wasm-names, wasm-order-names, wasm-name, size-top).
export function readU32(buf, at) {
  let value = 0, shift = 0, byte;
  do {
    byte = buf[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, at];
}
