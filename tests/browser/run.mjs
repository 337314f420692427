// Browser check of the public card pages (extensions.md 7), run by `make browser` (part of
// `make test`): Debian's Chromium driven by playwright-core against the built worker in
// local workerd. Screenshots of each template in two languages at 390 and 1280 px go to
// target/screenshots/ (README); axe-core must find no violation on any of them; the lead
// form is filled in and sent by clicking, and the lead is then read through the API. Each
// layout's email signature (teams.md 2), in both languages, is drawn at 600 px into
// target/screenshots/signature-{layout}-{en,de}.png.
//
// Standalone: it starts its own worker on free ports with fresh state and serves the
// card images from a small local server, since the machine has no internet.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  WIDTHS, api as call, checkPage, fail, finish, launch, ok, serve, shots, startWorker, watchExternal,
} from "./lib.mjs";

const ADMIN = `browser-admin-${process.pid}`;

// Card images, drawn here: an avatar with initials, a logo and a cover.
const IMAGES = {
  "/avatar.svg": `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><rect width="96" height="96" fill="#c7d2fe"/><circle cx="48" cy="38" r="18" fill="#4338ca"/><rect x="18" y="62" width="60" height="34" rx="17" fill="#4338ca"/></svg>`,
  "/logo.svg": `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 32"><rect width="32" height="32" rx="8" fill="#0f766e"/><text x="40" y="23" font-family="sans-serif" font-size="20" font-weight="700" fill="#0f766e">ACME</text></svg>`,
  "/cover.svg": `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 480 128" preserveAspectRatio="xMidYMid slice"><defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="#0ea5e9"/><stop offset="1" stop-color="#6366f1"/></linearGradient></defs><rect width="480" height="128" fill="url(#g)"/><circle cx="400" cy="20" r="70" fill="#fff2"/></svg>`,
};

async function main() {
  const images = await serve((req, res) => {
    const body = IMAGES[req.url];
    res.writeHead(body ? 200 : 404, { "Content-Type": "image/svg+xml" });
    res.end(body || "");
  });
  const img = images.url;
  const worker = await startWorker({
    vars: { ADMIN_TOKEN: ADMIN, VISITOR_SALT: "browser", TOKEN_PEPPER: "browser" },
    logName: "browser-wrangler.log",
  });
  const { base } = worker;
  let browser;
  try {
    const api = (method, path, body, token = ADMIN) => call(base, method, path, token, body);
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

    browser = await launch();
    mkdirSync(shots, { recursive: true });

    console.log("==> screenshots and axe-core");
    for (const card of made) {
      for (const lang of ["en", "de"]) {
        for (const width of WIDTHS) {
          // axe is injected as a script, which the page's CSP (rightly) refuses.
          const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
          const page = await context.newPage();
          const external = watchExternal(page);
          const url = `${base}/c/${card.slug}${lang === "de" ? "?lang=de" : ""}`;
          const response = await page.goto(url, { waitUntil: "load" });
          const name = `${card.template_id}-${lang}-${width}`;
          if (response.status() !== 200) { fail(`${name}: HTTP ${response.status()}`); continue; }
          // Lazy images do not hold up the load event: give them time on a busy machine.
          await page.waitForFunction(() => [...document.images].every((i) => i.complete), null, { timeout: 10000 })
            .catch(() => {});
          const broken = await page.$$eval("img", (imgs) => imgs.filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.src));
          if (broken.length) fail(`${name}: images not shown (CSP?): ${broken.join(", ")}`);
          if (external.length) fail(`${name}: requests beyond this machine: ${external.join(", ")}`);
          await checkPage(page, name, width);
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

    console.log("==> email signatures (teams.md 2) at 600 px");
    const signatureLinks = [
      ...common.social_links,
      { platform: "x", url: "ada_example" }, { platform: "xing", url: "Ada_Example" },
      { platform: "instagram", url: "ada.example" }, { platform: "youtube", url: "@ada" },
      { platform: "mastodon", url: "@ada@social.example" }, { platform: "website", url: "https://blog.acme.example" },
    ];
    for (const c of cards) {
      for (const lang of ["en", "de"]) {
        const name = `signature-${c.template_id}-${lang}`;
        const sigCard = (await api("POST", "/api/v1/cards", {
          ...common, ...c, language: lang, social_links: signatureLinks,
        }, token)).data;
        const { html, text } = (await api("GET", `/api/v1/cards/${sigCard.id}/signature`, undefined, token)).data;
        if (!html || !text) { fail(`${name}: no signature`); continue; }
        // A short viewport: the full-page shot is as tall as the signature.
        const context = await browser.newContext({ viewport: { width: 600, height: 60 } });
        const page = await context.newPage();
        await page.setContent(`<!doctype html><html lang="${lang}"><body style="margin:0;background:#fff">${html}</body></html>`,
          { waitUntil: "load" });
        await page.waitForFunction(() => [...document.images].every((i) => i.complete), null, { timeout: 10000 })
          .catch(() => {});
        const broken = await page.$$eval("img", (imgs) => imgs.filter((i) => i.naturalWidth === 0).map((i) => i.src));
        if (broken.length) fail(`${name}: images not shown: ${broken.join(", ")}`);
        const wide = await page.evaluate(() => document.documentElement.scrollWidth);
        if (wide > 600) fail(`${name}: ${wide} px wide`);
        await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
        if (!broken.length && wide <= 600) ok(`${name}: screenshot, ${html.length} characters, every image shown`);
        await context.close();
      }
    }
  } finally {
    if (browser) await browser.close();
    worker.stop();
    images.close();
  }
  finish("browser (card pages)");
}

main().catch((e) => {
  console.error(e);
  console.log("==> browser (card pages): FAILED");
  process.exit(1);
});
