// `odek mcp serve --http`: the token (bearer header or secret path segment), Host and Origin
// checks (DNS rebinding), the body cap and the loopback-only bind, against the real process;
// the SDK's client reaches it through the token URL. Every request goes to 127.0.0.1 only.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { sandboxTest } from "../../_helpers/sandbox.ts";
import { httpServe, serveArgs, serveFixture } from "./_serve_fixture.ts";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "odek-test", version: "1.0.0" },
  },
});

/** The status of a POST sent over a raw connection (fetch will not send another Host header). */
async function rawPost(port: number, path: string, host: string): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const head = [
      `POST ${path} HTTP/1.1`,
      `Host: ${host}`,
      "Content-Type: application/json",
      "Accept: application/json, text/event-stream",
      `Content-Length: ${new TextEncoder().encode(INITIALIZE).length}`,
      "Connection: close",
      "",
      "",
    ].join("\r\n");
    await conn.write(new TextEncoder().encode(head + INITIALIZE));
    const buffer = new Uint8Array(256);
    const n = await conn.read(buffer);
    const line = new TextDecoder().decode(buffer.subarray(0, n ?? 0)).split("\r\n")[0];
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(line)?.[1] ?? 0);
  } finally {
    conn.close();
  }
}

/** One POST to the server. */
async function post(url: string, headers: Record<string, string> = {}, body = INITIALIZE) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body,
  });
  await response.body?.cancel();
  return response.status;
}

sandboxTest(
  "odek mcp serve --http: the token, Host and Origin are checked; the SDK's client gets in with the token",
  async (t) => {
    await using f = await serveFixture([]);
    await using s = await httpServe(f);

    await t.step(
      "with the token in the path, and as a bearer header, initialize succeeds",
      async () => {
        assert.equal(await post(s.tokenUrl), 200);
        assert.equal(await post(s.url, { authorization: `Bearer ${s.token}` }), 200);
      },
    );
    await t.step("without the token, or with a wrong one, it is refused", async () => {
      assert.equal(await post(s.url), 401);
      assert.equal(await post(s.url, { authorization: `Bearer ${s.token}x` }), 401);
      // One character changed (to another one: a token may already end in "A").
      const other = s.token.endsWith("A") ? "B" : "A";
      assert.equal(await post(s.tokenUrl.replace(s.token, `${s.token.slice(0, -1)}${other}`)), 404);
      assert.equal(await post(`http://127.0.0.1:${s.port}/`), 404);
    });
    await t.step("a foreign Host is refused (DNS rebinding)", async () => {
      const path = new URL(s.tokenUrl).pathname;
      assert.equal(await rawPost(s.port, path, "evil.example.com"), 403);
      assert.equal(await rawPost(s.port, path, `evil.example.com:${s.port}`), 403);
      assert.equal(await rawPost(s.port, path, `localhost:${s.port}`), 200);
      assert.equal(await rawPost(s.port, path, `127.0.0.1:${s.port}`), 200);
    });
    await t.step("a foreign Origin is refused", async () => {
      assert.equal(await post(s.tokenUrl, { origin: "http://evil.example.com" }), 403);
      assert.equal(await post(s.tokenUrl, { origin: "null" }), 403);
      assert.equal(await post(s.tokenUrl, { origin: `http://127.0.0.1:${s.port}` }), 200);
    });
    await t.step("a body over the cap is refused before it is parsed", async () => {
      const big = JSON.stringify({ pad: "x".repeat(5 * 1024 * 1024) });
      assert.equal(await post(s.tokenUrl, {}, big), 413);
    });
    await t.step("the SDK's client lists the tools through the token URL", async () => {
      const client = new Client({ name: "odek-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(s.tokenUrl)));
      try {
        const { tools } = await client.listTools();
        assert.equal(tools[0].name, "run_task");
        assert.ok(tools.some((tool) => tool.name === "read_file"));
      } finally {
        await client.close();
      }
    });
  },
);

sandboxTest(
  "odek mcp serve --http refuses a non-loopback bind without --allow-non-loopback",
  async () => {
    await using f = await serveFixture([]);
    const out = await new Deno.Command(Deno.execPath(), {
      args: serveArgs(["--http", "0.0.0.0:0"]),
      env: f.env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 2);
    assert.match(
      new TextDecoder().decode(out.stderr),
      /binds loopback only[\s\S]*--allow-non-loopback/,
    );
  },
);

sandboxTest(
  "odek mcp serve --http: a 2026-07-28 client is asked through an input-required result before a call that would ask",
  async (t) => {
    await using f = await serveFixture([]);
    await using s = await httpServe(f);
    const client = new Client(
      { name: "odek-test", version: "1.0.0" },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: "auto" },
      } as ConstructorParameters<typeof Client>[1],
    );
    const asked: string[] = [];
    let approve = false;
    client.setRequestHandler("elicitation/create", (request) => {
      asked.push(String(request.params.message));
      return { action: "accept", content: { approve } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.tokenUrl)));
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
      const outside = `${f.fx.home}/canary-mrtr.txt`;
      const write = () =>
        client.callTool({ name: "write_file", arguments: { path: outside, content: "canary\n" } });
      await t.step("declined: asked once, and the call does not run", async () => {
        const result = await write();
        assert.equal(result.isError, true, JSON.stringify(result));
        assert.equal(asked.length, 1);
        assert.match(asked[0], /odek asks before running write_file/);
        await assert.rejects(() => Deno.stat(outside), Deno.errors.NotFound);
      });
      await t.step("approved: the call runs", async () => {
        approve = true;
        const result = await write();
        assert.ok(!result.isError, JSON.stringify(result));
        assert.equal(asked.length, 2);
        assert.equal(await Deno.readTextFile(outside), "canary\n");
      });
    } finally {
      await client.close();
    }
  },
);
