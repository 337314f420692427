// The storage probe of `make bench`: for each read endpoint, the storage calls a worker
// makes and nothing else (no validation, no JSON of its own, no views), so that a worker's
// CPU per request minus the probe's is the part that is the worker's own: what a deployed
// worker is billed for, since in production D1 and the Durable Objects run elsewhere,
// while locally they run in the same workerd process and are counted with it.
//
// GET /<mode>/api/v1/<path>, mode:
//   rust  the calls of this project's worker: the token's object (auth row cached, the
//         rate-limit second upserted in its SQLite storage, the bookmark read once), then
//         one D1 batch in a session (or one bulk KV read for analytics);
//   peer  the calls of the JavaScript peer (../shared/peer): the same object call with the
//         window kept as one storage value `put` per request, then the same D1 batch
//         without a session.
import { DurableObject } from "cloudflare:workers";

const TOKEN_SQL =
  "SELECT t.id AS token_id, t.account_id, t.scopes, t.last_used_at, a.plan, a.card_limit, " +
  "a.api_access, a.advanced_analytics, a.white_label, a.lead_form " +
  "FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.token_hash = ?1 AND t.revoked_at IS NULL";

export class Gate extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.auth = undefined;
    this.window = undefined;
    this.bookmark = undefined;
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS hits (second INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
  }

  async fetch(request) {
    const url = new URL(request.url);
    const hash = url.searchParams.get("hash");
    if (this.auth === undefined) this.auth = await this.env.DB.prepare(TOKEN_SQL).bind(hash).first();
    const now = Math.floor(Date.now() / 1000);
    if (url.searchParams.get("mode") === "rust") {
      if (this.bookmark === undefined) this.bookmark = (await this.ctx.storage.get("bookmark")) ?? null;
      if (this.window === undefined) {
        this.window = this.ctx.storage.sql.exec("SELECT second, n FROM hits WHERE second > ? ORDER BY second", now - 60).toArray();
      }
      this.ctx.storage.sql.exec("INSERT INTO hits (second, n) VALUES (?, 1) ON CONFLICT (second) DO UPDATE SET n = n + 1", now);
    } else {
      this.window ??= (await this.ctx.storage.get("window")) ?? { buckets: [] };
      const last = this.window.buckets[this.window.buckets.length - 1];
      if (last && last[0] === now) last[1]++;
      else this.window.buckets = [...this.window.buckets.filter(([s]) => s > now - 60), [now, 1]];
      await this.ctx.storage.put("window", this.window);
    }
    return Response.json({ account_id: this.auth?.account_id ?? null });
  }
}

const hashes = new Map();
async function tokenHash(token) {
  let hash = hashes.get(token);
  if (!hash) {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
    hash = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    hashes.set(token, hash);
  }
  return hash;
}

const pad = (n) => String(n).padStart(2, "0");
const month = (d) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}`;

/** The month documents a report over `days` reads: summaries of settled months wholly inside. */
function analyticsKeys(account, days) {
  const today = new Date();
  const start = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - (days - 1)));
  const settledBefore = month(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - 1)));
  const keys = [];
  for (let d = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1)); d <= today; d.setUTCMonth(d.getUTCMonth() + 1)) {
    const m = month(d);
    const whole = d >= start && m < settledBefore;
    keys.push(`a/${account}/all/views/${m}${whole ? "/summary" : ""}`);
  }
  return keys;
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const [, mode, ...rest] = url.pathname.split("/");
    const path = "/" + rest.join("/");
    if (!path.startsWith("/api/v1/")) return new Response("{}");
    const token = (request.headers.get("Authorization") ?? "").replace(/^Bearer\s+/i, "");
    const hash = await tokenHash(token);
    // One object per token and mode: the two modes keep their windows differently.
    const stub = env.GATE.get(env.GATE.idFromName(`${mode}:${hash}`));
    const gate = await stub.fetch(`https://gate/check?hash=${hash}&mode=${mode}`);
    const { account_id: account } = await gate.json();
    const db = mode === "rust" ? env.DB.withSession("first-unconstrained") : env.DB;
    const q = url.searchParams;
    const perPage = Number(q.get("per_page") ?? 15);
    let card;
    if (path === "/api/v1/cards") {
      await db.batch([
        db.prepare("SELECT COUNT(*) AS n FROM cards WHERE account_id = ?1").bind(account),
        db.prepare("SELECT * FROM cards WHERE account_id = ?1 ORDER BY updated_at DESC, id DESC LIMIT ?2 OFFSET 0").bind(account, perPage),
      ]);
    } else if ((card = /^\/api\/v1\/cards\/(\d+)$/.exec(path))) {
      await db.batch([
        db.prepare("SELECT * FROM cards WHERE id = ?1 AND account_id = ?2").bind(Number(card[1]), account),
        db.prepare("SELECT * FROM leads WHERE card_id = ?1 AND account_id = ?2 ORDER BY created_at DESC, id DESC LIMIT 20")
          .bind(Number(card[1]), account),
      ]);
    } else if (path === "/api/v1/leads") {
      await db.batch([
        db.prepare("SELECT COUNT(*) AS n FROM leads WHERE account_id = ?1").bind(account),
        db.prepare("SELECT * FROM leads WHERE account_id = ?1 ORDER BY created_at DESC, id DESC LIMIT ?2 OFFSET 0").bind(account, perPage),
      ]);
    } else if (path === "/api/v1/analytics/views") {
      const days = { "7d": 7, "30d": 30, "90d": 90, "365d": 365 }[q.get("period") ?? "30d"] ?? 30;
      await env.ANALYTICS.get(analyticsKeys(account, days), "text");
    } else {
      return new Response("{}", { status: 404 });
    }
    return new Response("{}");
  },
};
