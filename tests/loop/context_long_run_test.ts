import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { ToolSet } from "../../src/loop/tool_set.ts";
import { OpenAIModel } from "../../src/llm/openai_model.ts";
import { COMPACTION_INSTRUCTION } from "../../src/loop/compact_context.ts";
import { DIGEST_PREFIX } from "../../src/loop/context_manager.ts";
import { runAgent } from "../../src/loop/run_agent.ts";
import type { RunEvent } from "../../src/loop/run_event.ts";
import { MemorySessionStore } from "../../src/session/memory_session_store.ts";
import { FakeBroker } from "../../src/testing/fake_broker.ts";
import {
  type RecordedRequest,
  type ScriptedTurn,
  startFakeOpenAIServer,
} from "../../src/testing/fake_openai_server.ts";
import { assertWellFormed } from "./_context_checks.ts";

const WINDOW = 32_768;
const STEPS = 300;

/** Several KB of output with newlines, quotes and non-ASCII text (JSON escapes, multi-byte). */
function bigOutput(step: number, index: number): string {
  const line = (n: number) => `${step}:${index}:${n} "résumé" naïve 中文 {"k": [1, 2]}\tend`;
  return Array.from({ length: 60 + (step % 5) * 20 }, (_, n) => line(n)).join("\n");
}

function isCompaction(request: RecordedRequest): boolean {
  const last = request.body.messages?.at(-1);
  return request.body.tools === undefined && typeof last?.content === "string" &&
    last.content.startsWith(COMPACTION_INSTRUCTION);
}

Deno.test("a 300-step run whose transcript exceeds a 32k window completes, and every request is well formed and under the window by the fake server's count", async () => {
  let steps = 0;
  const script = (request: RecordedRequest): ScriptedTurn => {
    if (isCompaction(request)) return { text: `digest after ${steps} steps: files read, all fine` };
    steps++;
    if (steps > STEPS) return { text: "done: every step ran" };
    const calls = steps % 7 === 0 ? 2 : 1; // some batches of two parallel calls
    return {
      toolCalls: Array.from(
        { length: calls },
        (_, i) =>
          i === 0 && steps % 2 === 0
            ? {
              id: `s${steps}-${i}`,
              name: "read_file",
              arguments: { path: `src/file_${steps}.ts` },
            }
            : {
              id: `s${steps}-${i}`,
              name: "shell",
              arguments: { command: `cat log_${steps}.txt` },
            },
      ),
    };
  };
  await using server = await startFakeOpenAIServer({
    turns: script,
    contextWindow: WINDOW,
    idleTimeoutMs: 30_000,
  });
  const broker = new FakeBroker((inv) => ({
    ok: true,
    output: bigOutput(steps, Number(inv.id.split("-")[1] ?? 0)),
  }));
  const store = new MemorySessionStore();
  const session = await store.create({
    id: "long",
    workspace: "/w",
    model: "m",
    baseUrl: server.url,
    title: "long",
  });
  const head: ChatMessage[] = [
    { role: "system", content: "You are odek. Follow the rules." },
    { role: "user", content: "Read every log and summarise." },
  ];
  for (const message of head) await session.append(message);
  const events: RunEvent[] = [];
  const outcome = await runAgent({
    model: new OpenAIModel({ baseURL: server.url, apiKey: "sk-test", model: "m" }),
    broker,
    journal: session,
    messages: head,
    tools: new ToolSet(),
    maxIterations: STEPS + 10,
    runId: "0".repeat(32),
    onEvent: (event) => events.push(event),
    context: { window: WINDOW },
  });
  assert.equal(
    outcome.type,
    "completed",
    JSON.stringify(outcome.type === "failed" && outcome.error.message),
  );
  assert.equal(outcome.type === "completed" && outcome.text, "done: every step ran");

  // The whole transcript is journaled and is far larger than the window by the fake's count.
  const transcript = session.messages;
  assert.equal(transcript.filter((m) => m.role === "assistant").length, STEPS + 1);
  const transcriptTokens = Math.ceil(
    new TextEncoder().encode(JSON.stringify(transcript)).length / 4,
  );
  assert.ok(transcriptTokens > 10 * WINDOW, `transcript is only ${transcriptTokens} tokens`);

  const main = server.requests.filter((r) => !isCompaction(r));
  const side = server.requests.filter(isCompaction);
  assert.equal(main.length, STEPS + 1);
  for (const [n, request] of server.requests.entries()) {
    assert.ok(!request.refused, `request ${n} was refused as over the window`);
    assert.ok(
      request.promptTokens <= WINDOW,
      `request ${n}: ${request.promptTokens} tokens > ${WINDOW}`,
    );
  }
  for (const [n, request] of main.entries()) {
    assertWellFormed(request.body.messages, head, `request ${n}`);
  }
  // Compaction side calls keep the system prompt and carry no tools.
  assert.ok(side.length > 0, "no compaction happened");
  for (const request of side) assert.equal(request.body.messages[0].content, head[0].content);
  // Late requests carry the digest right after the head, markers for old results, and the
  // newest results whole.
  const last = main.at(-1)!.body.messages as ChatMessage[];
  assert.ok(String(last[2].content).startsWith(DIGEST_PREFIX), "no digest after the head");
  assert.match(String(last[2].content), /digest after \d+ steps/);
  assert.ok(
    last.some((m) => m.role === "tool" && m.content.includes("was dropped from the context")),
  );
  const tools = last.filter((m) => m.role === "tool");
  for (const m of tools.slice(-4)) {
    assert.ok(m.content.length > 2000 && !m.content.includes("[odek:"), "a newest result was cut");
  }

  // The window was approached (about 24k of 32k at the 0.85 trigger), not avoided.
  const largest = Math.max(...server.requests.map((r) => r.promptTokens));
  assert.ok(largest > WINDOW / 2, `largest request only ${largest} tokens`);
  const types = events.map((e) => e.type);
  assert.ok(types.includes("context_trimmed"));
  assert.ok(types.includes("compaction_completed"));
  assert.ok(!types.includes("compaction_failed"));
  // The digest is persisted: a reopened session has it.
  await session.close();
  const again = await store.open("long");
  assert.match(again.compaction?.digest ?? "", /digest after \d+ steps/);
  assert.ok((again.compaction?.coveredUntil ?? 0) > 2);
  await again.close();
});
