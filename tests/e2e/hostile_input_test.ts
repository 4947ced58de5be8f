import assert from "node:assert/strict";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { odekFixture } from "./_odek.ts";

// Found by the adversarial review: a provider's error body and a bad --workspace path reached
// the terminal with their escape sequences intact (OSC title change, screen clear).

const ESCAPES = "\x1b]0;pwned\x07\x1b[2J";

Deno.test("odek run: escape sequences in a provider's error body never reach the terminal", async () => {
  await using fx = await odekFixture();
  await using server = await startFakeOpenAIServer({
    turns: [{
      fault: {
        type: "status",
        status: 400,
        body: JSON.stringify({ error: { message: `bad ${ESCAPES}request`, type: "x" } }),
      },
    }],
  });
  const result = await fx.run(["run", "--base-url", server.url, "task"]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /answered HTTP 400: bad request/);
  assert.ok(!result.stderr.includes("\x1b"), JSON.stringify(result.stderr));
  assert.ok(!result.stderr.includes("\x07"), JSON.stringify(result.stderr));
});

Deno.test("odek run: escape sequences in an operator-facing error (a bad --workspace) are removed", async () => {
  await using fx = await odekFixture();
  const result = await fx.run(["run", "--workspace", `${fx.workspace}/no-such${ESCAPES}`, "task"]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /no-such/);
  assert.ok(!result.stderr.includes("\x1b"), JSON.stringify(result.stderr));
});

Deno.test("odek run: --events-jsonl pointed at a session journal is refused and the session stays loadable", async () => {
  await using fx = await odekFixture();
  await using server = await startFakeOpenAIServer({ turns: () => ({ text: "done" }) });
  const first = await fx.run(["run", "--base-url", server.url, "first"]);
  assert.equal(first.code, 0, first.stderr);
  const id = (await fx.run(["sessions", "list"])).stdout.split(" ")[0];
  const journal = `${fx.odekHome}/sessions/${id}.jsonl`;
  const before = await Deno.readTextFile(journal);
  const second = await fx.run([
    "run",
    "--base-url",
    server.url,
    "--events-jsonl",
    journal,
    "second",
  ]);
  assert.equal(second.code, 2, second.stderr);
  assert.match(second.stderr, /where odek keeps its sessions and configuration/);
  assert.equal(await Deno.readTextFile(journal), before);
  const show = await fx.run(["sessions", "show", id]);
  assert.equal(show.code, 0, show.stderr);
});
