// Starts a worker in the local runtime exactly as `wrangler dev` does (same config, same
// miniflare/workerd, same local D1/KV/Durable Objects), minus the DevTools inspector.
//
// Why not `wrangler dev` itself: it always attaches an inspector and enables its Network
// domain, so every D1/KV/Durable Object subrequest is streamed as DevTools events through
// a second workerd and into wrangler's node process. Measured on listCards, that costs
// ~3x the CPU of the worker itself, on the same 2 cores as the worker: a dev-tool cost
// that production does not have and that would swamp what the benchmark is to measure.
//
// The worker is served as built (build/ must be current); nothing is watched.
//
// usage: node bench/serve.mjs CONFIG PORT PERSIST_DIR [NAME=VALUE ...]
// Prints "ready <url>" once the worker answers; stops cleanly on SIGTERM/SIGINT.
import { unstable_startWorker } from "wrangler";

const [config, port, persist, ...vars] = process.argv.slice(2);
const bindings = {};
for (const v of vars) {
  const i = v.indexOf("=");
  bindings[v.slice(0, i)] = { type: "plain_text", value: v.slice(i + 1) };
}
const worker = await unstable_startWorker({
  config,
  bindings,
  // No custom build: `make bench` has built the worker, and wrangler would otherwise watch
  // src/ and rebuild and reload it mid-run whenever a file changes (even with watch off).
  build: { custom: { command: "" } },
  dev: {
    remote: false,
    inspector: false,
    persist,
    watch: false,
    liveReload: false,
    logLevel: "warn",
    server: { hostname: "127.0.0.1", port: Number(port) },
  },
});
await worker.ready;
console.log(`ready ${await worker.url}`);
const stop = async () => {
  await worker.dispose();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
