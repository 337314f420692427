// The size and startup cost of the upload, as Cloudflare would see them, against their
// budgets (README, "The size budget"):
// - the total (JS and wasm) from `wrangler deploy --dry-run`, gzipped: at most
//   UPLOAD_BUDGET_KIB (640), and its change against the last recorded figure
//   (bench/upload.json), so every change's growth is seen;
// - the startup CPU from `wrangler check startup`'s profile of that bundle, the least of
//   3 runs (a busy machine only ever adds time; up to 9 when over): at most
//   STARTUP_BUDGET_MS (15);
// - crates that must not come back into the module (the `url` crate and its IDNA/ICU
//   tables, ~66 KB gzip): looked for by name in build/index_bg.named.wasm, the module
//   with its names (the upload has none).
// Exits 1 when one is broken, so `make build` and CI fail.
// Usage: node scripts/upload-report.mjs            (after build/index.js exists)
//        node scripts/upload-report.mjs --record   (also writes bench/upload.json)
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";

const BUDGET_KIB = Number(process.env.UPLOAD_BUDGET_KIB || 640);
const STARTUP_BUDGET_MS = Number(process.env.STARTUP_BUDGET_MS || 15);
// A change that adds more than this names what bought the bytes in its changelog line.
const EXPLAIN_KIB = 4;
const RECORD = join(process.cwd(), "bench", "upload.json");
// Function-name prefixes of crates kept out of the worker, and why.
const BANNED = [
  ["url::", "the url crate (WHATWG URL parsing; domain::weburl does what the worker needs)"],
  ["idna::", "IDNA (comes with the url crate; ~66 KB gzip of Unicode tables)"],
  ["icu_normalizer::", "ICU normalisation tables (js::normalize uses the runtime's)"],
  ["icu_properties::", "ICU property tables"],
  ["unicode_normalization::", "Unicode normalisation tables (js::normalize uses the runtime's)"],
];

const wrangler = join(process.cwd(), "node_modules/.bin/wrangler");
const dir = mkdtempSync(join(tmpdir(), "cardapi-upload-"));
const bundle = join(dir, "worker.bundle");
const profile = join(dir, "startup.cpuprofile");

function run(args) {
  try {
    return execFileSync(wrangler, args, {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
    });
  } catch (err) {
    process.stderr.write(`${err.stdout || ""}${err.stderr || ""}`);
    throw new Error(`wrangler ${args[0]} ${args[1]} failed`);
  }
}

// CPU time of one `wrangler check startup`: the profile's sampled intervals except idle.
function startupMs() {
  run(["check", "startup", "--worker", bundle, "--outfile", profile]);
  const p = JSON.parse(readFileSync(profile, "utf8"));
  const idle = new Set(p.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  let us = 0;
  p.samples.forEach((node, i) => { if (!idle.has(node)) us += p.timeDeltas[i]; });
  // A profile without one busy sample measured nothing (seen on a loaded machine: 0.0 ms
  // was recorded); it must not become the least of the runs.
  return us > 0 ? us / 1000 : Infinity;
}

const failures = [];
try {
  // The top-level environment (what `make dev` and the tests serve); its build command
  // is `make -s build/index.js`, a no-op here, so this does not recurse into the report.
  const out = run(["deploy", "--dry-run", "--env", "", "--outfile", bundle]);
  const m = out.match(/Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/);
  if (!m) throw new Error(`no "Total Upload" line in wrangler's dry run:\n${out}`);
  const [raw, gzip] = [Number(m[1]), Number(m[2])];
  // A busy machine only ever adds time: over the budget, measure again (up to 9 runs).
  let startup = Infinity;
  for (let set = 0; set < 3 && !(startup <= STARTUP_BUDGET_MS && set > 0); set++) {
    startup = Math.min(startup, startupMs(), startupMs(), startupMs());
  }

  const recorded = existsSync(RECORD) ? JSON.parse(readFileSync(RECORD, "utf8")) : null;
  const change = recorded ? gzip - recorded.gzip_kib : null;
  const against = recorded
    ? `${change >= 0 ? "+" : ""}${change.toFixed(1)} KiB against the recorded ${recorded.gzip_kib.toFixed(1)} KiB (${recorded.what})`
    : "no recorded figure yet (bench/upload.json)";
  console.log(`==> upload: ${gzip.toFixed(1)} KiB gzip of ${BUDGET_KIB} KiB budget (${raw.toFixed(1)} KiB raw), ${against}`);
  console.log(`==> startup CPU: ${startup.toFixed(1)} ms, least of 3 runs (local profile; budget ${STARTUP_BUDGET_MS} ms)`);
  if (change !== null && change > EXPLAIN_KIB) {
    console.log(`==> more than ${EXPLAIN_KIB} KiB of growth: say what bought the bytes in the change's README changelog line, then record the figure (make record-size)`);
  }
  if (gzip > BUDGET_KIB) failures.push(`the upload is ${(gzip - BUDGET_KIB).toFixed(1)} KiB gzip over its budget`);
  if (startup > STARTUP_BUDGET_MS) {
    // Other work on the machine stretches every sample; a loaded machine's figure says
    // nothing about the worker (CI's runner is quiet, and fails it there).
    const load = loadavg()[0] / cpus().length;
    const over = `the startup CPU is ${(startup - STARTUP_BUDGET_MS).toFixed(1)} ms over its budget`;
    if (load < 1) failures.push(over);
    else console.log(`==> WARNING: ${over}, on a machine loaded ${load.toFixed(1)}x its cores: measure again when it is quiet`);
  }

  const named = join(process.cwd(), "build", "index_bg.named.wasm");
  if (existsSync(named)) {
    const module = readFileSync(named).toString("latin1");
    // A crate's own path, not one that ends in its name (`domain::weburl::`) nor a
    // function of that name (`Request::url::`).
    const crate = (prefix) => new RegExp(`(?<![A-Za-z0-9_:])${prefix.replace(/[:]/g, "\\:")}`);
    // The check checks itself, on names as the name section holds them (a length byte,
    // then the name; generic impls open with `<`).
    const selfTest = [["\x0durl::parser::Parser::parse", true], ["<idna::uts46::Uts46 as", true],
      ["cardapi::durable::rate_limiter::client::Call::url::h2e", false], ["cardapi::domain::weburl::parse_http", false]];
    for (const [name, hit] of selfTest) {
      if (crate(name.includes("idna") ? "idna::" : "url::").test(name) !== hit) failures.push(`the crate check misreads ${JSON.stringify(name)}`);
    }
    for (const [prefix, what] of BANNED) {
      if (crate(prefix).test(module)) failures.push(`the module links ${what}: a function named ${prefix}… is in it`);
    }
  } else {
    failures.push("build/index_bg.named.wasm is missing: the crate check cannot run");
  }

  if (process.argv.includes("--record")) {
    const what = process.env.WHAT || execFileSync("git", ["log", "-1", "--format=%h %s"], { encoding: "utf8" }).trim().slice(0, 72);
    writeFileSync(RECORD, `${JSON.stringify({ gzip_kib: gzip, raw_kib: raw, startup_ms: Number(startup.toFixed(1)), what }, null, 2)}\n`);
    console.log(`==> recorded in bench/upload.json`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
for (const f of failures) console.error(`==> FAIL: ${f}`);
if (failures.length) process.exitCode = 1;
