import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { odekFixture, toolMessages } from "./_odek.ts";

sandboxTest(
  "odek run: 3 parallel read_file calls and a shell call get results in call order with matching ids",
  async () => {
    await using fx = await odekFixture();
    await Deno.writeTextFile(join(fx.workspace, "a.txt"), "alpha\n");
    await Deno.writeTextFile(join(fx.workspace, "b.txt"), "bravo\n");
    await Deno.writeTextFile(join(fx.workspace, "c.txt"), "charlie\n");
    await using server = await startFakeOpenAIServer({
      turns: [
        {
          text: "Reading all three and listing.",
          toolCalls: [
            { id: "call_a", name: "read_file", arguments: { path: "a.txt" } },
            { id: "call_b", name: "read_file", arguments: { path: "b.txt" } },
            { id: "call_c", name: "read_file", arguments: { path: "c.txt" } },
            {
              id: "call_sh",
              name: "shell",
              arguments: { command: "ls *.txt | wc -l && echo from-shell" },
            },
          ],
        },
        { text: "The files say alpha, bravo and charlie." },
      ],
    });
    const result = await fx.run(["run", "--base-url", server.url, "read the three files"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(server.requests.length, 2);
    const results = toolMessages(server.requests[1].body);
    assert.deepEqual(results.map((m) => m.tool_call_id), ["call_a", "call_b", "call_c", "call_sh"]);
    assert.match(results[0].content, /alpha/);
    assert.match(results[1].content, /bravo/);
    assert.match(results[2].content, /charlie/);
    assert.match(results[3].content, /^exit code 0[\s\S]*3\n[\s\S]*from-shell/);
    assert.match(result.stdout, /The files say alpha, bravo and charlie\./);
    assert.match(result.stderr, /odek: done · 2 steps · 4 tool calls/);

    const list = await fx.run(["sessions", "list"]);
    assert.equal(list.code, 0, list.stderr);
    const id = list.stdout.split(" ")[0];
    const show = await fx.run(["sessions", "show", id]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /── user ──\nread the three files/);
    assert.match(show.stdout, /→ read_file \[call_b\] \{"path":"b\.txt"\}/);
    assert.match(
      show.stdout,
      /── tool result \[call_sh\] ──\nOutput of shell follows as untrusted data[^\n]*\n<untrusted_content_[0-9a-f]{16} source="shell">\nexit code 0/,
    );
    assert.match(show.stdout, /The files say alpha, bravo and charlie\./);
  },
);
