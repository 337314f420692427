// Trims the function names that worker-build keeps in the wasm for readable stack traces:
// keeps only the names of this crate's functions, without their
// `::h<16 hex>` symbol hash, `[<16 hex>]` crate disambiguators and the module paths of
// types. Random hex does not compress; all names were ~45 KB of the gzipped module, these
// are ~6 KB. Code and every other section are copied byte for byte.
// Usage: node scripts/short-wasm-names.mjs FILE.wasm
import { readFileSync, writeFileSync } from "node:fs";

const file = process.argv[2];
const wasm = readFileSync(file);

function readU32(buf, at) {
  let value = 0, shift = 0, byte;
  do {
    byte = buf[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [value, at];
}

function u32(n) {
  const out = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return Buffer.from(out);
}

const withLength = (bytes) => Buffer.concat([u32(bytes.length), bytes]);

// Also drops the module path in front of a type (`core::panic::unwind_safe::AssertUnwindSafe`
// -> `AssertUnwindSafe`): the long generic trait-impl names repeat such paths many times.
// Paths to functions (`cardapi::router::route`) stay whole; nested async closures read
// as one `::{closure}`.
function shortName(name) {
  return name
    .replace(/::h[0-9a-f]{16}$/, "")
    .replace(/\[[0-9a-f]{16}\]/g, "")
    .replace(/\b(?:[a-z_][a-z0-9_]*::)+(?=[A-Z])/g, "")
    .replace(/(?:::\{\{closure\}\})+/g, "::{closure}");
}

// Names are kept for the functions of this crate, whose frames a stack trace needs to be
// read; functions of std, serde, workers-rs and the other dependencies lose theirs (a frame
// then shows its index; the frames of ours around it say where it was called). Those were
// ~22 KB of the gzipped module, workers-rs's alone ~1.8 KB. Drop glue
// (`core::ptr::drop_in_place<cardapi::…>`) is left out too: it was over half of the names
// kept (~3 KB gzipped) and never the frame that explains a trace.
const KEEP = /cardapi/;
const keep = (name) => KEEP.test(name) && !name.startsWith("core::ptr::drop_in_place");

// The function-names subsection: a vector of (index, name), ascending by index.
function functionNames(payload) {
  let [count, at] = readU32(payload, 0);
  const kept = [];
  for (let i = 0; i < count; i++) {
    let index, length;
    [index, at] = readU32(payload, at);
    [length, at] = readU32(payload, at);
    const name = payload.subarray(at, at + length).toString("utf8");
    at += length;
    if (keep(name)) kept.push(Buffer.concat([u32(index), withLength(Buffer.from(shortName(name), "utf8"))]));
  }
  return Buffer.concat([u32(kept.length), ...kept]);
}

function nameSection(body, start) {
  const parts = [body.subarray(0, start)];
  let at = start;
  while (at < body.length) {
    const id = body[at];
    let size;
    [size, at] = readU32(body, at + 1);
    const payload = body.subarray(at, at + size);
    at += size;
    // Only the module's and the functions' names serve stack traces; the other
    // subsections (types, globals, data segments: ~22 KB raw) go.
    if (id === 0) parts.push(Buffer.from([id]), withLength(payload));
    if (id === 1) parts.push(Buffer.from([id]), withLength(functionNames(payload)));
  }
  return Buffer.concat(parts);
}

if (wasm.readUInt32LE(0) !== 0x6d736100) throw new Error(`${file} is not a wasm module`);
const parts = [wasm.subarray(0, 8)];
let at = 8;
while (at < wasm.length) {
  const id = wasm[at];
  const [size, start] = readU32(wasm, at + 1);
  let body = wasm.subarray(start, start + size);
  if (id === 0) {
    const [nameLength, nameStart] = readU32(body, 0);
    const name = body.subarray(nameStart, nameStart + nameLength).toString("utf8");
    if (name === "name") body = nameSection(body, nameStart + nameLength);
  }
  parts.push(Buffer.from([id]), withLength(body));
  at = start + size;
}
writeFileSync(file, Buffer.concat(parts));
