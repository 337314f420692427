// What the browser checks share: a worker of their own in local workerd (fresh state, free
// ports), Debian's Chromium through playwright-core, and the per-page check (no request
// beyond this machine, no horizontal scrolling on a phone, a screenshot, axe-core).

import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const shots = join(root, "target", "screenshots");
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const axeSource = readFileSync(join(root, "node_modules", "axe-core", "axe.min.js"), "utf8");
export const WIDTHS = [390, 1280];

export const report = { failures: 0, skipped: [] };
export const fail = (what) => {
  report.failures += 1;
  console.log(`  FAIL ${what}`);
};
export const ok = (what) => console.log(`  ok   ${what}`);
// A step that cannot run yet (a page not on main), said plainly and counted at the end.
export const skip = (what) => {
  report.skipped.push(what);
  console.log(`  SKIP ${what}`);
};

// A free port below Linux's ephemeral range (32768-60999): one picked there can become the
// source port of an outgoing connection before wrangler binds it.
export function freePort() {
  return new Promise((resolve) => {
    const port = 20000 + Math.floor(Math.random() * 12000);
    const s = createServer();
    s.once("error", () => resolve(freePort()));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(port)));
  });
}

// A small HTTP server on 127.0.0.1 (card images, a webhook's receiver): `handler(req, res,
// body)` answers each request with its body read; `url` is its origin.
export async function serve(handler) {
  const port = await freePort();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => handler(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise((r) => server.listen(port, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

// The built worker under `wrangler dev` on `host` with fresh, migrated state and `vars`.
// It listens on 127.0.0.1; `host: "localhost"` is how pages that use passkeys must be
// opened (an IP address is no relying party id), and what `base` then names.
// `logName` is where its log is kept (target/) when a check failed.
export async function startWorker({ host = "127.0.0.1", vars = {}, logName }) {
  const ports = new Set();
  while (ports.size < 2) ports.add(await freePort());
  const [port, inspector] = [...ports];
  const state = mkdtempSync(join(tmpdir(), "cardapi-browser-"));
  execFileSync(join(root, "scripts/migrate-local.sh"), ["--persist-to", state], {
    cwd: root, env: { ...process.env, CI: "true" }, stdio: "ignore",
  });
  const log = join(state, "wrangler.log");
  const flags = Object.entries(vars).map(([k, v]) => `--var ${k}:${v}`).join(" ");
  const server = spawn(
    "bash",
    ["-c", `exec "${wrangler}" dev --ip 127.0.0.1 --port ${port} --inspector-port ${inspector} ` +
      `--persist-to "${state}" --show-interactive-dev-session=false ${flags} >"${log}" 2>&1`],
    { cwd: root, detached: true, stdio: "ignore", env: { ...process.env, CI: "true" } },
  );
  const base = `http://${host}:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/`)).ok) break;
    } catch {}
    if (i > 240) {
      try { process.kill(-server.pid, "SIGTERM"); } catch {}
      throw new Error(`the worker did not start:\n${readFileSync(log, "utf8")}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const stop = () => {
    try { process.kill(-server.pid, "SIGTERM"); } catch {}
    if (report.failures && existsSync(log)) {
      mkdirSync(join(root, "target"), { recursive: true });
      writeFileSync(join(root, "target", logName), readFileSync(log));
    }
    rmSync(state, { recursive: true, force: true });
  };
  return { base, port, stop };
}

// A JSON call that must succeed; its parsed body.
export async function api(base, method, path, token, body) {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body && JSON.stringify(body),
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return JSON.parse(text);
}

export function launch() {
  return chromium.launch({
    executablePath,
    headless: true,
    // A closed network and a root user in CI: no sandbox, no background traffic.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--disable-default-apps", "--mute-audio", "--hide-scrollbars"],
  });
}

// Requests of `page` that leave this machine, collected from now on.
export function watchExternal(page, hosts = ["127.0.0.1", "localhost"]) {
  const external = [];
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (!hosts.includes(u.hostname) && u.protocol !== "data:") external.push(r.url());
  });
  return external;
}

// The page as loaded: not wider than a phone (at 390 px), a full-page screenshot as
// `${name}.png`, and no axe-core violation. axe is injected as a script, which pages'
// CSPs rightly refuse: the page's context must be made with `bypassCSP: true`.
export async function checkPage(page, name, width) {
  if (width <= 390) {
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    if (overflow) fail(`${name}: wider than the phone screen`);
  }
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join("; ")}`);
  });
  if (violations.length) fail(`${name}: axe violations:\n      ${violations.join("\n      ")}`);
  else ok(`${name}: screenshot, axe 0 violations`);
}

// A virtual authenticator for `page` (the DevTools protocol's WebAuthn domain): a platform
// passkey store that verifies its user and answers every ceremony of this tab by itself.
// Its id, to remove it (`cdp.send("WebAuthn.removeVirtualAuthenticator", ...)`).
export async function authenticator(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2", transport: "internal", hasResidentKey: true,
      hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true,
    },
  });
  return { cdp, id: authenticatorId };
}

// The wall-clock time since `start` (ms), as `12.3 s`.
export const seconds = (start) => `${((Date.now() - start) / 1000).toFixed(1)} s`;

// axe-core on `page` as it is now (a dialog opened, a form's answer), under the page's own
// CSP: evaluated through the DevTools protocol, which a CSP does not govern. A screenshot
// as `${name}.png` first.
export async function checkState(page, name) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join("; ")}`);
  });
  if (violations.length) fail(`${name}: axe violations:\n      ${violations.join("\n      ")}`);
  else ok(`${name}: screenshot, axe 0 violations`);
}

export function finish(label) {
  console.log(`==> screenshots in ${shots}`);
  if (report.skipped.length) {
    console.log(`==> ${report.skipped.length} step(s) skipped:`);
    for (const s of report.skipped) console.log(`    ${s}`);
  }
  if (report.failures) {
    console.log(`==> ${label}: FAILED (${report.failures})`);
    process.exit(1);
  }
  console.log(`==> ${label}: PASSED`);
}
