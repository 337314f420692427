// Sets the order wasm-opt's `--reorder-functions-by-name` gives the functions: by crate,
// then by name. Functions of one crate (serde_json's parsers, one type's trait impls) are
// alike code, and gzip finds more of its repeats when they are within its 32 KiB window
// of each other: ~1.3 KiB less than plain name order (which scatters a crate's `<T as
// Trait>` impls among the other `<` names), ~7.6 KiB less than wasm-bindgen's order.
//   node scripts/wasm-order-names.mjs key FILE.wasm     each function name -> `crate | name`
//   node scripts/wasm-order-names.mjs unkey FILE.wasm   back to `name`
// Only the function-names subsection changes; every other byte is copied.
import { readFileSync, writeFileSync } from "node:fs";
import { readU32 } from "./wasm-leb.mjs";

const [mode, file] = process.argv.slice(2);
if (!["key", "unkey"].includes(mode) || !file) {
  throw new Error("usage: node scripts/wasm-order-names.mjs key|unkey FILE.wasm");
}
const wasm = readFileSync(file);
if (wasm.readUInt32LE(0) !== 0x6d736100) throw new Error(`${file} is not a wasm module`);

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
const SEP = " | ";
// The crate: the name's first path segment, past the `<`, `&` or `*mut` of a trait impl
// (`<serde_json::de::… as …>::…` is serde_json's).
const crate = (name) => name.replace(/^[<&*\s]*(mut\s+)?/, "").split("::")[0];
const rename = mode === "key"
  ? (name) => `${crate(name)}${SEP}${name}`
  // Functions wasm-opt made itself (`byn$mgfn-shared$…`) have no key.
  : (name) => name.slice(name.indexOf(SEP) + 1 && name.indexOf(SEP) + SEP.length);

function functionNames(payload) {
  let [count, at] = readU32(payload, 0);
  const out = [u32(count)];
  for (let i = 0; i < count; i++) {
    let index, length;
    [index, at] = readU32(payload, at);
    [length, at] = readU32(payload, at);
    const name = payload.subarray(at, at + length).toString("utf8");
    at += length;
    out.push(u32(index), withLength(Buffer.from(rename(name), "utf8")));
  }
  return Buffer.concat(out);
}

let renamed = false;
function nameSection(body, start) {
  const parts = [body.subarray(0, start)];
  let at = start;
  while (at < body.length) {
    const id = body[at];
    let size;
    [size, at] = readU32(body, at + 1);
    const payload = body.subarray(at, at + size);
    at += size;
    if (id === 1) renamed = true;
    parts.push(Buffer.from([id]), withLength(id === 1 ? functionNames(payload) : payload));
  }
  return Buffer.concat(parts);
}

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
// Without names wasm-opt would order by index: no error, just the bytes lost.
if (!renamed) throw new Error(`${file} has no function names to order by`);
writeFileSync(file, Buffer.concat(parts));
