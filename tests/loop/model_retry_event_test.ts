import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { redactKnownValues } from "../../src/_util/redact_known_values.ts";
import { ToolSet } from "../../src/loop/tool_set.ts";
import type { Model, ModelDelta, ModelRequest, ModelResponse } from "../../src/llm/model.ts";
import type { RunEvent } from "../../src/loop/run_event.ts";
import { runAgent } from "../../src/loop/run_agent.ts";
import { FakeBroker } from "../../src/testing/fake_broker.ts";

/** A model whose first attempt streams part of a turn and fails, as OpenAIModel reports it. */
class RetryingOnceModel implements Model {
  complete(request: ModelRequest, onDelta?: (delta: ModelDelta) => void): Promise<ModelResponse> {
    onDelta?.({ type: "text", text: "half an answer sk-abc" });
    request.onRetry?.({
      attempt: 2,
      maxAttempts: 8,
      waitMs: 10,
      reason: "http_503",
      status: 503,
      message: "The model answered HTTP 503",
    });
    onDelta?.({ type: "text", text: "the full answer" });
    return Promise.resolve({
      message: { role: "assistant", content: "the full answer" },
      finishReason: "stop",
      usage: { inputTokens: 3, outputTokens: 4 },
    });
  }
}

Deno.test("callModelStep() emits model_retry after releasing the failed attempt's held-back text, and journals only the finished turn", async () => {
  const events: RunEvent[] = [];
  const journal: ChatMessage[] = [];
  const outcome = await runAgent({
    model: new RetryingOnceModel(),
    broker: new FakeBroker(() => ({ ok: true, output: "unused" })),
    journal: { append: (m) => Promise.resolve(void journal.push(structuredClone(m))) },
    messages: [{ role: "user", content: "task" }],
    tools: new ToolSet(),
    runId: "0".repeat(32),
    // "sk-abc" could start this secret, so the redactor holds it back until the retry.
    redact: redactKnownValues(["sk-abcdefgh0123456789"]),
    onEvent: (e) => events.push(e),
  });
  assert.equal(outcome.type, "completed");
  const stream = events
    .filter((e) => ["text_delta", "model_retry", "assistant_message"].includes(e.type))
    .map((e) => e.type === "text_delta" ? `text:${e.data.text}` : e.type);
  const at = stream.indexOf("model_retry");
  assert.equal(
    stream.slice(0, at).map((s) => s.slice(5)).join(""),
    "half an answer sk-abc",
    "everything of the failed attempt was released before the retry notice",
  );
  assert.equal(stream.slice(at + 1, -1).map((s) => s.slice(5)).join(""), "the full answer");
  assert.equal(stream.at(-1), "assistant_message");
  const retry = events.find((e) => e.type === "model_retry");
  assert.deepEqual(retry?.data, {
    attempt: 2,
    max_attempts: 8,
    wait_ms: 10,
    reason: "http_503",
    status: 503,
  });
  assert.equal(retry?.iteration, 1);
  assert.deepEqual(journal, [{ role: "assistant", content: "the full answer" }]);
});
