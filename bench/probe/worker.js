// The storage probe of `make bench`: for each read endpoint, the storage calls a worker
// makes and nothing else (no validation, no JSON of its own, no views), so that a worker's
// CPU per request minus the probe's is the part that is the worker's own: what a deployed
// worker is billed for, since in production D1 and the Durable Objects run elsewhere,
// while locally they run in the same workerd process and are counted with it.
//
// <method> /<mode>/api/v1/<path>, mode:
//   rust  the calls of this project's worker: the token's object (auth row cached, the
//         rate-limit second upserted in its SQLite storage, the token's write state read
//         once), then one D1 batch in a session (or one bulk KV read for analytics); a
//         write's batch also records the change feed's event, advances the account's
//         sequence and fans out webhook deliveries (the outbox). A write's check marks it
//         and settles the isolate's previous write of the token (one upsert of the write
//         state); its own bookmark waits in the isolate for the next check, no call after
//         the answer (src/domain/own_writes.rs);
//   bare  (writes) the same without the three outbox statements, so rust - bare is what
//         the change feed and its outbox cost in storage calls;
//   peer  the calls of the JavaScript peer (../shared/peer): the same object call with the
//         window kept as one storage value `put` per request, then the same D1 batch
//         (a write: its one statement) without a session.
// Writes: PATCH /cards/{id} (sets `bio`) and POST /cards (a card with a fresh slug).
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
    this.writes = undefined;
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS hits (second INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS writes (id INTEGER PRIMARY KEY, state TEXT NOT NULL)");
  }

  async fetch(request) {
    const url = new URL(request.url);
    const hash = url.searchParams.get("hash");
    if (this.auth === undefined) this.auth = await this.env.DB.prepare(TOKEN_SQL).bind(hash).first();
    const now = Math.floor(Date.now() / 1000);
    if (url.searchParams.get("mode") !== "peer") {
      if (this.writes === undefined) {
        const state = this.ctx.storage.sql.exec("SELECT state FROM writes WHERE id = 1").toArray()[0]?.state;
        this.writes = { next: Number(state?.split(";")[0] ?? 0), marks: [], bookmark: state?.split(";")[3] ?? "" };
      }
      if (this.window === undefined) {
        this.window = this.ctx.storage.sql.exec("SELECT second, n FROM hits WHERE second > ? ORDER BY second", now - 60).toArray();
      }
      this.ctx.storage.sql.exec("INSERT INTO hits (second, n) VALUES (?, 1) ON CONFLICT (second) DO UPDATE SET n = n + 1", now);
      const settle = url.searchParams.get("settle");
      const write = url.searchParams.get("write") === "1";
      if (settle !== null || write) {
        const w = this.writes;
        if (settle !== null) {
          const [mark, bookmark] = settle.split(".");
          w.marks = w.marks.filter((m) => m[0] !== Number(mark));
          if (bookmark > w.bookmark) w.bookmark = bookmark;
        }
        if (write) w.marks.push([w.next++, Date.now()]);
        const state = `${w.next};0;${w.marks.map((m) => m.join(":")).join(",")};${w.bookmark}`;
        this.ctx.storage.sql.exec("INSERT INTO writes (id, state) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET state = excluded.state", state);
        return Response.json({ account_id: this.auth?.account_id ?? null, mark: write ? w.next - 1 : null });
      }
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

/** The documents a report over `days` reads: the months at the window's edges (and any
 * not settled yet) in full, and, when some settled month lies wholly inside, the scope's
 * history document that holds their summaries. */
function analyticsKeys(account, days) {
  const today = new Date();
  const start = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - (days - 1)));
  const settledBefore = month(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - 1)));
  const keys = [];
  let history = false;
  for (let d = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1)); d <= today; d.setUTCMonth(d.getUTCMonth() + 1)) {
    const m = month(d);
    if (d >= start && m < settledBefore) history = true;
    else keys.push(`a/${account}/all/views/${m}`);
  }
  if (history) keys.push(`a/${account}/all/views/history`);
  return keys;
}

// The event a write records, as the worker's store/events.rs writes it: the card's row as
// a JSON object (every column), the account's next sequence, only if the change happened.
let snapshot;
async function cardSnapshot(db) {
  if (!snapshot) {
    const { results } = await db.prepare("SELECT name FROM pragma_table_info('cards')").all();
    snapshot = `json_object(${results.map(({ name }) => `'${name}', c.${name}`).join(", ")})`;
  }
  return snapshot;
}

function randomHex(bytes) {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function outbox(db, account, type, now, where) {
  const event = `evt_${randomHex(16)}`;
  return [
    db.prepare(`INSERT INTO events (id, account_id, sequence, type, created_at, object, lead_id) ` +
      `SELECT ?2, ?1, (SELECT event_sequence + 1 FROM accounts WHERE id = ?1), ?3, ?4, ${await cardSnapshot(db)}, NULL ` +
      `FROM cards c WHERE ${where} AND c.account_id = ?1 AND changes() > 0`).bind(account, event, type, now),
    db.prepare("UPDATE accounts SET event_sequence = event_sequence + 1 WHERE id = ?1 AND changes() > 0").bind(account),
    db.prepare("INSERT INTO deliveries (account_id, webhook_id, event_id, event_type, attempt, status, due_at, created_at) " +
      "SELECT ?1, w.id, ?2, ?3, 1, 'pending', ?4, ?4 FROM webhooks w " +
      "WHERE w.account_id = ?1 AND w.status = 'enabled' " +
      "AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE value IN ('*', ?3)) " +
      "AND EXISTS (SELECT 1 FROM events WHERE id = ?2 AND account_id = ?1) RETURNING id").bind(account, event, type, now),
  ];
}

let created = 0;
// Per object (mode and token hash): the last write's `mark.bookmark`, for its next check.
const unsettled = new Map();

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
    let check = `https://gate/check?hash=${hash}&mode=${mode}`;
    const settle = mode === "peer" ? undefined : unsettled.get(`${mode}:${hash}`);
    if (settle !== undefined) {
      unsettled.delete(`${mode}:${hash}`);
      check += `&settle=${encodeURIComponent(settle)}`;
    }
    if (mode !== "peer" && request.method !== "GET") check += "&write=1";
    const gate = await stub.fetch(check);
    const { account_id: account, mark } = await gate.json();
    const db = mode === "peer" ? env.DB : env.DB.withSession("first-unconstrained");
    const q = url.searchParams;
    const perPage = Number(q.get("per_page") ?? 15);
    let card;
    if (request.method !== "GET") {
      const now = Date.now();
      let change, type, where;
      if (request.method === "PATCH" && (card = /^\/api\/v1\/cards\/(\d+)$/.exec(path))) {
        const { bio } = await request.json();
        change = db.prepare("UPDATE cards SET updated_at = MAX(?3, updated_at + 1), bio = ?4 WHERE id = ?1 AND account_id = ?2 RETURNING *")
          .bind(Number(card[1]), account, now, bio);
        [type, where] = ["card.updated", `c.id = ${Number(card[1])}`];
      } else if (request.method === "POST" && path === "/api/v1/cards") {
        const body = await request.json();
        const slug = `probe-${randomHex(4)}-${++created}`;
        change = db.prepare("INSERT INTO cards (account_id, slug, title, first_name, last_name, job_title, company, email, " +
          "phone, website, bio, social_links, design_config, language, created_at, updated_at) " +
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?15) RETURNING *")
          .bind(account, slug, `${body.first_name} ${body.last_name}`, body.first_name, body.last_name, body.job_title ?? null,
            body.company ?? null, body.email ?? null, body.phone ?? null, body.website ?? null, body.bio ?? null,
            JSON.stringify(body.social_links ?? []), JSON.stringify(body.design_config ?? {}), body.language ?? "en", now);
        [type, where] = ["card.created", "c.id = last_insert_rowid()"];
      } else {
        return new Response("{}", { status: 404 });
      }
      if (mode === "peer") {
        await change.first();
        return new Response("{}");
      }
      await db.batch(mode === "rust" ? [change, ...(await outbox(db, account, type, now, where))] : [change]);
      unsettled.set(`${mode}:${hash}`, `${mark}.${db.getBookmark() ?? ""}`);
      return new Response("{}");
    }
    // Bound LIMITs as the worker writes them (`LIMIT +?N`, see `store::Stmt`): SQLite
    // compiles a statement with a bare `LIMIT ?N` again on every run.
    if (path === "/api/v1/cards") {
      await db.batch([
        db.prepare("SELECT COUNT(*) AS n FROM cards WHERE account_id = ?1").bind(account),
        db.prepare("SELECT * FROM cards WHERE account_id = ?1 ORDER BY updated_at DESC, id DESC LIMIT +?2 OFFSET 0").bind(account, perPage),
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
        db.prepare("SELECT * FROM leads WHERE account_id = ?1 ORDER BY created_at DESC, id DESC LIMIT +?2 OFFSET 0").bind(account, perPage),
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
