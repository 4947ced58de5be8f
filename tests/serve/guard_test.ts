/**
 * The doors of `odek serve` through `app.request`: token, Host, Origin, body size, upgrade and
 * run-start rate limits, the token page and the security headers.
 */
import assert from "node:assert/strict";
import { body, serveFixture, TEST_TOKEN } from "./_serve_fixture.ts";
import { hostNameOf, tokenMatches } from "../../src/serve/serve_guard.ts";
import { DEFAULT_SERVE_LIMITS } from "../../src/serve/create_app.ts";

Deno.test("serve refuses /api without the token, with a wrong one, and accepts the cookie or bearer", async () => {
  await using s = await serveFixture({ scripts: [] });
  const none = await s.app.request("/api/health", { headers: { host: "127.0.0.1" } });
  assert.equal(none.status, 401);
  assert.equal((await body<{ error: { code: string } }>(none)).error.code, "UNAUTHORIZED");
  const wrong = await s.call("/api/health", { headers: { authorization: "Bearer nope" } });
  assert.equal(wrong.status, 401);
  await wrong.body?.cancel();
  const almost = await s.call("/api/health", {
    headers: { authorization: `Bearer ${TEST_TOKEN.slice(0, -1)}x` },
  });
  assert.equal(almost.status, 401);
  await almost.body?.cancel();
  const bearer = await s.call("/api/health");
  assert.equal(bearer.status, 200);
  assert.equal((await body(bearer)).ok, true);
  const cookie = await s.call("/api/health", { headers: { cookie: `odek_token=${TEST_TOKEN}` } });
  assert.equal(cookie.status, 200);
  await cookie.body?.cancel();
  const ws = await s.app.request("/ws", { headers: { host: "127.0.0.1", upgrade: "websocket" } });
  assert.equal(ws.status, 401);
  await ws.body?.cancel();
});

Deno.test("serve refuses a Host it does not answer to (DNS rebinding), on the API and the page", async () => {
  await using s = await serveFixture({ scripts: [] });
  for (const host of ["evil.example", "127.0.0.1.evil.example", "", "10.0.0.1:80"]) {
    const api = await s.call("/api/health", { headers: { host } });
    assert.equal(api.status, 403, host);
    assert.equal((await body<{ error: { code: string } }>(api)).error.code, "HOST_REFUSED");
    const page = await s.app.request(`/?token=${TEST_TOKEN}`, { headers: { host } });
    assert.equal(page.status, 403, host);
    await page.body?.cancel();
  }
  for (const host of ["127.0.0.1:8080", "localhost", "[::1]:9"]) {
    const ok = await s.call("/api/health", { headers: { host } });
    assert.equal(ok.status, 200, host);
    await ok.body?.cancel();
  }
});

Deno.test("serve refuses a foreign Origin on a POST and on an upgrade; its own origin passes", async () => {
  await using s = await serveFixture({ scripts: [] });
  const foreign = await s.call("/api/runs", {
    method: "POST",
    headers: { origin: "http://evil.example", host: "127.0.0.1:8080" },
    json: { task: "x" },
  });
  assert.equal(foreign.status, 403);
  assert.equal((await body<{ error: { code: string } }>(foreign)).error.code, "ORIGIN_REFUSED");
  const otherPort = await s.call("/api/runs", {
    method: "POST",
    headers: { origin: "http://127.0.0.1:9999", host: "127.0.0.1:8080" },
    json: { task: "x" },
  });
  assert.equal(otherPort.status, 403);
  await otherPort.body?.cancel();
  const crossSite = await s.call("/api/runs", {
    method: "POST",
    headers: { "sec-fetch-site": "cross-site" },
    json: { task: "x" },
  });
  assert.equal(crossSite.status, 403);
  await crossSite.body?.cancel();
  const upgrade = await s.call("/ws", {
    headers: { origin: "http://evil.example", upgrade: "websocket", host: "127.0.0.1:8080" },
  });
  assert.equal(upgrade.status, 403);
  await upgrade.body?.cancel();
  const own = await s.call("/api/sessions/nope/rewind", {
    method: "POST",
    headers: { origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080" },
    json: {},
  });
  assert.equal(own.status, 404); // past the guard: the session does not exist
  await own.body?.cancel();
  assert.equal((await s.runs.list()).length, 0);
});

Deno.test("serve refuses a body over 1 MiB with 413 and starts nothing", async () => {
  await using s = await serveFixture({ scripts: [] });
  const big = await s.call("/api/runs", { method: "POST", json: { task: "x".repeat(1_048_577) } });
  assert.equal(big.status, 413);
  assert.equal((await body<{ error: { code: string } }>(big)).error.code, "BODY_TOO_LARGE");
  assert.equal(s.runs.list().length, 0);
  assert.deepEqual(await s.f.runtime.sessions.list(), []);
});

Deno.test("serve allows 30 WebSocket upgrades a minute per client, then 429", async () => {
  let now = 1_000_000;
  await using s = await serveFixture({ scripts: [], deps: { now: () => now } });
  const statuses: number[] = [];
  for (let i = 0; i < 31; i++) {
    const response = await s.call("/ws", { headers: { upgrade: "websocket" } });
    statuses.push(response.status);
    await response.body?.cancel();
  }
  assert.ok(statuses.slice(0, 30).every((status) => status !== 429), statuses.join());
  assert.equal(statuses[30], 429);
  now += 60_001;
  const later = await s.call("/ws", { headers: { upgrade: "websocket" } });
  assert.notEqual(later.status, 429);
  await later.body?.cancel();
});

Deno.test("serve rate-limits run starts per client (10 a minute by default), then 429 with Retry-After", async () => {
  assert.equal(DEFAULT_SERVE_LIMITS.runStartsPerMinute, 10);
  assert.equal(DEFAULT_SERVE_LIMITS.upgradesPerMinute, 30);
  assert.equal(DEFAULT_SERVE_LIMITS.maxBodyBytes, 1_048_576);
  assert.equal(DEFAULT_SERVE_LIMITS.maxMessageBytes, 262_144);
  await using s = await serveFixture({ scripts: [], deps: { limits: { runStartsPerMinute: 2 } } });
  const bad = { session_id: "missing-session" }; // each start is counted before it is looked up
  const first = await s.call("/api/runs", { method: "POST", json: bad });
  const second = await s.call("/api/runs", { method: "POST", json: bad });
  const third = await s.call("/api/runs", { method: "POST", json: bad });
  assert.deepEqual([first.status, second.status, third.status], [404, 404, 429]);
  assert.ok(Number(third.headers.get("retry-after")) >= 1);
  for (const r of [first, second, third]) await r.body?.cancel();
});

Deno.test("the token page sets an HttpOnly SameSite=Strict cookie, drops the token from the address and is not cached", async () => {
  await using s = await serveFixture({ scripts: [] });
  const opened = await s.app.request(`/?token=${TEST_TOKEN}`, { headers: { host: "127.0.0.1" } });
  assert.equal(opened.status, 303);
  assert.equal(opened.headers.get("location"), "/");
  assert.equal(opened.headers.get("cache-control"), "no-store");
  const cookie = opened.headers.get("set-cookie") ?? "";
  assert.match(cookie, /^odek_token=/);
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Strict/);
  const page = await s.app.request("/", {
    headers: { host: "127.0.0.1", cookie: `odek_token=${TEST_TOKEN}` },
  });
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<script src="\/app.js"/);
  const csp = page.headers.get("content-security-policy") ?? "";
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /script-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline/);
  assert.equal(page.headers.get("x-content-type-options"), "nosniff");
  assert.equal(page.headers.get("referrer-policy"), "no-referrer");
  const wrong = await s.app.request("/?token=wrong", { headers: { host: "127.0.0.1" } });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers.get("set-cookie"), null);
  await wrong.body?.cancel();
  const bare = await s.app.request("/", { headers: { host: "127.0.0.1" } });
  assert.equal(bare.status, 401);
  assert.doesNotMatch(await bare.text(), /app\.js/);
});

Deno.test("tokenMatches() and hostNameOf()", () => {
  assert.equal(tokenMatches("abc", "abc"), true);
  assert.equal(tokenMatches("abd", "abc"), false);
  assert.equal(tokenMatches("ab", "abc"), false);
  assert.equal(tokenMatches("abcd", "abc"), false);
  assert.equal(tokenMatches(undefined, "abc"), false);
  assert.equal(hostNameOf("[::1]:8080"), "::1");
  assert.equal(hostNameOf("LocalHost:1"), "localhost");
  assert.equal(hostNameOf(undefined), undefined);
});
