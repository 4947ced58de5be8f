import assert from "node:assert/strict";
import { join } from "node:path";
import { COMPACTION_INSTRUCTION } from "../../src/loop/compact_context.ts";
import { DIGEST_PREFIX } from "../../src/loop/context_manager.ts";
import {
  type RecordedRequest,
  type ScriptedTurn,
  startFakeOpenAIServer,
} from "../../src/testing/fake_openai_server.ts";
import { odekFixture } from "./_odek.ts";

const isCompaction = (r: RecordedRequest) =>
  String(r.body.messages?.at(-1)?.content ?? "").startsWith(COMPACTION_INSTRUCTION);

Deno.test("odek run trims to the per-model window from config, persists the digest, and odek continue sends it", async () => {
  await using fx = await odekFixture();
  const WINDOW = 10_000; // the tool schemas alone take about 3,300 tokens
  await Deno.writeTextFile(
    join(fx.odekHome, "config.jsonc"),
    JSON.stringify({ contextWindow: 500_000, models: { "small-m": { contextWindow: WINDOW } } }),
  );
  await Deno.writeTextFile(
    join(fx.workspace, "big.txt"),
    Array.from({ length: 80 }, (_, i) => `line ${i}: some text of the big file`).join("\n"),
  );
  let reads = 0;
  let digests = 0;
  await using server = await startFakeOpenAIServer({
    contextWindow: WINDOW,
    turns: (request): ScriptedTurn => {
      if (isCompaction(request)) return { text: `DIGEST-${++digests}: read big.txt` };
      const last = request.body.messages.at(-1);
      if (last.role === "user" && last.content === "and now?") return { text: "still fine" };
      // Each read asks for one more line (the same read with the same result, over and over,
      // is a stall that ends the run).
      return ++reads <= 12
        ? { toolCalls: [{ name: "read_file", arguments: { path: "big.txt", limit: 60 + reads } }] }
        : { text: "read it twelve times" };
    },
  });
  const env = { ODEK_SANDBOX: "none" };
  const args = ["--model", "small-m", "--base-url", server.url];
  const run = await fx.run(["run", "--session", "ctx", ...args, "read big.txt"], { env });
  assert.equal(run.code, 0, run.stderr);
  for (const [i, r] of server.requests.entries()) {
    assert.ok(!r.refused && r.promptTokens <= WINDOW, `request ${i}: ${r.promptTokens} tokens`);
  }
  assert.ok(digests > 0, "no compaction side call");
  const journal = await Deno.readTextFile(join(fx.odekHome, "sessions", "ctx.jsonl"));
  assert.match(journal, /"t":"compaction","at":"[^"]+","digest":"DIGEST-\d+: read big.txt"/);
  // Every message is still journaled: 12 calls and 12 results.
  assert.equal(journal.split("\n").filter((l) => l.includes('"role":"tool"')).length, 12);

  const before = server.requests.length;
  const more = await fx.run(["continue", "ctx", "and now?", ...args], { env });
  assert.equal(more.code, 0, more.stderr);
  const first = server.requests[before].body.messages;
  const digest = first.find((m: { content: string }) =>
    String(m.content).startsWith(DIGEST_PREFIX)
  );
  assert.match(String(digest?.content), new RegExp(`DIGEST-${digests}: read big.txt`));
  assert.ok(server.requests[before].promptTokens <= WINDOW);
});
