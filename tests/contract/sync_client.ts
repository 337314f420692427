// A CRM-style sync through a typed TypeScript client: the types openapi-typescript generates
// from openapi.json, with openapi-fetch (tests/contract/run.sh generates the types into
// target/, compiles this file with `tsc --strict` beside them and runs it with node against
// the worker it started): list cards, create one, patch it, delete it, list leads. A
// document whose types come out as `never` fails the compilation; a wrong answer fails an
// assertion. Exits non-zero on the first failure.
//
// Usage: node sync_client.js BASE_URL TOKEN

import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

// Node's globals, declared here so the check needs no @types/node.
declare const process: { argv: string[]; exitCode?: number };

type Card = components["schemas"]["Card"];
type Lead = components["schemas"]["Lead"];
type DesignConfig = components["schemas"]["DesignConfig"];

// The lead run.sh seeds through the public lead form before this script runs.
const SEED_LEAD_EMAIL = "lead@example.com";

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`assertion failed: ${what}`);
}

async function main(baseUrl: string, token: string): Promise<void> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
  const key = Math.random().toString(16).slice(2);

  // listCards: the seeded cards.
  const list = await client.GET("/api/v1/cards", { params: { query: { per_page: 100 } } });
  check(list.response.status === 200 && list.data !== undefined, `listCards: ${list.response.status}`);
  const cards: Card[] = list.data.data;
  check(cards.length >= 2, "listCards: the seeded cards");
  check(list.data.meta.total === cards.length, "listCards: meta.total");
  const before = list.data.meta.total;

  // createCard: free-form design_config and a typed social link go in and come back.
  const design: DesignConfig = { theme: "dark", colors: { primary: "#112233" } };
  const created = await client.POST("/api/v1/cards", {
    params: { header: { "Idempotency-Key": `sync-ts-${key}` } },
    body: {
      first_name: "Sync",
      last_name: `TypeScript ${key.slice(0, 8)}`,
      email: "sync.ts@example.com",
      language: "fr",
      is_public: true,
      design_config: design,
      social_links: [{ platform: "github", url: "https://github.com/sync" }],
    },
  });
  check(created.response.status === 201 && created.data !== undefined, `createCard: ${created.response.status}`);
  const card: Card = created.data.data;
  check(typeof created.data.message === "string", "createCard: message");
  check(card.first_name === "Sync" && card.language === "fr" && card.status === "active", "createCard: fields");
  const colors = card.design_config["colors"] as { primary?: string } | undefined;
  check(colors?.primary === "#112233", `createCard: design_config ${JSON.stringify(card.design_config)}`);
  check(card.social_links[0]?.platform === "github", "createCard: social_links");
  check(card.available_languages.includes("fr"), "createCard: available_languages");

  // patchCard: only the fields sent change.
  const patched = await client.PATCH("/api/v1/cards/{card}", {
    params: { path: { card: card.id }, header: { "Idempotency-Key": `sync-ts-patch-${key}` } },
    body: { job_title: "Integrations", status: "draft" },
  });
  check(patched.response.status === 200 && patched.data !== undefined, `patchCard: ${patched.response.status}`);
  check(patched.data.data.job_title === "Integrations" && patched.data.data.status === "draft", "patchCard: fields");
  check(patched.data.data.email === "sync.ts@example.com", "patchCard: other fields unchanged");

  const got = await client.GET("/api/v1/cards/{card}", { params: { path: { card: card.id } } });
  check(got.response.status === 200 && got.data !== undefined, `getCard: ${got.response.status}`);
  check(got.data.data.leads.length === 0 && got.data.data.job_title === "Integrations", "getCard: the patched card");

  // deleteCard: gone afterwards.
  const deleted = await client.DELETE("/api/v1/cards/{card}", {
    params: { path: { card: card.id }, header: { "Idempotency-Key": `sync-ts-delete-${key}` } },
  });
  check(deleted.response.status === 200 && typeof deleted.data?.message === "string", "deleteCard");
  const gone = await client.GET("/api/v1/cards/{card}", { params: { path: { card: card.id } } });
  check(gone.response.status === 404 && gone.error !== undefined, `getCard after delete: ${gone.response.status}`);
  const after = await client.GET("/api/v1/cards", { params: { query: { per_page: 100 } } });
  check(after.data?.meta.total === before, "listCards after delete: the count it had");

  // listLeads: the seeded lead.
  const leads = await client.GET("/api/v1/leads", { params: { query: { per_page: 100 } } });
  check(leads.response.status === 200 && leads.data !== undefined, `listLeads: ${leads.response.status}`);
  const rows: Lead[] = leads.data.data;
  check(rows.some((lead) => lead.email === SEED_LEAD_EMAIL), "listLeads: the seeded lead");
  console.log(
    `typescript client: listed ${before} cards, created, patched and deleted card ${card.id}, listed ${rows.length} leads`,
  );
}

const [baseUrl, token] = process.argv.slice(2);
if (baseUrl === undefined || token === undefined) {
  console.error("usage: node sync_client.js BASE_URL TOKEN");
  process.exitCode = 2;
} else {
  main(baseUrl, token).catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
