// Writes the module without its custom sections: the names (`name`, ~8.6 KiB of the gzipped
// upload even trimmed to this crate's functions) and the toolchain notes (`producers`,
// `target_features`); workerd reads none of them. Every other section is copied byte for
// byte, so a function's index in OUT is its index in IN: a stack trace of the uploaded
// module (`wasm-function[N]`) is read against IN with scripts/wasm-name.mjs (`make wasm-name`).
// Usage: node scripts/strip-wasm-names.mjs IN.wasm OUT.wasm
import { readFileSync, writeFileSync } from "node:fs";
import { readU32 } from "./wasm-leb.mjs";

const [input, output] = process.argv.slice(2);
if (!input || !output) throw new Error("usage: node scripts/strip-wasm-names.mjs IN.wasm OUT.wasm");
const wasm = readFileSync(input);
if (wasm.readUInt32LE(0) !== 0x6d736100) throw new Error(`${input} is not a wasm module`);

const DROP = new Set(["name", "producers", "target_features"]);
const parts = [wasm.subarray(0, 8)];
let at = 8;
while (at < wasm.length) {
  const id = wasm[at];
  const [size, start] = readU32(wasm, at + 1);
  let keep = true;
  if (id === 0) {
    const [nameLength, nameStart] = readU32(wasm, start);
    keep = !DROP.has(wasm.subarray(nameStart, nameStart + nameLength).toString("utf8"));
  }
  if (keep) parts.push(wasm.subarray(at, start + size));
  at = start + size;
}
writeFileSync(output, Buffer.concat(parts));
