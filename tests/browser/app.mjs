// Browser flow of the account area (account-area.md 3), run by `make browser` after the card
// pages' check: Debian's Chromium through playwright-core with a virtual authenticator (the
// DevTools protocol's WebAuthn domain) per browser, against the built worker in local
// workerd, opened at http://localhost:PORT (passkeys need a domain: an IP address is no
// relying party id). The operator invites; the owner registers a passkey by clicking, signs
// out and in again, invites a member from the Members page, adds a second passkey, renames
// it and removes the first; creates a token and uses it against /api/v1, revokes it (401);
// creates a webhook pointing at a local receiver and sees its delivery; downloads the leads
// CSV and reads it back; sees the analytics charts with the API's numbers. The member signs
// up in a browser of their own: their pages have no write controls and their posts get 403.
// Then every page in English and German at 390 and 1280 px: a screenshot
// (target/screenshots/app-<page>-<lang>-<width>.png) and axe-core.

import { mkdirSync, readFileSync } from "node:fs";
import {
  WIDTHS, api as call, authenticator, checkPage, checkState, fail, finish, launch, ok, seconds, serve, shots,
  startWorker, watchExternal,
} from "./lib.mjs";

const ADMIN = `browser-admin-${process.pid}`;
const DESKTOP = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

// What a member may still post: signing out and their own passkeys.
const MEMBER_FORMS = /^\/app\/(sign-out|passkeys\/\d+\/(rename|remove))$/;

// A browser of one person: its own context (cookies), page and virtual authenticator. The
// page keeps its CSP (no bypass): what the page's script does must work under it, and a
// violation is a failure.
async function person(browser, who, width = 1280) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, locale: "en-US" });
  patient(context);
  const page = await context.newPage();
  const external = watchExternal(page);
  page.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy|Refused to/.test(m.text())) {
      fail(`${who}: ${m.text()}`);
    }
  });
  page.on("pageerror", (e) => fail(`${who}: script error: ${e.message}`));
  const passkeys = await authenticator(page);
  return { context, page, external, passkeys, who };
}

// The machine is shared (2 cores, builds beside us): waits are generous.
function patient(context) {
  context.setDefaultTimeout(60000);
  context.setDefaultNavigationTimeout(90000);
}

// Clicks what submits a form or starts a navigation, and waits for the new page.
async function submit(page, locator) {
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), locator.click()]);
}

// Opens `path`; `null` when the page answers 404 (not built yet).
async function visit(page, base, path) {
  const r = await page.goto(`${base}${path}`, { waitUntil: "load" });
  if (r.status() === 200) return r;
  fail(`${path}: HTTP ${r.status()}`);
  return null;
}

// Cells of an RFC 4180 text: quoted cells may hold commas, quotes ("") and line breaks.
function csvRows(text) {
  const rows = [[]];
  let cell = "", quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; }
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") { rows.at(-1).push(cell); cell = ""; }
    else if (c === "\r" && text[i + 1] === "\n") { rows.at(-1).push(cell); cell = ""; rows.push([]); i++; }
    else cell += c;
  }
  if (cell || rows.at(-1).length) rows.at(-1).push(cell);
  return rows.filter((r) => r.length > 1 || r[0]);
}

async function main() {
  const start = Date.now();
  const deliveries = [];
  const receiver = await serve((req, res, body) => {
    deliveries.push({ path: req.url, headers: req.headers, body });
    res.writeHead(204);
    res.end();
  });
  const worker = await startWorker({
    host: "localhost",
    vars: {
      ADMIN_TOKEN: ADMIN, VISITOR_SALT: "browser", TOKEN_PEPPER: "browser",
      WEBHOOKS_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_SCHEDULE: "2,10,60",
    },
    logName: "browser-app-wrangler.log",
  });
  const { base } = worker;
  console.log(`==> the account area at ${base} (worker up after ${seconds(start)})`);
  let browser;
  const pages = { members: "/app/members" };
  try {
    const api = (method, path, body, token = ADMIN) => call(base, method, path, token, body);

    // The account's data, as the API and the card pages make it.
    const account = (await api("POST", "/admin/v1/accounts", { name: "Acme GmbH", plan: "enterprise" })).data.id;
    const setup = (await api("POST", `/admin/v1/accounts/${account}/tokens`, {
      name: "setup", scopes: ["cards:write", "leads:read", "analytics:read"],
    })).data.token;
    const cards = [];
    for (const [first, last, title] of [["Ada", "Lovelace", "Product Designer"], ["Grace", "Hopper", "Engineer"]]) {
      cards.push((await api("POST", "/api/v1/cards", {
        first_name: first, last_name: last, job_title: title, company: "Acme GmbH",
        email: `${first.toLowerCase()}@acme.example`, website: "https://acme.example", show_lead_form: true,
      }, setup)).data);
    }
    const visits = [[IPHONE, "10.0.0.1"], [IPHONE, "10.0.0.2"], [DESKTOP, "10.0.0.3"], [DESKTOP, "10.0.0.3"], [IPHONE, "10.0.0.4"]];
    for (const [ua, ip] of visits) {
      const r = await fetch(`${base}/c/${cards[0].slug}`, { headers: { "User-Agent": ua, "CF-Connecting-IP": ip } });
      if (r.status !== 200) fail(`card page view: HTTP ${r.status}`);
    }
    for (const path of ["go/email", "go/email", "go/website", "vcard"]) {
      const r = await fetch(`${base}/c/${cards[0].slug}/${path}`, { headers: { "User-Agent": DESKTOP }, redirect: "manual" });
      if (r.status !== 302 && r.status !== 200) fail(`click ${path}: HTTP ${r.status}`);
    }
    const leads = [["Lin Visitor", "lin@visitor.example"], ["=Formula, Inc.", "formula@visitor.example"], ["Max Mustermann", "max@visitor.example"]];
    for (const [i, [name, email]] of leads.entries()) {
      const r = await fetch(`${base}/c/${cards[i % 2].slug}/leads`, {
        method: "POST",
        headers: { "User-Agent": DESKTOP, "CF-Connecting-IP": `10.0.1.${i + 1}`, "Content-Type": "application/json", Origin: base },
        body: JSON.stringify({ name, email, message: "Let's talk." }),
      });
      if (r.status >= 300) fail(`lead ${email}: HTTP ${r.status} ${await r.text()}`);
    }
    // Views are counted through a Durable Object into KV: wait until the API sees them all.
    let views, clicks;
    for (let i = 0; i < 60; i++) {
      views = (await api("GET", "/api/v1/analytics/views?period=30d", undefined, setup)).data;
      clicks = (await api("GET", "/api/v1/analytics/clicks?period=30d", undefined, setup)).data;
      if (views.total_views >= visits.length && clicks.total_clicks >= 4) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    ok(`data: 2 cards, ${views.total_views} views (${views.unique_views} unique), ${clicks.total_clicks} clicks, ${leads.length} leads`);

    browser = await launch();
    mkdirSync(shots, { recursive: true });

    console.log("==> the owner: invited by the operator, a passkey by clicking, out and in again");
    const invite = (await api("POST", `/admin/v1/accounts/${account}/invites`, { email: "owner@acme.example", role: "owner" })).data;
    if (!invite.url.startsWith(`${base}/app/invite/`)) fail(`the invite link is not at ${base}: ${invite.url}`);
    const owner = await person(browser, "owner");
    const { page } = owner;
    await visit(page, base, new URL(invite.url).pathname);
    await Promise.all([page.waitForURL(`${base}/app`), page.click("button[data-ceremony=create]")]);
    const h1 = await page.textContent("h1");
    h1 === "Overview" ? ok("the invite registered a passkey and signed the owner in") : fail(`after the invite: "${h1}"`);
    await submit(page, page.locator("form[action='/app/sign-out'] button"));
    await visit(page, base, "/app");
    page.url() === `${base}/app/sign-in` ? ok("signed out: /app sends to sign-in") : fail(`signed out, /app is ${page.url()}`);
    await Promise.all([page.waitForURL(`${base}/app`), page.click("button[data-ceremony=get]")]);
    ok("signed in again with the passkey");

    console.log("==> Members: invite a member, copy the link, a second passkey, rename, remove the first");
    await owner.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
    await visit(page, base, "/app/members");
    await page.fill("#invite-email", "member@acme.example");
    await page.selectOption("#invite-role", "member");
    await submit(page, page.locator("form[action='/app/members'] button[type=submit]"));
    const link = (await page.textContent("#invite-link")).trim();
    link.startsWith(`${base}/app/invite/`) ? ok("the invite link is shown") : fail(`no invite link: "${link}"`);
    await page.click("[data-copy=invite-link]");
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    const said = await page.textContent("[data-copy=invite-link]");
    copied === link ? ok(`the copy button copies it (and says "${said}")`) : fail(`copied "${copied}"`);
    await checkState(page, "app-members-invited-en-1280");
    await visit(page, base, "/app/members");
    (await page.locator("#invite-link").count()) === 0 ? ok("the link is shown once") : fail("the link is shown again");

    // The first passkey's authenticator is put away: a new one (say, a security key) holds
    // the second passkey, and the creation options exclude the first.
    await owner.passkeys.cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId: owner.passkeys.id });
    owner.passkeys = await authenticator(page);
    await page.fill("#passkey-name", "Security key");
    await page.click("button[data-ceremony=create]");
    await page.waitForFunction(() => document.querySelectorAll("form[action$='/rename']").length === 2, null, { timeout: 15000 })
      .then(() => ok("a second passkey added by clicking"))
      .catch(async () => fail(`no second passkey: ${await page.textContent("#ceremony-status").catch(() => "")}`));
    const names = await page.$$eval("section[aria-labelledby=passkeys] tbody td:first-child", (tds) => tds.map((t) => t.textContent));
    names.includes("Security key") ? ok(`passkeys: ${names.join(", ")}`) : fail(`passkeys: ${names.join(", ")}`);
    const second = page.locator("details.rename").nth(1);
    await second.locator("summary").click();
    await second.locator("input[name=name]").fill("Security key (USB)");
    await submit(page, second.locator("button[type=submit]"));
    (await page.textContent("#main")).includes("Security key (USB)") ? ok("renamed") : fail("not renamed");
    const first = page.locator("details.confirm:has(form[action^='/app/passkeys/'])").first();
    await first.locator("summary").click();
    await checkState(page, "app-members-confirm-en-1280");
    await submit(page, first.locator("button[type=submit]"));
    const left = await page.locator("form[action$='/rename']").count();
    const removeLeft = await page.locator("form[action^='/app/passkeys/'][action$='/remove']").count();
    left === 1 && removeLeft === 0 ? ok("the first passkey removed; the last one cannot be") : fail(`${left} passkeys, ${removeLeft} remove controls`);
    await submit(page, page.locator("form[action='/app/sign-out'] button"));
    await Promise.all([page.waitForURL(`${base}/app`), page.click("button[data-ceremony=get]")]);
    ok("signed in with the second passkey");

    console.log("==> Tokens: create one, use it against /api/v1, revoke it");
    if (!(await visit(page, base, "/app/tokens"))) {
      fail(`tokens: create a token, use it against /api/v1, revoke it (401 after): the page did not answer`);
    } else {
      pages.tokens = "/app/tokens";
      const form = page.locator("form[method=post][action='/app/tokens']");
      await form.locator("input[name=name]").fill("Browser flow");
      for (const box of await form.locator("input[type=checkbox]").all()) await box.check();
      await submit(page, form.locator("button[type=submit]"));
      const token = (await page.textContent(".secret")).trim();
      const use = () => fetch(`${base}/api/v1/cards`, { headers: { Authorization: `Bearer ${token}` } });
      const before = (await use()).status;
      before === 200 ? ok("the new token reads /api/v1/cards") : fail(`the new token: HTTP ${before}`);
      // This token's row (the setup token is listed too).
      const revoke = page.locator("tr", { hasText: "Browser flow" }).locator("details.confirm:has(form[action$='/revoke'])");
      await revoke.locator("summary").click();
      await submit(page, revoke.locator("button[type=submit]"));
      const after = (await use()).status;
      after === 401 ? ok("revoked: 401 at once") : fail(`revoked token: HTTP ${after}`);
    }

    console.log("==> Webhooks: create one to a local receiver, see its delivery");
    if (!(await visit(page, base, "/app/webhooks"))) {
      fail(`webhooks: create one, see a delivery on its page: the page did not answer`);
    } else {
      pages.webhooks = "/app/webhooks";
      const form = page.locator("form[method=post][action='/app/webhooks']");
      await form.locator("input[name=url]").fill(`${receiver.url}/hook`);
      for (const box of await form.locator("input[type=checkbox]").all()) await box.check();
      await submit(page, form.locator("button[type=submit]"));
      const secret = (await page.textContent(".secret").catch(() => "")).trim();
      secret ? ok("the signing secret is shown once") : fail("no signing secret shown");
      // The answer is the new webhook's page, or the list linking to it.
      const paths = await page.$$eval("a[href^='/app/webhooks/'], form[action^='/app/webhooks/']",
        (els) => els.map((e) => e.getAttribute("href") || e.getAttribute("action")));
      const href = paths.map((p) => (p.match(/^\/app\/webhooks\/\d+/) || [])[0]).find(Boolean);
      pages.webhook = href;
      await api("POST", "/api/v1/cards", { first_name: "Hook", last_name: "Trigger" }, setup);
      for (let i = 0; i < 80 && !deliveries.length; i++) await new Promise((r) => setTimeout(r, 250));
      deliveries.length ? ok(`the receiver got ${deliveries.length} delivery`) : fail("no delivery reached the receiver");
      let shown = false;
      for (let i = 0; i < 20 && !shown; i++) {
        await visit(page, base, href);
        shown = (await page.textContent("#main")).includes("card.created");
        if (!shown) await new Promise((r) => setTimeout(r, 500));
      }
      shown ? ok(`the delivery is on ${href}`) : fail(`no delivery on ${href}`);
    }

    console.log("==> Leads: the CSV downloaded and read back");
    if (!(await visit(page, base, "/app/leads"))) {
      fail(`leads: download the CSV and read it back: the page did not answer`);
    } else {
      pages.leads = "/app/leads";
      const [download] = await Promise.all([page.waitForEvent("download"), page.click("a[href^='/app/leads.csv']")]);
      const rows = csvRows(readFileSync(await download.path(), "utf8"));
      const header = rows[0].map((h) => h.toLowerCase());
      const emailAt = header.indexOf("email");
      const got = rows.slice(1).map((r) => r[emailAt]).sort();
      const want = leads.map(([, e]) => e).sort();
      JSON.stringify(got) === JSON.stringify(want)
        ? ok(`the CSV has the ${want.length} leads (${download.suggestedFilename()})`)
        : fail(`CSV emails ${got.join(", ")}; expected ${want.join(", ")}`);
      const guarded = rows.slice(1).some((r) => r.includes("'=Formula, Inc."));
      guarded ? ok("a cell beginning with = is guarded with '") : fail("the formula cell is not guarded");
    }

    console.log("==> Analytics: the charts with the API's numbers");
    if (!(await visit(page, base, "/app/analytics?period=30d"))) {
      fail(`analytics: the charts with the API's numbers: the page did not answer`);
    } else {
      pages.analytics = "/app/analytics?period=30d";
      // Six charts (views and clicks per day; devices, countries, referrers, clicks by
      // type), each an SVG with its numbers in a table beside it.
      const charts = await page.locator("#main svg").count();
      const tables = await page.locator("#main table").count();
      charts >= 6 && tables >= charts ? ok(`${charts} charts, each with its table`) : fail(`${charts} charts, ${tables} tables`);
      const figures = (await page.locator(".figure").allTextContents()).map((f) => f.trim());
      const want = [views.total_views, views.unique_views, clicks.total_clicks].map(String);
      want.every((n, i) => figures[i] === n)
        ? ok(`total ${want[0]} and unique ${want[1]} views, ${want[2]} clicks: as the API says`)
        : fail(`figures ${figures.join(", ")}; the API: ${want.join(", ")}`);
      // Each count of the API's clicks by type is in the page's table of them.
      const cells = await page.$$eval("#main td, #main th", (tds) => tds.map((t) => t.textContent.trim()));
      const missing = Object.entries(clicks.clicks_by_type).filter(([kind, n]) => !cells.includes(kind) && !cells.includes(String(n)));
      missing.length ? fail(`clicks by type not in the tables: ${JSON.stringify(missing)}`) : ok("clicks by type in the tables");
    }
    for (const [name, path] of [["cards", "/app/cards"], ["security", "/app/security"]]) {
      if (await visit(page, base, path)) pages[name] = path;
      else fail(`${name}: screenshots and axe: the page did not answer`);
    }

    console.log("==> Cards: Copy signature puts the card's email signature on the clipboard");
    await visit(page, base, "/app/cards");
    const sig = page.locator("button[data-signature]").first();
    if (!(await sig.isVisible())) {
      fail("no visible Copy signature button on /app/cards");
    } else {
      const label = await sig.textContent();
      await sig.click();
      await page.waitForFunction((was) => document.querySelector("button[data-signature]").textContent !== was, label,
        { timeout: 10000 }).catch(() => {});
      const said = await sig.textContent();
      const board = await page.evaluate(async () => {
        const out = {};
        for (const item of await navigator.clipboard.read()) {
          for (const type of item.types) out[type] = await (await item.getType(type)).text();
        }
        return out;
      });
      const id = (await sig.getAttribute("data-signature")).split("/")[3];
      const want = (await api("GET", `/api/v1/cards/${id}/signature`, undefined, setup)).data;
      // Chromium sanitises HTML it puts on the clipboard (a <meta charset> in front): the
      // signature's table is in it, and the plain text is the API's.
      const html = board["text/html"] || "";
      html.includes("<table") && html.includes(want.text.split("\n")[0]) && board["text/plain"] === want.text
        ? ok(`Copy signature copies the card's signature as HTML and text (and says "${said}")`)
        : fail(`clipboard after Copy signature: ${JSON.stringify(board).slice(0, 300)}`);
    }

    console.log("==> the member: their own browser and passkey; no write controls; posts refused");
    const member = await person(browser, "member", 390);
    await visit(member.page, base, new URL(link).pathname);
    await Promise.all([member.page.waitForURL(`${base}/app`), member.page.click("button[data-ceremony=create]")]);
    ok("the member accepted the invite with a passkey of their own");
    const memberPages = ["/app", "/app/members", ...Object.values(pages).filter((p) => p !== "/app/members")];
    for (const path of memberPages) {
      await visit(member.page, base, path);
      const forms = await member.page.$$eval("form[method=post]", (fs) => fs.map((f) => f.getAttribute("action")));
      const writes = forms.filter((a) => !MEMBER_FORMS.test(a));
      writes.length ? fail(`${path}: write controls for a member: ${writes.join(", ")}`) : ok(`${path}: no write controls`);
    }
    const ownerId = (await owner.page.goto(`${base}/app/members`)) &&
      (await owner.page.getAttribute("form[action^='/app/members/'][action$='/remove']", "action"));
    const posts = ["/app/members", ownerId, "/app/tokens", "/app/tokens/1/revoke", "/app/webhooks",
      "/app/webhooks/1/rotate", "/app/webhooks/1/delete", "/app/leads/erase", "/app/leads/1/erase"];
    const statuses = await member.page.evaluate((paths) => Promise.all(paths.map((p) => fetch(p, {
      method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "email=eve%40acme.example&role=owner&name=x&url=http%3A%2F%2F127.0.0.1%2F",
    }).then((r) => r.status))), posts);
    const refused = posts.filter((_, i) => statuses[i] !== 403);
    refused.length
      ? fail(`a member's posts not refused: ${refused.map((p) => `${p} ${statuses[posts.indexOf(p)]}`).join(", ")}`)
      : ok(`a member's ${posts.length} posts are refused (403)`);

    for (const p of [owner, member]) {
      if (p.external.length) fail(`${p.who}: requests beyond this machine: ${p.external.join(", ")}`);
    }
    console.log(`==> the flow took ${seconds(start)}`);

    console.log("==> every page: screenshots and axe-core, English and German, 390 and 1280 px");
    // axe is injected as a script, which the pages' CSP rightly refuses: these contexts
    // bypass it, with the owner's (or member's) cookies.
    const sweep = async (state, list, suffix = "") => {
      const context = await browser.newContext({ bypassCSP: true, storageState: state, viewport: { width: 1280, height: 900 } });
      patient(context);
      const shot = await context.newPage();
      for (const [name, path] of list) {
        for (const lang of ["en", "de"]) {
          for (const width of WIDTHS) {
            await shot.setViewportSize({ width, height: 900 });
            const r = await shot.goto(`${base}${path}${path.includes("?") ? "&" : "?"}lang=${lang}`, { waitUntil: "load" });
            const label = `app-${name}${suffix}-${lang}-${width}`;
            if (r.status() !== 200) { fail(`${label}: HTTP ${r.status()}`); continue; }
            await checkPage(shot, label, width);
          }
        }
      }
      await context.close();
    };
    const fresh = (await api("POST", `/admin/v1/accounts/${account}/invites`, { email: "new@acme.example", role: "member" })).data;
    await sweep(undefined, [["sign-in", "/app/sign-in"], ["invite", new URL(fresh.url).pathname]]);
    const order = ["overview", "cards", "leads", "analytics", "tokens", "webhooks", "webhook", "members", "security"];
    pages.overview = "/app";
    await sweep(await owner.context.storageState(), order.filter((n) => pages[n]).map((n) => [n, pages[n]]));
    await sweep(await member.context.storageState(), [["members", "/app/members"]], "-member");
    await owner.context.close();
    await member.context.close();
  } catch (e) {
    fail(`the flow stopped: ${e.stack || e}`);
  } finally {
    if (browser) await browser.close();
    worker.stop();
    receiver.close();
  }
  console.log(`==> browser (account area) took ${seconds(start)}`);
  finish("browser (account area)");
}

main().catch((e) => {
  console.error(e);
  console.log("==> browser (account area): FAILED");
  process.exit(1);
});
