// Browser check of the public card pages (extensions.md 7), run by `make browser` (part of
// `make test`): Debian's Chromium driven by playwright-core against the built worker in
// local workerd. Screenshots of each template in two languages at 390 and 1280 px go to
// target/screenshots/ (README); axe-core must find no violation on any of them; the lead
// form is filled in and sent by clicking, and the lead is then read through the API.
//
// Standalone: it starts its own worker on free ports with fresh state and serves the
// card images from a small local server, since the machine has no internet.

import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const shots = join(root, "target", "screenshots");
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const axeSource = readFileSync(join(root, "node_modules", "axe-core", "axe.min.js"), "utf8");
const ADMIN = `browser-admin-${process.pid}`;
const WIDTHS = [390, 1280];

let failures = 0;
const fail = (what) => {
  failures += 1;
  console.log(`  FAIL ${what}`);
};
const ok = (what) => console.log(`  ok   ${what}`);

// A free port below Linux's ephemeral range (32768-60999): one picked there can become the
// source port of an outgoing connection before wrangler binds it.
function freePort() {
  return new Promise((resolve) => {
    const port = 20000 + Math.floor(Math.random() * 12000);
    const s = createServer();
    s.once("error", () => resolve(freePort()));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(port)));
  });
}

// Card images, drawn here: an avatar with initials, a logo and a cover.
const IMAGES = {
  "/avatar.svg": `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><rect width="96" height="96" fill="#c7d2fe"/><circle cx="48" cy="38" r="18" fill="#4338ca"/><rect x="18" y="62" width="60" height="34" rx="17" fill="#4338ca"/></svg>`,
  "/logo.svg": `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 32"><rect width="32" height="32" rx="8" fill="#0f766e"/><text x="40" y="23" font-family="sans-serif" font-size="20" font-weight="700" fill="#0f766e">ACME</text></svg>`,
  "/cover.svg": `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 480 128" preserveAspectRatio="xMidYMid slice"><defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="#0ea5e9"/><stop offset="1" stop-color="#6366f1"/></linearGradient></defs><rect width="480" height="128" fill="url(#g)"/><circle cx="400" cy="20" r="70" fill="#fff2"/></svg>`,
};

async function main() {
  const ports = new Set();
  while (ports.size < 3) ports.add(await freePort());
  const [port, inspector, imagePort] = [...ports];
  const images = createServer((req, res) => {
    const body = IMAGES[req.url];
    res.writeHead(body ? 200 : 404, { "Content-Type": "image/svg+xml" });
    res.end(body || "");
  });
  await new Promise((r) => images.listen(imagePort, "127.0.0.1", r));
  const img = `http://127.0.0.1:${imagePort}`;

  const state = mkdtempSync(join(tmpdir(), "cardapi-browser-"));
  execFileSync(join(root, "scripts/migrate-local.sh"), ["--persist-to", state], {
    cwd: root, env: { ...process.env, CI: "true" }, stdio: "ignore",
  });
  const log = join(state, "wrangler.log");
  const server = spawn(
    "bash",
    ["-c", `exec "${wrangler}" dev --ip 127.0.0.1 --port ${port} --inspector-port ${inspector} ` +
      `--persist-to "${state}" --show-interactive-dev-session=false ` +
      `--var ADMIN_TOKEN:${ADMIN} --var VISITOR_SALT:browser --var TOKEN_PEPPER:browser >"${log}" 2>&1`],
    { cwd: root, detached: true, stdio: "ignore", env: { ...process.env, CI: "true" } },
  );
  const stop = () => {
    try { process.kill(-server.pid, "SIGTERM"); } catch {}
    images.close();
  };
  const base = `http://127.0.0.1:${port}`;
  let browser;
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${base}/`)).ok) break;
      } catch {}
      if (i > 240) throw new Error(`the worker did not start:\n${readFileSync(log, "utf8")}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const api = async (method, path, body, token = ADMIN) => {
      const r = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: body && JSON.stringify(body),
      });
      const text = await r.text();
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
      return JSON.parse(text);
    };
    const account = (await api("POST", "/admin/v1/accounts", { name: "Browser", plan: "enterprise" })).data.id;
    await api("PATCH", `/admin/v1/accounts/${account}`, { privacy_policy_url: "https://acme.example/privacy" });
    const token = (await api("POST", `/admin/v1/accounts/${account}/tokens`, {
      name: "browser", scopes: ["cards:write", "leads:read"],
    })).data.token;
    const common = {
      email: "ada@acme.example", phone: "+49 30 1234567", website: "https://acme.example",
      booking_url: "https://cal.example/ada", address: "Friedrichstr. 1, 10117 Berlin",
      bio: "I help teams ship delightful products, from the first sketch to the last pixel.",
      social_links: [
        { platform: "linkedin", url: "https://www.linkedin.com/in/ada-example" },
        { platform: "github", url: "https://github.com/ada-example" },
      ],
      show_lead_form: true, language: "en",
      translations: { de: { job_title: "Produktdesignerin", bio: "Ich helfe Teams, großartige Produkte zu bauen." } },
    };
    const cards = [
      { template_id: "classic", first_name: "Ada", last_name: "Lovelace", job_title: "Product Designer",
        company: "Acme GmbH", design_config: { theme: "light", accent_color: "#0b5fff", avatar_url: `${img}/avatar.svg`, logo_url: `${img}/logo.svg` } },
      { template_id: "modern", first_name: "James", last_name: "O'Neill", job_title: "Solutions Architect",
        company: "Acme Ltd", design_config: { theme: "dark", accent_color: "#ff6b35", font: "rounded", avatar_url: `${img}/avatar.svg`, cover_url: `${img}/cover.svg` } },
      { template_id: "minimal", first_name: "Camille", last_name: "Durand", job_title: "Brand Lead",
        company: "Acme France", design_config: { theme: "auto", accent_color: "#ffd600", font: "serif", button_style: "outline", avatar_url: `${img}/avatar.svg` } },
    ];
    const made = [];
    for (const c of cards) made.push((await api("POST", "/api/v1/cards", { ...common, ...c }, token)).data);

    browser = await chromium.launch({
      executablePath,
      headless: true,
      // A closed network and a root user in CI: no sandbox, no background traffic.
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-default-apps", "--mute-audio", "--hide-scrollbars"],
    });
    rmSync(shots, { recursive: true, force: true });
    mkdirSync(shots, { recursive: true });

    console.log("==> screenshots and axe-core");
    for (const card of made) {
      for (const lang of ["en", "de"]) {
        for (const width of WIDTHS) {
          // axe is injected as a script, which the page's CSP (rightly) refuses.
          const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
          const page = await context.newPage();
          const external = [];
          page.on("request", (r) => {
            const u = new URL(r.url());
            if (u.hostname !== "127.0.0.1") external.push(r.url());
          });
          const url = `${base}/c/${card.slug}${lang === "de" ? "?lang=de" : ""}`;
          const response = await page.goto(url, { waitUntil: "load" });
          const name = `${card.template_id}-${lang}-${width}`;
          if (response.status() !== 200) { fail(`${name}: HTTP ${response.status()}`); continue; }
          const broken = await page.$$eval("img", (imgs) => imgs.filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.src));
          if (broken.length) fail(`${name}: images not shown (CSP?): ${broken.join(", ")}`);
          if (external.length) fail(`${name}: requests beyond this machine: ${external.join(", ")}`);
          if (width === 390) {
            const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
            if (overflow) fail(`${name}: wider than the phone screen`);
          }
          await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
          await page.addScriptTag({ content: axeSource });
          const result = await page.evaluate(async () => {
            // eslint-disable-next-line no-undef
            const r = await axe.run(document, { resultTypes: ["violations"] });
            return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join("; ")}`);
          });
          if (result.length) fail(`${name}: axe violations:\n      ${result.join("\n      ")}`);
          else ok(`${name}: screenshot, axe 0 violations`);
          if (card.template_id === "minimal") {
            // The auto theme in a dark system setting.
            await page.emulateMedia({ colorScheme: "dark" });
            await page.screenshot({ path: join(shots, `${name}-dark.png`), fullPage: true });
            const dark = await page.evaluate(async () => (await axe.run(document, { resultTypes: ["violations"] })).violations.map((v) => v.id));
            if (dark.length) fail(`${name} (dark system setting): axe violations: ${dark.join(", ")}`);
            else ok(`${name}-dark: screenshot, axe 0 violations`);
          }
          await context.close();
        }
      }
    }

    console.log("==> the QR view and the lead form, by clicking");
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${base}/c/${made[0].slug}?src=qr`);
    await page.click("details.qr summary");
    const qrVisible = await page.isVisible("details.qr svg");
    qrVisible ? ok("Show QR opens the code") : fail("Show QR does not show the code");
    await page.fill("#name", "Grace Hopper");
    await page.fill("#email", "grace@navy.example");
    await page.fill("#message", "Let's talk compilers.");
    await page.check("#consent");
    await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
    const notice = await page.textContent(".notice").catch(() => null);
    notice ? ok(`lead form sent by clicking: "${notice}"`) : fail("no thank-you notice after sending the form");
    await page.screenshot({ path: join(shots, "lead-form-sent-390.png"), fullPage: true });
    const leads = (await api("GET", "/api/v1/leads?email=grace@navy.example", undefined, token)).data;
    if (leads.length === 1 && leads[0].source === "qr" && leads[0].consent_at && leads[0].card_id === made[0].id) {
      ok("the lead is in the API, source qr, with consent");
    } else {
      fail(`lead not stored as expected: ${JSON.stringify(leads)}`);
    }
    await context.close();
  } finally {
    if (browser) await browser.close();
    stop();
    if (failures && existsSync(log)) {
      mkdirSync(join(root, "target"), { recursive: true });
      writeFileSync(join(root, "target", "browser-wrangler.log"), readFileSync(log));
    }
    rmSync(state, { recursive: true, force: true });
  }
  console.log(`==> screenshots in ${shots}`);
  if (failures) {
    console.log(`==> browser: FAILED (${failures})`);
    process.exit(1);
  }
  console.log("==> browser: PASSED");
}

main().catch((e) => {
  console.error(e);
  console.log("==> browser: FAILED");
  process.exit(1);
});
