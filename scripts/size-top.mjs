// Where the bytes of the worker's module are: its largest functions by code size, its data,
// and the code summed by module path (`cardapi::area`, `serde_json`, ...), read from the
// module with its names (build/index_bg.named.wasm; the upload has none). twiggy 0.7 (the last
// release) refuses this module ("Invalid external kind": the reference-types imports
// wasm-bindgen writes), so this reads the two sections itself.
// Usage: node scripts/size-top.mjs [FILE.wasm] [N]
import { readFileSync } from "node:fs";
import { readU32 as u32 } from "./wasm-leb.mjs";

const file = process.argv[2] || "build/index_bg.named.wasm";
const top = Number(process.argv[3] || 20);
const wasm = readFileSync(file);

let imported = 0;
const bodies = [];
const names = new Map();
let data = 0;
for (let at = 8; at < wasm.length;) {
  const id = wasm[at];
  let size;
  [size, at] = u32(wasm, at + 1);
  const end = at + size;
  if (id === 2) {
    // Imports: functions (kind 0) take the first indices.
    let [n, p] = u32(wasm, at);
    for (let i = 0; i < n; i++) {
      let len;
      [len, p] = u32(wasm, p); p += len;
      [len, p] = u32(wasm, p); p += len;
      const kind = wasm[p++];
      if (kind === 0) { imported++; [, p] = u32(wasm, p); }
      else if (kind === 1) { p++; const flags = wasm[p++]; [, p] = u32(wasm, p); if (flags & 1) [, p] = u32(wasm, p); }
      else if (kind === 2) { const flags = wasm[p++]; [, p] = u32(wasm, p); if (flags & 1) [, p] = u32(wasm, p); }
      else if (kind === 3) { p += 2; }
      else if (kind === 4) { p++; [, p] = u32(wasm, p); }
    }
  } else if (id === 10) {
    let [n, p] = u32(wasm, at);
    for (let i = 0; i < n; i++) {
      let len;
      [len, p] = u32(wasm, p);
      bodies.push(len);
      p += len;
    }
  } else if (id === 11) {
    data = size;
  } else if (id === 0) {
    let [len, p] = u32(wasm, at);
    const name = wasm.toString("utf8", p, p + len);
    p += len;
    if (name === "name") {
      while (p < end) {
        const sub = wasm[p];
        let subSize;
        [subSize, p] = u32(wasm, p + 1);
        if (sub === 1) {
          let [n, q] = u32(wasm, p);
          for (let i = 0; i < n; i++) {
            let idx, l;
            [idx, q] = u32(wasm, q);
            [l, q] = u32(wasm, q);
            names.set(idx, wasm.toString("utf8", q, q + l));
            q += l;
          }
        }
        p += subSize;
      }
    }
  }
  at = end;
}

const code = bodies.reduce((a, b) => a + b, 0);
const items = bodies.map((size, i) => ({ size, name: names.get(imported + i) || `func[${imported + i}]` }));
items.sort((a, b) => b.size - a.size);
const pct = (n) => `${((100 * n) / wasm.length).toFixed(1)}%`;
console.log(`${file}: ${wasm.length} bytes; code ${code} (${pct(code)}), data ${data} (${pct(data)}), ${bodies.length} functions`);
console.log(`\nThe ${top} largest functions:`);
for (const { size, name } of items.slice(0, top)) {
  console.log(`${String(size).padStart(8)}  ${pct(size).padStart(6)}  ${name.replace(/::h[0-9a-f]{16}$/, "").slice(0, 150)}`);
}
// A function's module: its path without generics, to three segments of ours, one of others'.
const group = (name) => {
  const plain = name.replace(/^<+/, "").replace(/<.*$/, "").replace(/ as .*$/, "");
  const parts = plain.split("::");
  return parts[0] === "cardapi" ? parts.slice(0, 3).join("::") : parts[0];
};
const groups = new Map();
for (const { size, name } of items) groups.set(group(name), (groups.get(group(name)) || 0) + size);
console.log(`\nCode by module (the ${top} largest):`);
for (const [g, size] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${String(size).padStart(8)}  ${pct(size).padStart(6)}  ${g}`);
}
