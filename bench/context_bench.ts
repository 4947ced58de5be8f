/**
 * Context-management benchmarks (`deno task bench`). Prints:
 * - the cost of trimming against transcript length (1k, 5k, 10k, 20k messages): a full plan
 *   from scratch (layout, markers, group drops, request build), and a request build when no trim
 *   is needed; per message the cost should stay flat (linear in the transcript);
 * - the cost of persisting one step (an assistant message with a tool call, then its result,
 *   each written and fsynced) in a 10,000-message session (target ≤ 2 ms), the same in a
 *   10-message session for comparison, its CPU part without the disk, and the time to open (load
 *   and repair) the 10,000-message session. Disk figures vary with the machine's load.
 *
 * @module
 */
import type { ChatMessage } from "../src/_util/chat_message.ts";
import { builtinToolSpecs } from "../src/loop/builtin_tool_specs.ts";
import { estimateToolSpecTokens } from "../src/loop/estimate_tokens.ts";
import { buildRequest, type PlanInput, planTrim } from "../src/loop/plan_context.ts";
import { splitTurnGroups } from "../src/loop/turn_groups.ts";
import { FileSessionStore } from "../src/session/file_session_store.ts";
import { startJournalSession } from "../src/session/_start_session.ts";
import { ContextManager } from "../src/loop/context_manager.ts";
import type { RunContext } from "../src/loop/run_context.ts";
import { newRunStats } from "../src/loop/run_stats.ts";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** Head + groups of one call and one ~2 KB result: `count` messages in all. */
function transcript(count: number): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: "system", content: "You are odek. ".repeat(50) },
    { role: "user", content: "a long task" },
  ];
  for (let i = 0; messages.length < count; i++) {
    messages.push({
      role: "assistant",
      content: i % 3 === 0 ? `step ${i}: looking at the next file` : null,
      tool_calls: [{
        id: `c${i}`,
        type: "function",
        function: { name: "read_file", arguments: JSON.stringify({ path: `src/f${i}.ts` }) },
      }],
    });
    messages.push({
      role: "tool",
      tool_call_id: `c${i}`,
      content: `// file ${i}\n${"const x = 1; // some code\n".repeat(80)}`,
    });
  }
  return messages;
}

function trimCost(count: number): { plan: number; build: number } {
  const messages = transcript(count);
  const specs = builtinToolSpecs();
  const input = (): PlanInput => ({
    messages,
    layout: splitTurnGroups(messages),
    keepRecentToolResults: 4,
    fixedTokens: estimateToolSpecTokens(specs),
  });
  const limit = 0.6 * (128_000 - 4096);
  // Warm-up: fills the per-message count caches, as a running loop has them.
  planTrim(input(), { coveredUntil: 2, markUntil: 0 }, limit);
  const plans: number[] = [];
  const builds: number[] = [];
  for (let i = 0; i < 31; i++) {
    let t0 = performance.now();
    const plan = planTrim(input(), { coveredUntil: 2, markUntil: 0 }, limit);
    buildRequest(input(), plan.state);
    plans.push(performance.now() - t0);
    t0 = performance.now();
    buildRequest(input(), plan.state);
    builds.push(performance.now() - t0);
  }
  return { plan: median(plans), build: median(builds) };
}

/** `ContextManager.prepare` per request once trimmed (what the loop pays on every step). */
async function prepareCost(count: number): Promise<number> {
  const context = {
    messages: transcript(count),
    toolSpecs: builtinToolSpecs(),
    stats: newRunStats(0),
    signal: new AbortController().signal,
    journal: { append: () => Promise.resolve() },
    now: () => performance.now(),
    redact: (text: string) => text,
    emit() {},
  } as unknown as RunContext;
  const manager = new ContextManager({ window: 128_000, compaction: false });
  await manager.prepare(context); // the first call trims
  const times: number[] = [];
  for (let i = 0; i < 31; i++) {
    const t0 = performance.now();
    await manager.prepare(context);
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function persistCost(size: number): Promise<{ step: number[]; open: number }> {
  const dir = await Deno.makeTempDir({ prefix: "odek-bench-sessions-" });
  try {
    const store = new FileSessionStore(dir);
    const id = "bench-10k";
    const session = await store.create({
      id,
      workspace: "/w",
      model: "m",
      baseUrl: "http://127.0.0.1:1",
      title: "bench",
    });
    await session.close();
    // Write 10,000 message records at once (appending them one by one would fsync 10,000 times).
    const at = new Date().toISOString();
    const lines = transcript(size).map((message) => JSON.stringify({ t: "message", at, message }));
    await Deno.writeTextFile(`${dir}/${id}.jsonl`, `${lines.join("\n")}\n`, { append: true });
    const t0 = performance.now();
    const open = await store.open(id);
    const openMs = performance.now() - t0;
    if (open.messages.length !== size) throw new Error(`loaded ${open.messages.length}`);
    const step: number[] = [];
    for (let i = 0; i < 110; i++) {
      const callId = `bench${i}`;
      const s0 = performance.now();
      await open.append({
        role: "assistant",
        content: null,
        tool_calls: [{
          id: callId,
          type: "function",
          function: { name: "shell", arguments: '{"command":"ls"}' },
        }],
      });
      await open.append({ role: "tool", tool_call_id: callId, content: "a.ts\nb.ts\n".repeat(50) });
      step.push(performance.now() - s0);
    }
    await open.close();
    return { step: step.slice(10), open: openMs };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`);
console.log("context trimming (median of 31; per message in brackets):");
for (const count of [1_000, 5_000, 10_000, 20_000]) {
  const { plan, build } = trimCost(count);
  console.log(
    `  ${String(count).padStart(6)} messages: full trim ${fmt(plan)} [${
      ((plan / count) * 1e6).toFixed(0)
    } ns/msg], request build ${fmt(build)} [${
      ((build / count) * 1e6).toFixed(0)
    } ns/msg], prepare per step ${fmt(await prepareCost(count))}`,
  );
}
/** The CPU part of persisting a step (validate, redact, encode; a sink that discards) at 10,000 messages. */
async function persistCpuCost(): Promise<number> {
  const meta = {
    id: "cpu",
    createdAt: new Date().toISOString(),
    workspace: "/w",
    model: "m",
    baseUrl: "http://127.0.0.1:1",
    title: "bench",
  };
  const session = await startJournalSession(
    { meta, messages: transcript(10_000), needsNewline: false },
    { write: () => Promise.resolve(), close: () => Promise.resolve() },
    { redact: (text) => text, now: () => new Date() },
  );
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    await session.append({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `m${i}`, type: "function", function: { name: "shell", arguments: "{}" } }],
    });
    await session.append({
      role: "tool",
      tool_call_id: `m${i}`,
      content: "a.ts\nb.ts\n".repeat(50),
    });
    times.push(performance.now() - t0);
  }
  await session.close();
  return median(times.slice(20));
}

// Interleaved, so both sizes see the same disk load (other processes' fsyncs vary a lot).
const small = await persistCost(10);
const persisted = await persistCost(10_000);
const again = await persistCost(10);
const stepMedian = median(persisted.step);
console.log(
  `persist one step (assistant + tool result, 2 fsynced appends) in a 10,000-message session: ` +
    `median ${fmt(stepMedian)}, p95 ${
      fmt(percentile(persisted.step, 0.95))
    } over ${persisted.step.length} steps  ` +
    `${stepMedian <= 2 ? "meets" : "MISSES"} target ≤ 2 ms`,
);
console.log(
  `  the same in a 10-message session, before and after: median ${fmt(median(small.step))}, ` +
    `${fmt(median(again.step))} (the cost does not grow with the session: fsync dominates)`,
);
console.log(
  `  its CPU part (validate, redact, encode; no disk): median ${fmt(await persistCpuCost())}`,
);
console.log(`open (load and repair) the 10,000-message session: ${fmt(persisted.open)}`);
