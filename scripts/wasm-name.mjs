// Names the functions of a stack trace of the uploaded module, which carries no names
// (scripts/strip-wasm-names.mjs): reads them from build/index_bg.named.wasm, the same
// build's module with every name and the same function indices. A build is reproducible
// (same commit, same pinned toolchain: same bytes), so a deployed commit's names come
// from `git checkout <commit> && make build`.
// Usage: node scripts/wasm-name.mjs 1234 5678        (prints each index's name)
//        node scripts/wasm-name.mjs < trace.txt      (names each `wasm-function[N]`, `$funcN`)
// `make wasm-name N=1234` or `make wasm-name < trace.txt` do the same.
import { readFileSync } from "node:fs";
import { readU32 } from "./wasm-leb.mjs";

const file = process.env.WASM_NAMED || "build/index_bg.named.wasm";
const wasm = readFileSync(file);
if (wasm.readUInt32LE(0) !== 0x6d736100) throw new Error(`${file} is not a wasm module`);

// The function-names subsection (id 1) of the `name` custom section: (index, name) pairs.
const names = new Map();
let at = 8;
while (at < wasm.length) {
  const id = wasm[at];
  const [size, start] = readU32(wasm, at + 1);
  const end = start + size;
  if (id === 0) {
    let [length, p] = readU32(wasm, start);
    if (wasm.subarray(p, p + length).toString("utf8") === "name") {
      p += length;
      while (p < end) {
        const sub = wasm[p];
        const [subSize, subStart] = readU32(wasm, p + 1);
        if (sub === 1) {
          let [count, q] = readU32(wasm, subStart);
          for (let i = 0; i < count; i++) {
            let index, nameLength;
            [index, q] = readU32(wasm, q);
            [nameLength, q] = readU32(wasm, q);
            names.set(index, wasm.subarray(q, q + nameLength).toString("utf8"));
            q += nameLength;
          }
        }
        p = subStart + subSize;
      }
    }
  }
  at = end;
}
if (!names.size) throw new Error(`${file} has no function names`);

const nameOf = (index) => names.get(Number(index)) ?? `(no name for function ${index})`;
const indices = process.argv.slice(2);
if (indices.length) {
  for (const index of indices) console.log(`${index}\t${nameOf(index)}`);
} else {
  const trace = readFileSync(0, "utf8");
  // `wasm-function[N]` in V8's stack traces, `$funcN` in its profiles.
  const frame = /wasm-function\[(\d+)\]|\$func(\d+)\b/g;
  process.stdout.write(trace.replace(frame, (call, a, b) => `${call} ${nameOf(a ?? b)}`));
}
