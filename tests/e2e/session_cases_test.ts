/**
 * Issue 14's session cases against a real odek and the fake server in strict mode: ids unique
 * across resumes (case 2), a damaged journal repaired on load without rewriting it, a torn tail
 * said (case 8), and a session that never reached the model removed with its task printed back
 * (case 10).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { type OdekFixture, odekFixture, toolMessages } from "./_odek.ts";

async function fixture(): Promise<OdekFixture> {
  const fx = await odekFixture();
  await Deno.writeTextFile(
    join(fx.odekHome, "config.jsonc"),
    JSON.stringify({ sandbox: "none", retry: { baseMs: 10 } }),
  );
  await Deno.writeTextFile(join(fx.workspace, "a.txt"), "alpha\n");
  await Deno.writeTextFile(join(fx.workspace, "b.txt"), "beta\n");
  return fx;
}

const journalPath = (fx: OdekFixture, id: string) => join(fx.odekHome, "sessions", `${id}.jsonl`);
const at = "2026-01-01T00:00:00.000Z";

Deno.test("odek continue (case 2): generated and restarted ids stay unique within the session", async () => {
  await using fx = await fixture();
  const glob = (pattern: string, id?: null) => ({
    toolCalls: [{ ...(id === null ? { id } : {}), name: "glob", arguments: { pattern } }],
  });
  // Without an id the client mints it1-call0 in every run; a fresh provider starts call_1_0 again.
  const runs: [string[], ReturnType<typeof glob>][] = [
    [["run", "--session", "ids", "first"], glob("*.a", null)],
    [["continue", "ids", "second"], glob("*.b", null)],
    [["continue", "ids", "third"], glob("*.c")],
    [["continue", "ids", "fourth"], glob("*.d")],
  ];
  let last: string[] = [];
  for (const [args, turn] of runs) {
    await using server = await startFakeOpenAIServer({
      turns: [turn, { text: "ok" }],
      strict: true,
    });
    const result = await fx.run([...args, "--base-url", server.url]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(server.requests[1].refused, undefined, server.requests[1].refusal);
    last = toolMessages(server.requests[1].body).map((m) => m.tool_call_id);
  }
  assert.deepEqual(last, ["it1-call0", "it1-call0-r2", "call_1_0", "call_1_0-r2"]);
});

Deno.test("odek continue repairs a journal damaged by cases 1 and 2 on load, never rewriting it", async () => {
  await using fx = await fixture();
  const call = (id: string, args: string) => ({
    id,
    type: "function",
    function: { name: "read_file", arguments: args },
  });
  const message = (m: unknown) => JSON.stringify({ t: "message", at, message: m });
  const lines = [
    JSON.stringify({
      t: "meta",
      v: 1,
      id: "damaged",
      createdAt: at,
      workspace: fx.workspace,
      model: "gpt-4.1-mini",
      baseUrl: "http://127.0.0.1:9/v1",
      title: "read",
    }),
    message({ role: "system", content: "You are odek." }),
    message({ role: "user", content: "read both" }),
    // Case 1 before its fix: two calls merged into one.
    message({
      role: "assistant",
      content: null,
      tool_calls: [call("it1-call0", '{"path":"a.txt"}{"path":"b.txt"}')],
    }),
    message({ role: "tool", tool_call_id: "it1-call0", content: "error (invalid_arguments): …" }),
    message({ role: "assistant", content: "Could not read." }),
    message({ role: "user", content: "again" }),
    // Case 2 before its fix: the resumed run minted the same id.
    message({
      role: "assistant",
      content: null,
      tool_calls: [call("it1-call0", '{"path":"a.txt"}')],
    }),
    message({ role: "tool", tool_call_id: "it1-call0", content: "alpha" }),
    message({ role: "assistant", content: "alpha." }),
  ];
  const original = `${lines.join("\n")}\n`;
  await Deno.mkdir(join(fx.odekHome, "sessions"), { recursive: true, mode: 0o700 });
  await Deno.writeTextFile(journalPath(fx, "damaged"), original, { mode: 0o600 });
  for (const pass of [1, 2]) {
    await using server = await startFakeOpenAIServer({ turns: [{ text: "fine" }], strict: true });
    const result = await fx.run([
      "continue",
      "damaged",
      `go on ${pass}`,
      "--base-url",
      server.url,
      "--json",
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(server.requests[0].refused, undefined, server.requests[0].refusal);
    const sent = server.requests[0].body.messages.filter((
      m: { role: string; tool_calls?: unknown },
    ) => m.role === "assistant" && m.tool_calls);
    assert.deepEqual(sent.map((m: { tool_calls: { id: string }[] }) => m.tool_calls[0].id), [
      "it1-call0",
      "it1-call0-r2",
    ]);
    assert.equal(sent[0].tool_calls[0].function.arguments, "{}");
    assert.deepEqual(toolMessages(server.requests[0].body).map((m) => m.tool_call_id), [
      "it1-call0",
      "it1-call0-r2",
    ]);
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    const repaired = events.find((e) => e.type === "session_repaired");
    if (pass === 1) {
      assert.deepEqual(repaired.data.reminted, [{ from: "it1-call0", to: "it1-call0-r2" }]);
      assert.deepEqual(repaired.data.arguments_reset, ["it1-call0"]);
    }
  }
  const text = await Deno.readTextFile(journalPath(fx, "damaged"));
  assert.ok(text.startsWith(original), "the journal was rewritten");
  const records = text.trim().split("\n").map((line) => JSON.parse(line));
  const repairs = records.filter((r) => r.t === "session_repaired");
  assert.equal(repairs.length, 1, "the second load repaired the same way without a new record");
  assert.deepEqual(repairs[0].calls, [
    {
      message: 2,
      position: 0,
      id: "it1-call0",
      originalArguments: '{"path":"a.txt"}{"path":"b.txt"}',
    },
    { message: 6, position: 0, id: "it1-call0-r2", originalId: "it1-call0" },
  ]);
});

Deno.test("odek continue (case 8): a torn journal tail is set aside and said, naming the file", async () => {
  await using fx = await fixture();
  await using server = await startFakeOpenAIServer({
    turns: [{ text: "first" }, { text: "second" }],
  });
  const first = await fx.run(["run", "--session", "torn", "--base-url", server.url, "start"]);
  assert.equal(first.code, 0, first.stderr);
  const path = journalPath(fx, "torn");
  const tail = `{"t":"message","at":"${at}","message":{"role":"us`;
  await Deno.writeTextFile(path, tail, { append: true });
  const next = await fx.run(["continue", "torn", "more", "--base-url", server.url, "--json"]);
  assert.equal(next.code, 0, next.stderr);
  const torn = `${path}.torn`;
  assert.equal(await Deno.readTextFile(torn), tail);
  assert.match(
    next.stderr,
    new RegExp(
      `odek: warning: the end of session torn's journal was damaged \\(${tail.length} bytes.*moved to ${
        torn.replaceAll(".", "\\.")
      }`,
    ),
  );
  const events = next.stdout.trim().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(events.find((e) => e.type === "session_torn_tail").data, {
    path: torn,
    bytes: tail.length,
  });
});

Deno.test("odek run (case 10): a session whose first model request failed is removed and its task printed back", async () => {
  await using fx = await fixture();
  const body = JSON.stringify({ error: { message: "Incorrect API key provided." } });
  await using server = await startFakeOpenAIServer({
    turns: [{ fault: { type: "status", status: 401, body } }],
  });
  const task = "Rename the config loader\nand keep its tests green";
  const result = await fx.run(["run", "--base-url", server.url, task]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /HTTP 401: Incorrect API key provided\./);
  assert.match(result.stderr, /so nothing in it is worth keeping: it is removed/);
  assert.doesNotMatch(result.stderr, /odek continue/);
  assert.ok(result.stderr.includes(`your task was:\n\n${task}\n`), result.stderr);
  const list = await fx.run(["sessions", "list"]);
  assert.doesNotMatch(list.stdout, /Rename/, "the session is gone");
  // A session that got a reply once is kept, whatever fails later.
  await using good = await startFakeOpenAIServer({
    turns: [{ text: "hi" }, { fault: { type: "status", status: 401, body } }],
  });
  assert.equal((await fx.run(["run", "--session", "kept", "--base-url", good.url, "hi"])).code, 0);
  const again = await fx.run(["continue", "kept", "more", "--base-url", good.url]);
  assert.equal(again.code, 1, again.stderr);
  assert.match(again.stderr, /The session is saved: resume it with odek continue kept/);
  assert.match((await fx.run(["sessions", "list"])).stdout, /kept/);
});

Deno.test("odek sessions list: each session's workspace, --workspace keeps one directory's, --json", async () => {
  await using fx = await fixture();
  await using server = await startFakeOpenAIServer({ turns: [{ text: "hi" }] });
  const run = await fx.run(["run", "--session", "listed", "--base-url", server.url, "hi"]);
  assert.equal(run.code, 0, run.stderr);
  const workspace = await Deno.realPath(fx.workspace);
  const text = await fx.run(["sessions", "list"]);
  assert.match(text.stdout, new RegExp(`^listed .* in ${workspace}$`, "m"));
  const json = await fx.run(["sessions", "list", "--json"]);
  const sessions = JSON.parse(json.stdout) as { id: string; workspace: string; locked: boolean }[];
  assert.deepEqual(sessions.map((s) => [s.id, s.workspace, s.locked]), [
    ["listed", workspace, false],
  ]);
  const elsewhere = await Deno.makeTempDir();
  try {
    const none = await fx.run(["sessions", "list", "--workspace", elsewhere]);
    assert.match(none.stdout, /^No session works in /);
    const here = await fx.run(["sessions", "list", "--workspace", fx.workspace, "--json"]);
    assert.equal((JSON.parse(here.stdout) as unknown[]).length, 1);
  } finally {
    await Deno.remove(elsewhere, { recursive: true });
  }
});
