/**
 * The web child's HTTP client in process: the real egress proxy (resolver and connector seams
 * route `*.example.test` names to one loopback server) and the real forwarder.
 */
import assert from "node:assert/strict";
import { EgressProxy } from "../../src/broker/egress_proxy.ts";
import { EgressRefusal, ToolFailure } from "../../tools/_catalogue/tool_failure.ts";
import { EgressClient, MAX_REDIRECTS } from "../../tools/_web_fetch.ts";

interface Seen {
  host: string;
  method: string;
  path: string;
  authorization: string | null;
  body: string;
}

async function setup() {
  const seen: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const url = new URL(request.url);
    seen.push({
      host: request.headers.get("host") ?? "",
      method: request.method,
      path: url.pathname,
      authorization: request.headers.get("authorization"),
      body: await request.text(),
    });
    const to = url.searchParams.get("to");
    const status = Number(url.searchParams.get("status") ?? 302);
    if (to !== null) return new Response(null, { status, headers: { location: to } });
    if (url.pathname === "/loop") {
      return new Response(null, { status: 302, headers: { location: "/loop" } });
    }
    if (url.pathname === "/big") return new Response("x".repeat(5000));
    return new Response(`${request.method} ${url.pathname}`);
  });
  const proxy = await EgressProxy.start({
    resolve: (host) => Promise.resolve(host.endsWith(".example.test") ? ["198.51.100.7"] : [host]),
    connect: () => Deno.connect({ hostname: "127.0.0.1", port: server.addr.port }),
  });
  const client = new EgressClient(proxy.socketPath);
  const send = (url: string, extra: Partial<Parameters<EgressClient["send"]>[0]> = {}) =>
    client.send({
      url,
      method: "GET",
      headers: {},
      timeoutMs: 10_000,
      maxBytes: 1 << 20,
      ...extra,
    });
  return {
    seen,
    send,
    [Symbol.asyncDispose]: async () => {
      client.close();
      await proxy.close();
      await server.shutdown();
    },
  };
}

Deno.test("EgressClient: a 303 (and a 302 after POST) becomes a GET without a body", async () => {
  await using s = await setup();
  const response = await s.send("http://a.example.test/start?to=/next&status=303", {
    method: "POST",
    body: "payload",
    headers: { "content-type": "text/plain" },
  });
  assert.equal(response.status, 200);
  assert.equal(new TextDecoder().decode(response.body), "GET /next");
  assert.deepEqual(response.hops, [
    "http://a.example.test/start?to=/next&status=303",
    "http://a.example.test/next",
  ]);
  assert.deepEqual(s.seen.map((x) => [x.method, x.body]), [["POST", "payload"], ["GET", ""]]);
  const kept = await s.send("http://a.example.test/s?to=/put&status=307", {
    method: "PUT",
    body: "b",
  });
  assert.equal(new TextDecoder().decode(kept.body), "PUT /put");
  assert.equal(s.seen.at(-1)!.body, "b");
});

Deno.test("EgressClient drops credentials when a redirect changes origin", async () => {
  await using s = await setup();
  await s.send("http://a.example.test/r?to=/same", { headers: { authorization: "Bearer t" } });
  await s.send("http://a.example.test/r?to=http://b.example.test/other", {
    headers: { authorization: "Bearer t" },
  });
  assert.deepEqual(s.seen.map((x) => [x.host, x.path, x.authorization]), [
    ["a.example.test", "/r", "Bearer t"],
    ["a.example.test", "/same", "Bearer t"],
    ["a.example.test", "/r", "Bearer t"],
    ["b.example.test", "/other", null],
  ]);
});

Deno.test(`EgressClient stops after ${MAX_REDIRECTS} redirects and refuses other schemes`, async () => {
  await using s = await setup();
  await assert.rejects(s.send("http://a.example.test/loop"), (error: unknown) => {
    assert.ok(error instanceof ToolFailure && error.kind === "failed");
    assert.match(error.message, /Stopped after 10 redirects/);
    return true;
  });
  assert.equal(s.seen.length, MAX_REDIRECTS + 1);
  await assert.rejects(
    s.send("http://a.example.test/r?to=file:///etc/passwd"),
    /Only http:\/\/ and https:\/\/ URLs are fetched/,
  );
  await assert.rejects(s.send("ftp://a.example.test/"), /Only http:\/\/ and https:\/\//);
  await assert.rejects(s.send("http://u:p@a.example.test/"), /credentials/);
});

Deno.test("EgressClient caps the body it reads and says so", async () => {
  await using s = await setup();
  const response = await s.send("http://a.example.test/big", { maxBytes: 1000 });
  assert.equal(response.body.length, 1000);
  assert.equal(response.truncated, true);
  const whole = await s.send("http://a.example.test/big");
  assert.equal(whole.body.length, 5000);
  assert.equal(whole.truncated, false);
});

Deno.test("EgressClient refuses what the proxy refuses, with its reason", async () => {
  await using s = await setup();
  await assert.rejects(s.send("http://127.0.0.1:8080/"), (error: unknown) => {
    assert.ok(error instanceof EgressRefusal && error.kind === "denied");
    assert.match(error.message, /^odek egress refused 127\.0\.0\.1:8080: loopback address\./);
    assert.deepEqual([error.host, error.port], ["127.0.0.1", 8080]);
    return true;
  });
  await assert.rejects(s.send("https://10.0.0.1/"), (error: unknown) => {
    assert.ok(error instanceof EgressRefusal && error.kind === "denied");
    assert.match(error.message, /refused or could not reach 10\.0\.0\.1:443/);
    assert.deepEqual([error.host, error.port], ["10.0.0.1", 443]);
    return true;
  });
  assert.deepEqual(s.seen, []);
});
