import assert from "node:assert/strict";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { odekFixture, toolMessages } from "./_odek.ts";

sandboxTest(
  "odek run: an approved web call to loopback is refused, reported as an egress event and logged",
  async () => {
    let connections = 0;
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    void (async () => {
      for await (const conn of listener) {
        connections++;
        conn.close();
      }
    })().catch(() => {});
    await using fx = await odekFixture();
    const server = await startFakeOpenAIServer({
      turns: [
        {
          toolCalls: [
            { id: "web", name: "http_request", arguments: { url: `http://localhost:${port}/x` } },
            {
              id: "sh",
              name: "shell",
              arguments: {
                command:
                  `curl -sS -m 10 http://[::ffff:127.0.0.1]:${port}/y; echo "[$HTTPS_PROXY]"`,
              },
            },
          ],
        },
        { text: "done" },
      ],
    });
    try {
      const result = await fx.run(
        ["run", "--json", "--yes=network,code_execution", "--base-url", server.url, "fetch it"],
        { noTerminal: true, env: { ODEK_ALLOW_DOMAINS: "localhost,::ffff:7f00:1" } },
      );
      assert.equal(result.code, 0, result.stderr);
      const results = Object.fromEntries(
        toolMessages(server.requests[1].body).map((m) => [m.tool_call_id, m.content]),
      );
      assert.match(
        results.web,
        /^error \(denied\): The egress proxy refused localhost:\d+: loopback/,
      );
      assert.match(results.sh, /odek egress refused \[::ffff:7f00:1\]:\d+: IPv4-mapped form/);
      // The proxy URL carries the call's credential, which the journal redacts.
      assert.match(results.sh, /\[http:\/\/odek:\S+@127\.0\.0\.1:\d+\]/);
      assert.equal(connections, 0);
      const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
      const egress = events.filter((e) => e.type === "egress").map((e) => e.data)
        .sort((a, b) => a.host.localeCompare(b.host)); // the two calls run in parallel
      assert.deepEqual(egress, [
        {
          host: "::ffff:7f00:1",
          port,
          address: "::ffff:7f00:1",
          allowed: false,
          reason: "IPv4-mapped form of a loopback address (127.0.0.1)",
        },
        {
          host: "localhost",
          port,
          address: "127.0.0.1",
          allowed: false,
          reason: "loopback address",
        },
      ]);
      const log = await Deno.readTextFile(`${fx.odekHome}/logs/egress.log`);
      assert.match(log, /refused "localhost:\d+" 127\.0\.0\.1 "loopback address"/);
      assert.match(log, /refused "\[::ffff:7f00:1\]:\d+" ::ffff:7f00:1 "IPv4-mapped/);
    } finally {
      await server.close();
      listener.close();
    }
  },
);
