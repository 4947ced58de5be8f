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

Deno.test("odek run: --record never replaces a file that is not a cassette, nor one inside ODEK_HOME", async () => {
  // Found by the adversarial review: --record main.ts (or a session journal) replaced the file
  // with a cassette after the first turn.
  await using fx = await odekFixture();
  await using server = await startFakeOpenAIServer({ turns: () => ({ text: "done" }) });
  const source = `${fx.workspace}/main.ts`;
  await Deno.writeTextFile(source, "console.log(1);\n");
  const run = (record: string) =>
    fx.run(["run", "--base-url", server.url, "--record", record, "task"]);
  const refused = await run(source);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /exists and is not an odek cassette/);
  assert.equal(await Deno.readTextFile(source), "console.log(1);\n");
  const inside = await run(`${fx.odekHome}/config.jsonc`);
  assert.equal(inside.code, 2, inside.stderr);
  assert.match(inside.stderr, /where odek keeps its sessions and configuration/);
  // A new file, then the same cassette again (re-recording), are fine.
  const cassette = `${fx.workspace}/turns.cassette.json`;
  assert.equal((await run(cassette)).code, 0);
  const again = await run(cassette);
  assert.equal(again.code, 0, again.stderr);
  assert.match(await Deno.readTextFile(cassette), /"schema": "odek.cassette\/v1"/);
});
