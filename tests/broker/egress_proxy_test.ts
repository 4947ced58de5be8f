/**
 * The egress proxy on its own, over its Unix socket. Destinations that are allowed go through
 * the `connect` seam to a loopback server (nothing leaves the machine); the namespace test
 * (`egress_netns_test.ts`) covers the real resolver and real connects.
 */
import assert from "node:assert/strict";
import { type EgressDecision, EgressProxy } from "../../src/broker/egress_proxy.ts";
import { parseProxyRequest } from "../../src/broker/_proxy_request.ts";

/** A loopback TCP server that records raw requests and answers a fixed response. */
function rawServer(
  response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
) {
  const requests: string[] = [];
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  void (async () => {
    for await (const conn of listener) {
      const buf = new Uint8Array(16384);
      const n = await conn.read(buf).catch(() => null);
      requests.push(new TextDecoder().decode(buf.subarray(0, n ?? 0)));
      await conn.write(new TextEncoder().encode(response)).catch(() => {});
      conn.close();
    }
  })().catch(() => {});
  return { requests, port: (listener.addr as Deno.NetAddr).port, close: () => listener.close() };
}

async function exchange(socket: string, request: string): Promise<string> {
  const conn = await Deno.connect({ transport: "unix", path: socket });
  await conn.write(new TextEncoder().encode(request));
  const text = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
  return text;
}

Deno.test("EgressProxy forwards plain HTTP in origin form to the checked address", async () => {
  const server = rawServer();
  const resolved: string[] = [];
  const connected: string[] = [];
  const decisions: EgressDecision[] = [];
  const proxy = await EgressProxy.start({
    onDecision: (d) => decisions.push(d),
    resolve: (host) => {
      resolved.push(host);
      return Promise.resolve(["198.51.100.7"]);
    },
    connect: (address, port) => {
      connected.push(`${address}:${port}`);
      return Deno.connect({ hostname: "127.0.0.1", port: server.port });
    },
  });
  try {
    const reply = await exchange(
      proxy.socketPath,
      "POST http://api.example.test:8080/v1/x?q=1 HTTP/1.1\r\nHost: wrong.test\r\nProxy-Authorization: Basic abc\r\nProxy-Connection: keep-alive\r\nContent-Length: 5\r\n\r\nhello",
    );
    assert.match(reply, /^HTTP\/1\.1 200 OK/);
    assert.deepEqual(resolved, ["api.example.test"]);
    assert.deepEqual(connected, ["198.51.100.7:8080"]);
    const sent = server.requests[0];
    assert.match(sent, /^POST \/v1\/x\?q=1 HTTP\/1\.1\r\n/);
    assert.ok(sent.includes("Host: api.example.test:8080\r\n"), sent);
    assert.ok(!/proxy-/i.test(sent), sent);
    assert.ok(sent.includes("Connection: close\r\n"), sent);
    assert.ok(sent.endsWith("\r\n\r\nhello"), sent);
    assert.deepEqual(decisions, [{
      host: "api.example.test",
      port: 8080,
      address: "198.51.100.7",
      allowed: true,
    }]);
  } finally {
    await proxy.close();
    server.close();
  }
});

Deno.test("EgressProxy tunnels CONNECT, bytes sent with the head included", async () => {
  const server = rawServer("pong");
  const proxy = await EgressProxy.start({
    resolve: () => Promise.resolve(["2001:db8::7"]),
    connect: () => Deno.connect({ hostname: "127.0.0.1", port: server.port }),
  });
  try {
    const reply = await exchange(
      proxy.socketPath,
      "CONNECT tls.example.test:443 HTTP/1.1\r\n\r\nping",
    );
    assert.equal(reply, "HTTP/1.1 200 Connection established\r\n\r\npong");
    assert.equal(server.requests[0], "ping");
  } finally {
    await proxy.close();
    server.close();
  }
});

Deno.test("EgressProxy resolves once and connects to what it checked (no rebinding)", async () => {
  const server = rawServer();
  let calls = 0;
  const connected: string[] = [];
  const proxy = await EgressProxy.start({
    // A rebinding resolver: public the first time, loopback afterwards.
    resolve: () => Promise.resolve([calls++ === 0 ? "203.0.113.5" : "127.0.0.1"]),
    connect: (address) => {
      connected.push(address);
      return Deno.connect({ hostname: "127.0.0.1", port: server.port });
    },
  });
  try {
    await exchange(proxy.socketPath, "GET http://rebind.test/ HTTP/1.1\r\n\r\n");
    assert.deepEqual(connected, ["203.0.113.5"]);
    assert.equal(calls, 1);
    const second = await exchange(proxy.socketPath, "GET http://rebind.test/ HTTP/1.1\r\n\r\n");
    assert.match(second, /^HTTP\/1\.1 403 Forbidden/);
    assert.deepEqual(connected, ["203.0.113.5"]);
  } finally {
    await proxy.close();
    server.close();
  }
});

Deno.test("EgressProxy refuses, with the reason, and never connects", async (t) => {
  const connected: string[] = [];
  const decisions: EgressDecision[] = [];
  const log = await Deno.makeTempFile();
  const answers: Record<string, string[]> = {
    "mixed.test": ["198.51.100.7", "10.0.0.5"],
    "meta.test": ["169.254.169.254"],
    "v6.test": ["::1"],
    "nothing.test": [],
  };
  const proxy = await EgressProxy.start({
    allowDomains: ["test", "198.51.100.9", "127.0.0.1", "::ffff:127.0.0.1"],
    logFile: log,
    onDecision: (d) => decisions.push(d),
    resolve: (host) =>
      host === "fails.test"
        ? Promise.reject(new Error("ENOTFOUND fails.test"))
        : Promise.resolve(answers[host] ?? [host]),
    connect: (address) => {
      connected.push(address);
      return Promise.reject(new Error("must not connect"));
    },
  });
  const cases: [string, RegExp][] = [
    ["CONNECT mixed.test:443", /private address \(RFC 1918\), one of its 2 addresses/],
    ["CONNECT meta.test:80", /link-local address \(cloud metadata included\)/],
    ["CONNECT v6.test:443", /loopback address \(::1\)/],
    ["CONNECT nothing.test:443", /resolves to no address/],
    ["CONNECT fails.test:443", /cannot resolve the host \(ENOTFOUND fails\.test\)/],
    ["CONNECT example.com:443", /not in network\.allowDomains/],
    ["CONNECT repo.example.invalid:443", /not in network\.allowDomains/],
    ["CONNECT 198.51.100.7:443", /not in network\.allowDomains/],
    ["CONNECT 127.0.0.1:443", /loopback address/],
    ["CONNECT [::ffff:127.0.0.1]:443", /IPv4-mapped form of a loopback address/],
    ["GET http://meta.test/latest HTTP/1.1", /link-local/],
  ];
  try {
    for (const [line, reason] of cases) {
      await t.step(line, async () => {
        const request = line.startsWith("CONNECT") ? `${line} HTTP/1.1\r\n\r\n` : `${line}\r\n\r\n`;
        const reply = await exchange(proxy.socketPath, request);
        assert.match(reply, /^HTTP\/1\.1 403 Forbidden\r\n/);
        assert.match(reply, /\r\nX-Odek-Egress: refused\r\n/);
        assert.match(reply, reason);
      });
    }
    assert.deepEqual(connected, []);
    assert.equal(decisions.length, cases.length);
    assert.ok(decisions.every((d) => !d.allowed && d.reason));
    await proxy.close();
    const lines = (await Deno.readTextFile(log)).trim().split("\n");
    assert.equal(lines.length, cases.length);
    assert.match(lines[0], /^\S+Z refused "mixed\.test:443" 10\.0\.0\.5 "private address/);
    assert.match(lines[9], /refused "\[::ffff:127\.0\.0\.1\]:443"/);
  } finally {
    await proxy.close();
    await Deno.remove(log);
  }
});

Deno.test("EgressProxy answers malformed requests with 400 or 405 and a failed connect with 502", async () => {
  const decisions: EgressDecision[] = [];
  const proxy = await EgressProxy.start({
    onDecision: (d) => decisions.push(d),
    resolve: () => Promise.resolve(["198.51.100.7", "198.51.100.8"]),
    connect: (address) => Promise.reject(new Error(`refused by ${address}`)),
  });
  try {
    assert.match(await exchange(proxy.socketPath, "hello\r\n\r\n"), /^HTTP\/1\.1 400 /);
    assert.match(
      await exchange(proxy.socketPath, "GET /relative HTTP/1.1\r\n\r\n"),
      /^HTTP\/1\.1 400 /,
    );
    assert.match(
      await exchange(proxy.socketPath, "GET https://x.test/ HTTP/1.1\r\n\r\n"),
      /^HTTP\/1\.1 405 [\s\S]*use CONNECT/,
    );
    assert.match(
      await exchange(proxy.socketPath, "CONNECT x.test HTTP/1.1\r\n\r\n"),
      /^HTTP\/1\.1 400 /,
    );
    assert.match(
      await exchange(proxy.socketPath, "CONNECT x.test:0 HTTP/1.1\r\n\r\n"),
      /^HTTP\/1\.1 400 /,
    );
    assert.match(
      await exchange(proxy.socketPath, `GET http://x.test/ HTTP/1.1\r\nA: ${"x".repeat(40_000)}`),
      /^HTTP\/1\.1 400 /,
    );
    const failed = await exchange(proxy.socketPath, "CONNECT up.test:443 HTTP/1.1\r\n\r\n");
    assert.match(
      failed,
      /^HTTP\/1\.1 502 Bad Gateway[\s\S]*refused by 198\.51\.100\.7; 198\.51\.100\.8: refused by 198\.51\.100\.8/,
    );
    assert.deepEqual(
      decisions.map((d) => [d.host, d.allowed, d.reason?.startsWith("cannot connect")]),
      [
        ["up.test", true, true],
      ],
    );
  } finally {
    await proxy.close();
  }
});

Deno.test("EgressProxy.close() cuts open tunnels and removes its socket directory", async () => {
  const hold = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  void (async () => {
    for await (const conn of hold) held.push(conn);
  })().catch(() => {});
  const proxy = await EgressProxy.start({
    resolve: () => Promise.resolve(["198.51.100.7"]),
    connect: () => Deno.connect({ hostname: "127.0.0.1", port: (hold.addr as Deno.NetAddr).port }),
  });
  const conn = await Deno.connect({ transport: "unix", path: proxy.socketPath });
  await conn.write(new TextEncoder().encode("CONNECT idle.test:443 HTTP/1.1\r\n\r\n"));
  const reading = new Response(conn.readable).text();
  while (held.length === 0) await new Promise((r) => setTimeout(r, 10));
  await proxy.close();
  assert.equal(await reading, "HTTP/1.1 200 Connection established\r\n\r\n");
  await assert.rejects(Deno.stat(proxy.socketPath), Deno.errors.NotFound);
  for (const c of held) c.close();
  hold.close();
});

Deno.test("parseProxyRequest() reads CONNECT and absolute-URI requests, refuses the rest", () => {
  assert.deepEqual(parseProxyRequest("CONNECT a.test:443 HTTP/1.1"), {
    type: "connect",
    host: "a.test",
    port: 443,
  });
  assert.deepEqual(parseProxyRequest("CONNECT [2001:db8::1]:8443 HTTP/1.1\r\nHost: x"), {
    type: "connect",
    host: "2001:db8::1",
    port: 8443,
  });
  const forward = parseProxyRequest(
    "GET http://[2001:db8::1]/p HTTP/1.0\r\nAccept: */*\r\nKeep-Alive: 5",
  );
  assert.deepEqual(forward, {
    type: "forward",
    host: "2001:db8::1",
    port: 80,
    head: "GET /p HTTP/1.1\r\nHost: [2001:db8::1]\r\nAccept: */*\r\nConnection: close\r\n\r\n",
  });
  for (
    const bad of [
      "",
      "GET http://a.test/ HTTP/2",
      "get http://a.test/ HTTP/1.1",
      "CONNECT a.test:99999 HTTP/1.1",
      "CONNECT user@a.test:443 HTTP/1.1",
      "GET http://u:p@a.test/ HTTP/1.1",
      "GET ftp://a.test/ HTTP/1.1",
      "GET http://a.test/ HTTP/1.1\r\n folded",
      "GET http://a.test/ HTTP/1.1\r\nno-colon",
    ]
  ) {
    assert.notEqual(parseProxyRequest(bad).type, "connect", bad);
    assert.notEqual(parseProxyRequest(bad).type, "forward", bad);
  }
});

Deno.test("EgressProxy refuses .invalid names without looking them up", async () => {
  const looked: string[] = [];
  const proxy = await EgressProxy.start({
    resolve: (host) => {
      looked.push(host);
      return Promise.resolve(["198.51.100.7"]);
    },
    connect: () => Promise.reject(new Error("must not connect")),
  });
  try {
    for (const host of ["example.invalid", "a.b.INVALID.", "invalid"]) {
      const reply = await exchange(proxy.socketPath, `CONNECT ${host}:443 HTTP/1.1\r\n\r\n`);
      assert.match(reply, /^HTTP\/1\.1 403 [\s\S]*reserved \.invalid name/, host);
    }
    assert.deepEqual(looked, []);
  } finally {
    await proxy.close();
  }
});

Deno.test("EgressProxy answers 503 past its connection cap instead of piling up", async () => {
  const proxy = await EgressProxy.start({ resolve: () => Promise.resolve([]) });
  const idle: Deno.Conn[] = [];
  try {
    for (let i = 0; i < 512; i++) {
      idle.push(await Deno.connect({ transport: "unix", path: proxy.socketPath }));
    }
    let reply = "";
    for (let i = 0; i < 50 && !reply.startsWith("HTTP/1.1 503"); i++) {
      reply = await exchange(proxy.socketPath, "CONNECT x.test:443 HTTP/1.1\r\n\r\n");
    }
    assert.match(reply, /^HTTP\/1\.1 503 Service Unavailable[\s\S]*at most 256 connections/);
    for (const conn of idle.splice(0)) conn.close();
    let after = "";
    for (let i = 0; i < 100 && !after.startsWith("HTTP/1.1 403"); i++) {
      await new Promise((r) => setTimeout(r, 10));
      after = await exchange(proxy.socketPath, "CONNECT x.test:443 HTTP/1.1\r\n\r\n");
    }
    assert.match(after, /^HTTP\/1\.1 403 /);
  } finally {
    for (const conn of idle) conn.close();
    await proxy.close();
  }
});

Deno.test("EgressProxy.start() removes directories killed proxies left, and only those", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "odek-sweep-" });
  const old = new Date(Date.now() - 3_600_000);
  const make = async (name: string, listen: "dead" | "live" | "none", age = old) => {
    const dir = `${tmp}/${name}`;
    await Deno.mkdir(dir);
    let live: Deno.Listener | undefined;
    if (listen !== "none") {
      live = Deno.listen({ transport: "unix", path: `${dir}/proxy.sock` });
      if (listen === "dead") live.close();
    }
    await Deno.utime(dir, age, age);
    return live;
  };
  await make("odek-egress-dead", "dead");
  await make("odek-egress-empty", "none");
  const live = await make("odek-egress-live", "live");
  await make("odek-egress-young", "dead", new Date());
  await make("other-dead", "dead");
  const proxy = await EgressProxy.start({ dir: tmp });
  try {
    const names: string[] = [];
    for await (const entry of Deno.readDir(tmp)) names.push(entry.name);
    assert.deepEqual(
      names.filter((n) => !proxy.socketPath.includes(n)).sort(),
      ["odek-egress-live", "odek-egress-young", "other-dead"],
    );
  } finally {
    await proxy.close();
    live?.close();
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("EgressProxy refuses hosts a deny rule names before resolving them, whatever the allow-list", async (t) => {
  const resolved: string[] = [];
  const proxy = await EgressProxy.start({
    denyDomains: ["*.denied.test", "exact.test"],
    resolve: (host) => {
      resolved.push(host);
      return Promise.resolve(["198.51.100.7"]);
    },
    connect: () => Promise.reject(new Error("must not connect")),
  });
  try {
    for (const host of ["denied.test", "api.denied.test", "exact.test"]) {
      await t.step(host, async () => {
        const reply = await exchange(proxy.socketPath, `CONNECT ${host}:443 HTTP/1.1\r\n\r\n`);
        assert.match(reply, /^HTTP\/1\.1 403 Forbidden\r\n/);
        assert.match(reply, /denied by the deny rule "(\*\.denied\.test|exact\.test)"/);
      });
    }
    assert.deepEqual(resolved, [], "a denied host is never looked up");
    const other = await exchange(proxy.socketPath, "CONNECT sub.exact.test:443 HTTP/1.1\r\n\r\n");
    assert.doesNotMatch(other, /deny rule/);
  } finally {
    await proxy.close();
  }
});
