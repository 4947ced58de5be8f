import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { ToolSet } from "../../src/loop/tool_set.ts";
import { journalStepRunner } from "../../src/loop/journal_step_runner.ts";
import { runAgent } from "../../src/loop/run_agent.ts";
import type { Step, StepInfo, StepRunner } from "../../src/loop/step_runner.ts";
import { FakeBroker } from "../../src/testing/fake_broker.ts";
import type { ScriptedTurn } from "../../src/testing/fake_openai_server.ts";
import { ScriptedModel } from "../../src/testing/scripted_model.ts";

const START: ChatMessage[] = [{ role: "system", content: "sys" }, { role: "user", content: "go" }];

const TURNS: ScriptedTurn[] = [
  {
    toolCalls: [
      { id: "c1", name: "glob", arguments: { pattern: "*.md" } },
      { id: "c2", name: "glob", arguments: { pattern: "*.ts" } },
    ],
  },
  { text: "found both" },
];

function keyOf(info: StepInfo): string {
  return info.type === "model_call"
    ? `model:${info.iteration}:${info.purpose}`
    : `tool:${info.callId}`;
}

/** A durable-engine stand-in: records each step's result under its key, replays it when known. */
class RecordingRunner implements StepRunner {
  readonly infos: StepInfo[] = [];
  readonly executed: string[] = [];
  constructor(readonly inner: StepRunner, readonly store = new Map<string, unknown>()) {}
  async run<T>(step: Step<T>): Promise<T> {
    this.infos.push(step.info);
    const key = keyOf(step.info);
    if (this.store.has(key)) return this.store.get(key) as T;
    return await this.inner.run({
      ...step,
      execute: async () => {
        this.executed.push(key);
        const result = await step.execute();
        this.store.set(key, structuredClone(result));
        return result;
      },
    });
  }
}

function options(runner: StepRunner, journal: ChatMessage[], model: ScriptedModel) {
  const append = (m: ChatMessage) => Promise.resolve(void journal.push(structuredClone(m)));
  return {
    model,
    broker: new FakeBroker((call) => ({ ok: true as const, output: `out of ${call.id}` })),
    journal: { append },
    stepRunner: runner,
    messages: START,
    tools: new ToolSet(),
    runId: "0".repeat(32),
  };
}

Deno.test("runAgent() runs every model call and tool call through the injected StepRunner", async () => {
  const journal: ChatMessage[] = [];
  const append = (m: ChatMessage) => Promise.resolve(void journal.push(structuredClone(m)));
  const runner = new RecordingRunner(journalStepRunner({ append }));
  const outcome = await runAgent(options(runner, journal, new ScriptedModel(TURNS)));
  assert.equal(outcome.type, "completed");
  assert.deepEqual(runner.infos.map(keyOf), [
    "model:1:turn",
    "tool:c1",
    "tool:c2",
    "model:2:turn",
  ]);
  // Everything the runs wrote came through the runner: the assistant turns and both results.
  assert.deepEqual(journal.map((m) => m.role), ["assistant", "tool", "tool", "assistant"]);
});

Deno.test("a StepRunner that replays recorded results resumes a run without calling the model or the tools again", async () => {
  const journal: ChatMessage[] = [];
  const append = (m: ChatMessage) => Promise.resolve(void journal.push(structuredClone(m)));
  const first = new RecordingRunner(journalStepRunner({ append }));
  await runAgent(options(first, journal, new ScriptedModel(TURNS)));
  // A second execution of the same run (a worker that took it over) with the recorded steps.
  const replayJournal: ChatMessage[] = [];
  const replayAppend = (m: ChatMessage) =>
    Promise.resolve(void replayJournal.push(structuredClone(m)));
  const model = new ScriptedModel([]);
  const replay = new RecordingRunner(journalStepRunner({ append: replayAppend }), first.store);
  const outcome = await runAgent(options(replay, replayJournal, model));
  assert.equal(outcome.type, "completed");
  assert.equal(outcome.type === "completed" && outcome.text, "found both");
  assert.deepEqual(replay.executed, [], "a recorded step ran again");
  assert.equal(model.requests.length, 0);
  assert.equal(outcome.stats.toolCalls, 2);
});

Deno.test("journalStepRunner() records nothing when a step throws", async () => {
  const journal: ChatMessage[] = [];
  const runner = journalStepRunner({ append: (m) => Promise.resolve(void journal.push(m)) });
  await assert.rejects(
    runner.run({
      info: { type: "model_call", iteration: 1, purpose: "turn" },
      execute: () => Promise.reject(new Error("provider down")),
      records: () => [{ role: "assistant", content: "never" }],
    }),
    /provider down/,
  );
  assert.deepEqual(journal, []);
});
