/**
 * The web tools and network shell calls through the real broker, the real egress proxy, real
 * bwrap and the real web tool child. The proxy's resolver and connector are seams here: the
 * "public" test host `test.example` (198.51.100.7) is a loopback server the seam connects to,
 * so nothing leaves the machine. `tests/broker/egress_netns_test.ts` repeats the success path
 * with the real resolver and real routing, inside namespaces.
 */
import assert from "node:assert/strict";
import type { Verdict } from "../../src/danger/verdict.ts";
import { type EgressDecision, EgressProxy } from "../../src/broker/egress_proxy.ts";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";

const network: Verdict = {
  parts: [{ riskClass: "network", subject: "web", targets: [] }],
  decision: "ask",
  reason: "approved in the test",
};
const readOnly: Verdict = {
  parts: [{ riskClass: "read", subject: "web", targets: [] }],
  decision: "allow",
  reason: "read only",
};

/** A loopback listener that counts connections; `test.example` is routed to it by the seam. */
function listen(body = "hello from the test host") {
  const seen: string[] = [];
  let connections = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      seen.push(new URL(request.url).pathname);
      const path = new URL(request.url).pathname;
      if (path.startsWith("/hop/")) {
        const n = Number(path.slice(5));
        return new Response(null, {
          status: 302,
          headers: { location: n > 0 ? `/hop/${n - 1}` : "/page" },
        });
      }
      if (path === "/to-loopback") {
        const port = new URL(request.url).searchParams.get("port");
        return new Response(null, {
          status: 302,
          headers: { location: `http://127.0.0.1:${port}/x` },
        });
      }
      if (path === "/page") {
        return new Response(
          `<html><head><title>Test page</title></head><body><h1>Hi</h1><p>${body} <a href="/next">next</a></p><script>alert(1)</script></body></html>`,
          { headers: { "content-type": "text/html; charset=utf-8" } },
        );
      }
      return new Response(body, { headers: { "content-type": "text/plain" } });
    },
  );
  const tcp = { count: () => connections };
  return { server, seen, tcp, port: server.addr.port, bump: () => connections++ };
}

async function setup(options: { noBwrap?: boolean } = {}) {
  const fixture = await makeSandboxFixture();
  const host = listen();
  const decisions: EgressDecision[] = [];
  const egress = await EgressProxy.start({
    onDecision: (d) => decisions.push(d),
    resolve: (name) =>
      Promise.resolve(
        name === "test.example"
          ? ["198.51.100.7"]
          : name === "sneaky.example"
          ? ["127.0.0.1"]
          : [name],
      ),
    connect: (address, port) => {
      if (address !== "198.51.100.7") {
        throw new Error(`the test seam connects only 198.51.100.7, not ${address}`);
      }
      host.bump();
      return Deno.connect({ hostname: "127.0.0.1", port: port === 80 ? host.port : port });
    },
  });
  const broker = new SandboxBroker({
    context: options.noBwrap ? { ...fixture.context, bwrapPath: null } : fixture.context,
    resolveWorkspace: () => Promise.resolve(fixture.workspace),
    trustLevel: "standard",
    egress,
  });
  return {
    fixture,
    host,
    decisions,
    broker,
    run: (name: string, args: Record<string, unknown>, verdict = network): Promise<ToolResult> =>
      broker.run({ id: "c1", name, args, verdict }),
    [Symbol.asyncDispose]: async () => {
      await broker.close();
      await host.server.shutdown();
      await fixture[Symbol.asyncDispose]();
    },
  };
}

sandboxTest("http_request reaches a public-looking host through the egress proxy", async () => {
  await using s = await setup();
  const result = await s.run("http_request", { url: "http://test.example/hello" });
  assert.ok(result.ok, JSON.stringify(result));
  assert.match(result.output, /^HTTP 200 OK · 24 bytes · http:\/\/test\.example\/hello/);
  assert.ok(result.output.includes("hello from the test host"));
  assert.deepEqual(s.host.seen, ["/hello"]);
  assert.deepEqual(s.decisions, [{
    host: "test.example",
    port: 80,
    address: "198.51.100.7",
    allowed: true,
  }]);
});

sandboxTest("browser returns readable text and absolute links, runs no script", async () => {
  await using s = await setup();
  const result = await s.run("browser", { url: "http://test.example/hop/2" });
  assert.ok(result.ok, JSON.stringify(result));
  assert.ok(result.output.includes("title: Test page"), result.output);
  assert.ok(result.output.includes("next [1]"), result.output);
  assert.ok(result.output.includes("[1] next — http://test.example/next"), result.output);
  assert.ok(!result.output.includes("alert"), result.output);
  assert.ok(
    result.output.includes("redirects: http://test.example/hop/2 → http://test.example/hop/1"),
  );
  assert.deepEqual(s.host.seen, ["/hop/2", "/hop/1", "/hop/0", "/page"]);
});

sandboxTest("web tools without an approved network part request nothing", async () => {
  await using s = await setup();
  const result = await s.run("http_request", { url: "http://test.example/hello" }, readOnly);
  assert.equal(result.ok, false);
  assert.equal(!result.ok && result.error.kind, "denied");
  assert.deepEqual(s.host.seen, []);
  assert.deepEqual(s.decisions, []);
});

sandboxTest(
  "SSRF: loopback directly, by name, by redirect and IPv4-mapped are all refused",
  async () => {
    await using s = await setup();
    let loopbackConnections = 0;
    const loopback = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (loopback.addr as Deno.NetAddr).port;
    void (async () => {
      for await (const conn of loopback) {
        loopbackConnections++;
        conn.close();
      }
    })();
    try {
      const urls = [
        `http://127.0.0.1:${port}/`,
        `https://127.0.0.1:${port}/`,
        `http://sneaky.example:${port}/`,
        `http://[::ffff:127.0.0.1]:${port}/`,
        `https://[::ffff:7f00:1]:${port}/`,
        `http://test.example/to-loopback?port=${port}`,
        `http://169.254.169.254/latest/meta-data/`,
      ];
      for (const url of urls) {
        for (const tool of ["http_request", "browser"]) {
          const result = await s.run(tool, { url });
          assert.equal(result.ok, false, `${tool} ${url}: ${JSON.stringify(result)}`);
          assert.equal(
            !result.ok && result.error.kind,
            "denied",
            `${tool} ${url} ${JSON.stringify(result)}`,
          );
        }
      }
      assert.equal(loopbackConnections, 0);
      const refused = s.decisions.filter((d) => !d.allowed);
      assert.equal(refused.length, urls.length * 2);
      assert.ok(
        refused.every((d) => /loopback|link-local/.test(d.reason ?? "")),
        JSON.stringify(refused),
      );
      // HTTPS: the child sees only a failed tunnel; it reports the destination as fields, and
      // the broker adds the proxy's decision on that host and port.
      const url = `https://[::ffff:7f00:1]:${port}/`;
      const https = await s.run("http_request", { url });
      assert.ok(!https.ok, JSON.stringify(https));
      const reason = "IPv4-mapped form of a loopback address (127.0.0.1)";
      assert.deepEqual(https.error.egress, {
        url,
        host: "::ffff:7f00:1",
        port,
        decision: { allowed: false, reason },
      });
      assert.ok(
        https.error.message.startsWith(
          `The egress proxy refused [::ffff:7f00:1]:${port}: ${reason}.`,
        ),
        https.error.message,
      );
    } finally {
      loopback.close();
    }
  },
);

sandboxTest(
  "a shell call with network reaches the host through HTTP_PROXY; without, only lo",
  async () => {
    await using s = await setup();
    const online = await s.run("shell", {
      command:
        'echo "proxy=$HTTP_PROXY"; ip -o link | cut -d: -f2; curl -sS -m 10 http://test.example/from-shell',
    }, { ...network, parts: [{ riskClass: "network", subject: "curl", targets: [] }] });
    assert.ok(online.ok, JSON.stringify(online));
    assert.match(online.output, /proxy=http:\/\/odek:[0-9a-f]{32}@127\.0\.0\.1:\d+/);
    assert.ok(online.output.includes("hello from the test host"), online.output);
    assert.deepEqual(s.host.seen, ["/from-shell"]);
    const offline = await s.run("shell", {
      command:
        'echo "proxy=$HTTP_PROXY"; ip -o link | cut -d: -f2; curl -sS -m 5 http://test.example/x || echo no-network',
    }, {
      parts: [{ riskClass: "code_execution", subject: "curl", targets: [] }],
      decision: "allow",
      reason: "",
    });
    assert.ok(offline.ok, JSON.stringify(offline));
    assert.match(offline.output, /proxy=\n/);
    assert.ok(offline.output.includes("no-network"), offline.output);
    assert.deepEqual(s.host.seen, ["/from-shell"]);
  },
);

sandboxTest("without bwrap the web child still leaves only through the proxy", async () => {
  await using s = await setup({ noBwrap: true });
  const ok = await s.run("http_request", { url: "http://test.example/plain" });
  assert.ok(ok.ok, JSON.stringify(ok));
  assert.deepEqual(s.host.seen, ["/plain"]);
  const refused = await s.run("http_request", { url: "http://sneaky.example/" });
  assert.equal(!refused.ok && refused.error.kind, "denied", JSON.stringify(refused));
  assert.deepEqual(s.decisions.map((d) => [d.host, d.allowed]), [
    ["test.example", true],
    ["sneaky.example", false],
  ]);
});
