//! Starts the built worker under `wrangler dev` (local workerd with local D1, KV and
//! Durable Objects) on a free port with fresh state, and talks to it over HTTP.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub const ADMIN_TOKEN: &str = "e2e-admin-token";
/// A desktop browser's User-Agent: what the public pages and the lead form see from a
/// person (the analytics count it as one).
pub const BROWSER: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
/// The key of the tokens' checksum in every test server.
pub const TOKEN_PEPPER: &str = "e2e-token-pepper";

pub struct Server {
    pub base: String,
    pub admin_token: Option<String>,
    /// The `--persist-to` directory: D1, KV and Durable Object storage survive a restart.
    pub state: PathBuf,
    vars: Vec<(String, String)>,
}

/// A port no one listens on, below Linux's ephemeral range (32768-60999): a port picked
/// there (`bind(0)`) can become the source port of one of the many outgoing connections
/// of a test run in the seconds before `wrangler dev` binds it ("Address already in use").
fn free_port() -> u16 {
    const FIRST: u16 = 20_000;
    const SPAN: u16 = 12_000;
    // Spread by process so two test runs on one machine rarely probe the same ports.
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let _ = NEXT.compare_exchange(
        0,
        (std::process::id() % u32::from(SPAN)) as u16,
        Ordering::Relaxed,
        Ordering::Relaxed,
    );
    loop {
        let port = FIRST + NEXT.fetch_add(1, Ordering::Relaxed) % SPAN;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// wrangler.toml as the tests run it: the already built worker with no `[build]` step, so
/// wrangler neither rebuilds nor watches `src/` (its watcher restarts the worker once
/// after start-up, failing whatever non-GET request is in flight). Paths are absolute
/// because the copy lives in the state directory, where `.dev.vars` is not read either.
fn test_config(state: &Path) -> PathBuf {
    let root = root();
    let text = std::fs::read_to_string(root.join("wrangler.toml")).expect("read wrangler.toml");
    let mut out = String::new();
    let mut in_build = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            in_build = trimmed.starts_with("[build]");
        }
        if in_build {
            continue;
        }
        let abs = |rel: &str| root.join(rel).display().to_string();
        let line = match trimmed.split_once('=').map(|(k, v)| (k.trim(), v.trim())) {
            Some(("main", v)) => format!("main = \"{}\"", abs(v.trim_matches('"'))),
            Some(("migrations_dir", v)) => {
                format!("migrations_dir = \"{}\"", abs(v.trim_matches('"')))
            }
            Some(("directory", v)) => format!("directory = \"{}\"", abs(v.trim_matches('"'))),
            _ => line.to_string(),
        };
        out.push_str(&line);
        out.push('\n');
    }
    let path = state.join("wrangler.toml");
    std::fs::write(&path, out).expect("write the test wrangler.toml");
    path
}

/// The shared server most tests use.
pub fn server() -> &'static Server {
    static DEFAULT: OnceLock<Server> = OnceLock::new();
    DEFAULT.get_or_init(|| Server::start("default", &[("ADMIN_TOKEN", ADMIN_TOKEN)]))
}

impl Server {
    /// Every file of the server's local state under `under` (`v3`: D1 databases and their
    /// logs, Durable Object storage, KV, queues; `v3/d1`: the D1 files), at any depth.
    pub fn state_files(&self, under: &str) -> Vec<PathBuf> {
        let mut out = vec![];
        let mut dirs = vec![self.state.join(under)];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    out.push(path);
                }
            }
        }
        out
    }

    /// Applies the migrations to a fresh state directory and starts `wrangler dev` with
    /// the given vars. A watchdog stops the server when this test process exits.
    pub fn start(name: &str, vars: &[(&str, &str)]) -> Server {
        let root = root();
        assert!(
            root.join("build/index.js").exists(),
            "build/index.js is missing: run `make test`, which builds the worker first"
        );
        let wrangler = root.join("node_modules/.bin/wrangler");
        let state = root
            .join("target/e2e")
            .join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&state);
        std::fs::create_dir_all(&state).expect("create state dir");
        let _ = &wrangler;
        let out = Command::new(root.join("scripts/migrate-local.sh"))
            .current_dir(root)
            .arg("--config")
            .arg(test_config(&state))
            .arg("--persist-to")
            .arg(&state)
            .output()
            .expect("run scripts/migrate-local.sh");
        assert!(
            out.status.success(),
            "migrations failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let vars = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Server::launch(name, state, vars)
    }

    /// Stops this server and starts a new one (new port) on the same state directory and
    /// vars, as after an eviction of every Durable Object and a cold isolate.
    pub fn restart(self, name: &str) -> Server {
        self.stop();
        Server::launch(name, self.state.clone(), self.vars.clone())
    }

    /// SIGKILLs `wrangler dev` and its runtime, the whole process group, as a crash would:
    /// nothing is flushed and no `waitUntil` finishes. [`Server::relaunch`] starts it again.
    pub fn kill(&self) {
        let pgid = std::fs::read_to_string(self.state.join("wrangler.pid")).unwrap_or_default();
        let pgid = pgid.trim();
        assert!(
            !pgid.is_empty(),
            "no wrangler.pid in {}",
            self.state.display()
        );
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pgid}")])
            .status();
        let started = Instant::now();
        while ureq::get(&format!("{}/", self.base))
            .timeout(Duration::from_millis(500))
            .call()
            .is_ok()
        {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "server did not die"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A new server (new port) on the state and vars of this one, which [`Server::kill`]
    /// ended.
    pub fn relaunch(self, name: &str) -> Server {
        Server::launch(name, self.state.clone(), self.vars.clone())
    }

    /// [`Server::restart`] with other vars (a fault switch turned off, say).
    pub fn restart_with(self, name: &str, vars: &[(&str, &str)]) -> Server {
        self.stop();
        let vars = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Server::launch(name, self.state.clone(), vars)
    }

    /// The shard bindings of the local configuration (`SHARD_*`).
    pub fn shards(&self) -> Vec<String> {
        let text = std::fs::read_to_string(self.state.join("wrangler.toml")).unwrap();
        text.lines()
            .take_while(|l| !l.starts_with("[env."))
            .filter_map(|l| l.strip_prefix("binding = \"SHARD_"))
            .map(|rest| format!("SHARD_{}", rest.trim_end_matches('"')))
            .collect()
    }

    /// [`Server::d1_on`] every shard in turn: the rows of each, one after the other.
    pub fn d1(&self, sql: &str) -> Vec<Value> {
        self.shards()
            .iter()
            .flat_map(|b| self.d1_on(b, sql))
            .collect()
    }

    /// Runs SQL on one local D1 database (`DIRECTORY` or a shard) with wrangler, as an
    /// operator would: only while the server is stopped (it and wrangler would share the
    /// database files). The rows of the last statement.
    pub fn d1_on(&self, binding: &str, sql: &str) -> Vec<Value> {
        let out = Command::new(root().join("node_modules/.bin/wrangler"))
            .current_dir(root())
            .args(["d1", "execute", binding, "--local", "--json", "--config"])
            .arg(self.state.join("wrangler.toml"))
            .arg("--persist-to")
            .arg(&self.state)
            .args(["--command", sql])
            .env("CI", "true")
            .output()
            .expect("run wrangler d1 execute");
        assert!(
            out.status.success(),
            "d1 execute failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).expect("wrangler's JSON");
        v.as_array()
            .and_then(|all| all.last())
            .and_then(|r| r["results"].as_array())
            .cloned()
            .unwrap_or_default()
    }

    /// Runs the cron handler for `cron` (`"* * * * *"`: every minute; `"17 3 * * *"`:
    /// daily), as the platform would; `wrangler dev` fires no trigger by itself.
    pub fn cron(&self, cron: &str) {
        let path = format!("/__scheduled?cron={}", cron.replace(' ', "+"));
        let r = self.call("GET", &path, None, None);
        assert_eq!(r.status, 200, "{cron}: {}", r.body);
    }

    /// Stops `wrangler dev` (its whole process group) and waits until the port is closed.
    pub fn stop(&self) {
        let pgid = std::fs::read_to_string(self.state.join("wrangler.pid")).unwrap_or_default();
        let pgid = pgid.trim();
        assert!(
            !pgid.is_empty(),
            "no wrangler.pid in {}",
            self.state.display()
        );
        let _ = Command::new("kill")
            .args(["-TERM", "--", &format!("-{pgid}")])
            .status();
        let started = Instant::now();
        while ureq::get(&format!("{}/", self.base))
            .timeout(Duration::from_secs(1))
            .call()
            .is_ok()
        {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "server did not stop"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        // workerd flushes its storage on SIGTERM; give the group a moment before a new
        // server opens the same files.
        std::thread::sleep(Duration::from_secs(1));
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pgid}")])
            .stderr(Stdio::null())
            .status();
    }

    /// Starts `wrangler dev` on `state` (already migrated).
    fn launch(name: &str, state: PathBuf, vars: Vec<(String, String)>) -> Server {
        let root = root();
        let wrangler = root.join("node_modules/.bin/wrangler");
        let port = free_port();
        let mut args = vec![
            "dev".to_string(),
            "--config".into(),
            state.join("wrangler.toml").display().to_string(),
            "--ip".into(),
            "127.0.0.1".into(),
            "--port".into(),
            port.to_string(),
            "--persist-to".into(),
            state.display().to_string(),
            "--show-interactive-dev-session=false".into(),
            // Lets tests run the cron handler: GET /__scheduled.
            "--test-scheduled".into(),
            "--inspector-port".into(),
            free_port().to_string(),
            "--var".into(),
            "VISITOR_SALT:e2e-salt".into(),
            "--var".into(),
            format!("TOKEN_PEPPER:{TOKEN_PEPPER}"),
        ];
        let has_admin = vars.iter().any(|(k, _)| k == "ADMIN_TOKEN");
        if !has_admin {
            // Overrides an ADMIN_TOKEN from a developer's .dev.vars.
            args.extend(["--var".into(), "ADMIN_TOKEN:".into()]);
        }
        for (k, v) in &vars {
            args.extend(["--var".into(), format!("{k}:{v}")]);
        }
        let log = state.join(format!("wrangler-{port}.log"));
        let pidfile = state.join("wrangler.pid");
        let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
        let script = format!(
            "setsid '{}' {} >'{}' 2>&1 </dev/null & w=$!; echo $w >'{}'; \
             while kill -0 {parent} 2>/dev/null && kill -0 $w 2>/dev/null; do sleep 1; done; \
             kill -TERM -$w 2>/dev/null; sleep 2; kill -KILL -$w 2>/dev/null; true",
            wrangler.display(),
            quoted.join(" "),
            log.display(),
            pidfile.display(),
            parent = std::process::id(),
        );
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(root)
            // Each server its own dev registry: wrangler dev reloads a worker when another
            // of the same name registers or leaves (a server starting or stopping in a
            // parallel test), and a reload answers 503 to the POSTs in flight.
            .env("WRANGLER_REGISTRY_PATH", state.join("registry"))
            .env("WRANGLER_CI_DISABLE_CONFIG_WATCHING", "true")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn wrangler dev");
        let base = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        loop {
            if let Ok(r) = ureq::get(&format!("{base}/"))
                .timeout(Duration::from_secs(5))
                .call()
            {
                if r.status() == 200 {
                    break;
                }
            }
            if started.elapsed() > Duration::from_secs(120) {
                panic!(
                    "wrangler dev did not become ready on {base}:\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        eprintln!(
            "[e2e] server '{name}' ready on {base} in {:?}",
            started.elapsed()
        );
        Server {
            base,
            admin_token: vars
                .iter()
                .find(|(k, _)| k == "ADMIN_TOKEN")
                .map(|(_, v)| v.clone()),
            state,
            vars,
        }
    }

    pub fn call(&self, method: &str, path: &str, token: Option<&str>, body: Option<&str>) -> Resp {
        call(method, &format!("{}{path}", self.base), token, body, &[])
    }

    pub fn admin(&self, method: &str, path: &str, body: Option<Value>) -> Resp {
        let body = body.map(|b| b.to_string());
        self.call(
            method,
            &format!("/admin/v1{path}"),
            self.admin_token.as_deref(),
            body.as_deref(),
        )
    }

    /// An account; `extra` is merged into the create body (card_limit, features).
    pub fn account(&self, plan: &str, extra: Value) -> i64 {
        let mut body = json!({"name": "E2E account", "plan": plan});
        if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
            b.extend(e.clone());
        }
        let r = self.admin("POST", "/accounts", Some(body));
        assert_eq!(r.status, 201, "{}", r.body);
        r.json()["data"]["id"].as_i64().expect("account id")
    }

    pub fn token(&self, account: i64, scopes: &[&str]) -> String {
        let r = self.admin(
            "POST",
            &format!("/accounts/{account}/tokens"),
            Some(json!({"name": "e2e", "scopes": scopes})),
        );
        assert_eq!(r.status, 201, "{}", r.body);
        r.json()["data"]["token"]
            .as_str()
            .expect("token")
            .to_string()
    }

    /// A fresh enterprise account and a token with the given scopes.
    pub fn tenant(&self, scopes: &[&str]) -> Tenant<'_> {
        let account = self.account("enterprise", json!({}));
        Tenant {
            server: self,
            account,
            token: self.token(account, scopes),
        }
    }
}

pub const ALL_SCOPES: [&str; 4] = ["cards:write", "cards:read", "leads:read", "analytics:read"];

pub struct Tenant<'a> {
    pub server: &'a Server,
    pub account: i64,
    pub token: String,
}

impl Tenant<'_> {
    pub fn get(&self, path: &str) -> Resp {
        self.server
            .call("GET", &format!("/api/v1{path}"), Some(&self.token), None)
    }

    pub fn send(&self, method: &str, path: &str, body: &Value) -> Resp {
        let body = body.to_string();
        self.server.call(
            method,
            &format!("/api/v1{path}"),
            Some(&self.token),
            Some(&body),
        )
    }

    /// Creates a card and returns its JSON.
    pub fn card(&self, body: Value) -> Value {
        let r = self.send("POST", "/cards", &body);
        assert_eq!(r.status, 201, "{}", r.body);
        r.json()["data"].clone()
    }
}

#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    /// The body as JSON. An error body must name its request (`request_id`, the
    /// `X-Request-Id` of the answer; extensions.md 6): checked here for every error the
    /// tests read, then left out so they compare the rest. A replayed answer
    /// (`Idempotent-Replayed`) is the first request's, byte for byte: it names that one.
    pub fn json(&self) -> Value {
        let mut v: Value = serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", self.status, self.body));
        if self.status >= 400 {
            if let Some(body) = v.as_object_mut() {
                let id = body.remove("request_id");
                let header = self.header("x-request-id");
                assert!(header.is_some_and(|h| h.starts_with("req_")), "{self:?}");
                let id = id.as_ref().and_then(Value::as_str);
                if self.header("idempotent-replayed") == Some("true") {
                    assert!(id.is_some_and(|i| i.starts_with("req_")), "{self:?}");
                } else {
                    assert_eq!(id, header, "{self:?}");
                }
            }
        }
        v
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Status, `Content-Type: application/json` and a string `message`: every error body.
    pub fn assert_error(&self, status: u16) -> Value {
        assert_eq!(self.status, status, "{}", self.body);
        assert_eq!(
            self.header("content-type"),
            Some("application/json"),
            "{self:?}"
        );
        let v = self.json();
        assert!(v["message"].is_string(), "{}", self.body);
        v
    }
}

fn agent() -> &'static ureq::Agent {
    static AGENT: OnceLock<ureq::Agent> = OnceLock::new();
    AGENT.get_or_init(|| {
        ureq::AgentBuilder::new()
            .redirects(0)
            .timeout(Duration::from_secs(60))
            .build()
    })
}

/// What wrangler's dev proxy answers to a non-GET request when its connection to the
/// worker's runtime drops (`kj/async-io.c++: disconnected: stream disconnected prematurely`
/// in its log, a keep-alive race between the two workerd processes under bursts of
/// concurrent requests). The text blames a restart, but none happened.
const DEV_PROXY_DROPPED: &str = "Your worker restarted mid-request";

/// One request; repeated (at most 5 times) only when the dev proxy dropped it before the
/// worker answered. Production has no such proxy; every other answer is returned as is.
pub fn call(
    method: &str,
    url: &str,
    token: Option<&str>,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> Resp {
    let mut resp = call_once(method, url, token, body, headers);
    for _ in 0..5 {
        if !(resp.status == 503 && resp.body.contains(DEV_PROXY_DROPPED)) {
            break;
        }
        eprintln!("{method} {url}: wrangler's dev proxy dropped the request; sending it again");
        std::thread::sleep(Duration::from_millis(200));
        resp = call_once(method, url, token, body, headers);
    }
    resp
}

fn call_once(
    method: &str,
    url: &str,
    token: Option<&str>,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> Resp {
    let mut req = agent()
        .request(method, url)
        .set("Accept", "application/json");
    if let Some(t) = token {
        req = req.set("Authorization", &format!("Bearer {t}"));
    }
    for (k, v) in headers {
        req = req.set(k, v);
    }
    let has_type = headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
    let result = match body {
        Some(b) if has_type => req.send_string(b),
        Some(b) => req.set("Content-Type", "application/json").send_string(b),
        None => req.call(),
    };
    let resp = match result {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{method} {url}: {e}"),
    };
    let status = resp.status();
    let headers = resp
        .headers_names()
        .into_iter()
        .filter_map(|n| resp.header(&n).map(|v| (n.clone(), v.to_string())))
        .collect();
    let body = resp.into_string().unwrap_or_default();
    Resp {
        status,
        headers,
        body,
    }
}

/// The body of a post to a card's lead form.
pub enum Lead<'a> {
    /// JSON, as scripts and integrations post (`201` with a message).
    Json(&'a Value),
    /// The page's own form, `application/x-www-form-urlencoded` (`303` back to the page).
    Form(&'a str),
    /// Any other content type, with the body as written.
    Typed(&'a str, &'a str),
}

/// A visitor's post to a card's lead form, `POST /c/{slug}/leads`, with a browser's
/// User-Agent: the one way the e2e tests post leads. `ip` is the visitor
/// (`CF-Connecting-IP`, as the edge sets it; `None`: the dev server's one address, which
/// the per-visitor limit counts across tests); `headers` are added (`Origin`, ...).
pub fn post_lead(
    s: &Server,
    slug: &str,
    ip: Option<&str>,
    body: Lead,
    headers: &[(&str, &str)],
) -> Resp {
    let json;
    let (kind, text) = match body {
        Lead::Json(v) => {
            json = v.to_string();
            ("application/json", json.as_str())
        }
        Lead::Form(f) => ("application/x-www-form-urlencoded", f),
        Lead::Typed(kind, text) => (kind, text),
    };
    let mut all = vec![("User-Agent", BROWSER), ("Content-Type", kind)];
    all.extend(ip.map(|ip| ("CF-Connecting-IP", ip)));
    all.extend_from_slice(headers);
    call(
        "POST",
        &format!("{}/c/{slug}/leads", s.base),
        None,
        Some(text),
        &all,
    )
}

/// The `n`th numbered visitor's lead: `Visitor n`, `vn@example.com`.
pub fn visitor(n: usize) -> Value {
    json!({"name": format!("Visitor {n}"), "email": format!("v{n}@example.com")})
}
