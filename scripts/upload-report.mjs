// The size budget and startup cost of the upload, as Cloudflare would see them: the total
// (JS and wasm) from `wrangler deploy --dry-run`, gzipped, against UPLOAD_BUDGET_KIB, and
// the startup CPU from `wrangler check startup`'s profile of that same bundle. Exits 1 over
// budget so CI catches it. The startup figure is measured on this machine (a local
// workerd, noisy on a busy one); it shows drift, it is not Cloudflare's number.
// Usage: node scripts/upload-report.mjs   (after build/index.js exists)
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const BUDGET_KIB = Number(process.env.UPLOAD_BUDGET_KIB || 512);
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

try {
  // The top-level environment (what `make dev` and the tests serve); its build command
  // is `make -s build/index.js`, a no-op here, so this does not recurse into the report.
  const out = run(["deploy", "--dry-run", "--env", "", "--outfile", bundle]);
  const m = out.match(/Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/);
  if (!m) throw new Error(`no "Total Upload" line in wrangler's dry run:\n${out}`);
  const [raw, gzip] = [Number(m[1]), Number(m[2])];

  run(["check", "startup", "--worker", bundle, "--outfile", profile]);
  // CPU time: the profile's sampled intervals except the idle ones.
  const p = JSON.parse(readFileSync(profile, "utf8"));
  const idle = new Set(p.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  let us = 0;
  p.samples.forEach((node, i) => { if (!idle.has(node)) us += p.timeDeltas[i]; });

  console.log(
    `==> upload: ${gzip.toFixed(1)} KiB gzip of ${BUDGET_KIB} KiB budget (${raw.toFixed(1)} KiB raw);` +
      ` startup CPU: ${(us / 1000).toFixed(0)} ms (local profile)`,
  );
  if (gzip > BUDGET_KIB) {
    console.error(`==> FAIL: the upload is ${(gzip - BUDGET_KIB).toFixed(1)} KiB gzip over its budget`);
    process.exitCode = 1;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
