// CPU profile of the worker under load, wasm frames included (V8's sampling profiler over
// the inspector protocol). Prints the functions with the most self time and the call paths
// into the heaviest ones; writes the raw profile (open it in Chrome DevTools > Performance).
//
//   node bench/profile.mjs [ENDPOINT] [REQUESTS]    (after `make build`)
//   ENDPOINT: listCards15 | listCards100 | getCard | listLeads | createCard | patchCard | root
//
// It starts its own `wrangler dev` (fresh state, inspector on a free port), seeds 120 cards
// with every field and 20 leads through the API, warms up, then profiles REQUESTS requests
// (default 2000) at 8 concurrent. The uploaded module has no names, so wasm frames show as
// indices: pipe the output through `make -s wasm-name` (scripts/wasm-name.mjs) to name them.
// `ws` is pinned in package.json for it.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const endpoint = process.argv[2] || "listCards100";
const total = Number(process.argv[3] || 2000);
const ADMIN = "profile-admin";

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const [port, inspector] = [await freePort(), await freePort()];
const state = mkdtempSync(join(tmpdir(), "cardapi-profile-"));
execFileSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", "--persist-to", state], {
  cwd: root, env: { ...process.env, CI: "true" }, stdio: "ignore",
});
const server = spawn(
  "bash",
  ["-c", `exec "${wrangler}" dev --ip 127.0.0.1 --port ${port} --inspector-port ${inspector} ` +
    `--persist-to "${state}" --show-interactive-dev-session=false --var ADMIN_TOKEN:${ADMIN} ` +
    `--var VISITOR_SALT:p --var TOKEN_PEPPER:p --var RATE_LIMIT_PER_MINUTE:100000000 >"${state}/log" 2>&1`],
  { cwd: root, detached: true, stdio: "ignore", env: { ...process.env, CI: "true" } },
);
const stop = () => {
  try { process.kill(-server.pid, "SIGTERM"); } catch {}
};
process.on("exit", stop);
const base = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  try { if ((await fetch(`${base}/`)).ok) break; } catch {}
  if (i > 240) throw new Error(readFileSync(`${state}/log`, "utf8"));
  await new Promise((r) => setTimeout(r, 500));
}

async function call(method, path, body, token = ADMIN) {
  const r = await fetch(base + path, {
    method, body: body && JSON.stringify(body),
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "User-Agent": "Mozilla/5.0 Chrome/120" },
  });
  const text = await r.text();
  if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
const account = (await call("POST", "/admin/v1/accounts", { name: "P", plan: "enterprise" })).data.id;
const token = (await call("POST", `/admin/v1/accounts/${account}/tokens`,
  { name: "p", scopes: ["cards:write", "leads:read", "analytics:read"] })).data.token;
const card = (n) => ({
  first_name: `Load${n}`, last_name: "Test", job_title: "Engineer", company: "Bench Ltd",
  email: "load@example.com", phone: "+49 30 1234567", website: "https://bench.example/x",
  bio: "seeded for the profile", language: "de", design_config: { theme: "dark" },
  social_links: [{ platform: "linkedin", url: "https://linkedin.example/in/x", label: "Me" },
    { platform: "github", url: "https://github.example/x" }],
  show_lead_form: true,
});
let first;
for (let n = 0; n < 120; n++) {
  const c = (await call("POST", "/api/v1/cards", card(n), token)).data;
  first ??= c;
}
for (let n = 0; n < 20; n++) {
  await fetch(`${base}/c/${first.slug}/leads`, {
    method: "POST", body: JSON.stringify({ name: `V${n}`, email: `v${n}@example.com` }),
    headers: { "Content-Type": "application/json", "User-Agent": "Mozilla/5.0 Chrome/120", "CF-Connecting-IP": `198.51.100.${n + 1}` },
  });
}
let created = 0;
const requests = {
  root: () => fetch(`${base}/`),
  listCards15: () => fetch(`${base}/api/v1/cards`, { headers: { Authorization: `Bearer ${token}` } }),
  listCards100: () => fetch(`${base}/api/v1/cards?per_page=100`, { headers: { Authorization: `Bearer ${token}` } }),
  getCard: () => fetch(`${base}/api/v1/cards/${first.id}`, { headers: { Authorization: `Bearer ${token}` } }),
  listLeads: () => fetch(`${base}/api/v1/leads`, { headers: { Authorization: `Bearer ${token}` } }),
  createCard: () => fetch(`${base}/api/v1/cards`, {
    method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(card(`c${created++}`)),
  }),
  patchCard: () => fetch(`${base}/api/v1/cards/${first.id}`, {
    method: "PATCH", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ bio: `patched ${created++}` }),
  }),
}[endpoint];
if (!requests) throw new Error(`unknown endpoint ${endpoint}`);
async function load(n) {
  let done = 0;
  const worker = async () => {
    while (done < n) {
      done++;
      const r = await requests();
      await r.arrayBuffer();
      if (r.status >= 400) throw new Error(`${endpoint}: ${r.status}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}
await load(300);

// The worker's target on wrangler's inspector proxy.
const targets = await (await fetch(`http://127.0.0.1:${inspector}/json`)).json();
const target = targets.find((t) => t.webSocketDebuggerUrl) ?? targets[0];
const ws = new WebSocket(target.webSocketDebuggerUrl);
await new Promise((r, e) => { ws.once("open", r); ws.once("error", e); });
let id = 0;
const pending = new Map();
ws.on("message", (m) => {
  const msg = JSON.parse(m);
  if (msg.id && pending.has(msg.id)) { pending.get(msg.id)(msg); pending.delete(msg.id); }
});
const send = (method, params = {}) => new Promise((r) => {
  const n = ++id;
  pending.set(n, r);
  ws.send(JSON.stringify({ id: n, method, params }));
});
await send("Profiler.enable");
await send("Profiler.setSamplingInterval", { interval: 50 });
await send("Profiler.start");
const started = Date.now();
await load(total);
const took = Date.now() - started;
const { result } = await send("Profiler.stop");
// The bundle as the runtime ran it (wrangler's middleware included), so that the profile's
// line:column of anonymous frames can be looked up.
await send("Debugger.enable");
const scriptId = result.profile.nodes.find((n) => n.callFrame.url.endsWith("index.js"))?.callFrame.scriptId;
const source = scriptId && (await send("Debugger.getScriptSource", { scriptId })).result?.scriptSource;
ws.close();
stop();
const profile = result.profile;
mkdirSync(join(root, "target"), { recursive: true });
const out = join(root, "target", `profile-${endpoint}.cpuprofile`);
writeFileSync(out, JSON.stringify(profile));
if (source) writeFileSync(out.replace(/\.cpuprofile$/, ".index.js"), source);
rmSync(state, { recursive: true, force: true });

// Self time per function, from the samples and their time deltas.
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
const inclusive = new Map();
let sampled = 0;
profile.samples.forEach((nodeId, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  const node = byId.get(nodeId);
  const name = label(node.callFrame);
  if (name !== "(idle)" && name !== "(program)" && name !== "(garbage collector)") sampled += dt;
  self.set(name, (self.get(name) ?? 0) + dt);
  const seen = new Set();
  for (let at = nodeId; at !== undefined; at = parent.get(at)) {
    const n = label(byId.get(at).callFrame);
    if (!seen.has(n)) { inclusive.set(n, (inclusive.get(n) ?? 0) + dt); seen.add(n); }
  }
});
function label(f) {
  const name = f.functionName || "(anonymous)";
  const where = f.url ? f.url.split("/").pop() : "";
  return where && !name.startsWith("(") ? `${name} [${where}]` : name;
}
const perReq = (us) => (us / 1000 / total).toFixed(3);
console.log(`${endpoint}: ${total} requests in ${took} ms; busy samples ${(sampled / 1000).toFixed(0)} ms = ${perReq(sampled)} ms/request`);
console.log("\nself time (ms/request), top 40:");
[...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40)
  .forEach(([n, t]) => console.log(`  ${perReq(t).padStart(7)}  ${n.slice(0, 150)}`));
console.log("\ninclusive time (ms/request), top 40:");
[...inclusive.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40)
  .forEach(([n, t]) => console.log(`  ${perReq(t).padStart(7)}  ${n.slice(0, 150)}`));
console.log(`\nraw profile: ${out}`);
process.exit(0);
