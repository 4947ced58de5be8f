import assert from "node:assert/strict";
// @ts-types="@types/pg"
import type pg from "pg";
import { RunEventPublisher } from "../../src/durable/run_event_publisher.ts";
import { EventSubscription, type RuntimeEvent } from "../../src/runtime/event_subscription.ts";

interface Row {
  stream: string;
  seq: number;
  workflowId: string;
  segment: number;
  event: string;
}

/** The three statements the publisher sends, over an in-memory odek.run_events. */
function fakePool(rows: Row[]): pg.Pool {
  const query = (sql: string, params: unknown[]) => {
    if (sql.includes("GROUP BY segment")) {
      const counts = new Map<number, number>();
      for (const row of rows.filter((r) => r.workflowId === params[0])) {
        counts.set(row.segment, (counts.get(row.segment) ?? 0) + 1);
      }
      return { rows: [...counts].map(([segment, n]) => ({ segment, n })) };
    }
    if (sql.includes("max(seq)")) {
      const seqs = rows.filter((r) => r.stream === params[0]).map((r) => r.seq);
      return { rows: [{ seq: seqs.length ? Math.max(...seqs) : 0 }] };
    }
    const [stream, workflowId, , seqs, segments, events] = params as [
      string,
      string,
      string,
      number[],
      number[],
      string[],
    ];
    let n = 0;
    seqs.forEach((seq, i) => {
      if (rows.some((r) => r.stream === stream && r.seq === seq)) return;
      rows.push({ stream, seq, workflowId, segment: segments[i], event: events[i] });
      n++;
    });
    return { rows: [{ n }] };
  };
  return {
    query: (sql: string, params: unknown[] = []) => Promise.resolve(query(sql, params)),
  } as unknown as pg.Pool;
}

/** One execution of a workflow: `script` is its events and its steps' boundaries (`|`). */
async function execute(
  rows: Row[],
  workflowId: string,
  script: (string | "|")[],
  crashAfter = Infinity,
): Promise<void> {
  const publisher = await RunEventPublisher.open({
    pool: fakePool(rows),
    workflowId,
    stream: "q-1",
    workerId: workflowId,
  });
  const feed = new EventSubscription({ bufferSize: 1000 });
  let seq = 0;
  publisher.follow(feed, () => seq);
  for (const item of script) {
    if (item === "|") {
      await publisher.boundary();
      continue;
    }
    if (seq >= crashAfter) {
      await publisher.flush(); // the worker dies: what it wrote stays, the rest never comes
      return;
    }
    seq++;
    feed.push({
      schema: "odek.event/v1",
      type: item.split(":")[0],
      run_id: `runtime-${workflowId}`,
      seq,
      id: `runtime-${workflowId}:${seq}`,
      timestamp: "2026-01-01T00:00:00.000Z",
      data: { label: item },
    } as unknown as RuntimeEvent);
  }
  await publisher.flush();
  feed.end();
}

const labels = (rows: Row[]) =>
  rows.sort((a, b) => a.seq - b.seq).map((r) => {
    const event = JSON.parse(r.event) as RuntimeEvent;
    assert.equal(event.id, `q-1:${r.seq}`);
    assert.equal(event.run_id, "q-1");
    return (event.data as unknown as { label: string }).label;
  });

Deno.test("a replay publishes only what the earlier execution did not: between steps", async () => {
  const rows: Row[] = [];
  // The first execution streams a model turn, asks for a call, and dies before its start is out.
  await execute(rows, "w", [
    "run_started",
    "|",
    "text_delta:a",
    "text_delta:b",
    "|",
    "assistant_message:1",
    "tool_call_started:c1",
  ], 4);
  assert.deepEqual(labels(rows), [
    "run_started",
    "text_delta:a",
    "text_delta:b",
    "assistant_message:1",
  ]);
  // The replay: the model turn comes back from the engine (no deltas), then goes on live.
  await execute(rows, "w", [
    "run_started",
    "|",
    "|",
    "assistant_message:1",
    "tool_call_started:c1",
    "|",
    "tool_call_completed:c1",
    "|",
    "run_completed",
  ]);
  assert.deepEqual(labels(rows), [
    "run_started",
    "text_delta:a",
    "text_delta:b",
    "assistant_message:1",
    "tool_call_started:c1",
    "tool_call_completed:c1",
    "run_completed",
  ]);
  const seqs = rows.map((r) => r.seq);
  assert.deepEqual(seqs, [1, 2, 3, 4, 5, 6, 7]);
});

Deno.test("a replay of a step that was going publishes that step's new events", async () => {
  const rows: Row[] = [];
  // The first execution dies in a call (its beats were written).
  await execute(rows, "w", [
    "run_started",
    "|",
    "|",
    "assistant_message:1",
    "tool_call_started:c1",
    "|",
    "tool_running:c1",
    "tool_running:c1",
  ]);
  // The replay answers the call interrupted inside its step, then ends.
  await execute(rows, "w", [
    "run_started",
    "|",
    "|",
    "assistant_message:1",
    "tool_call_started:c1",
    "|",
    "tool_call_failed:c1-interrupted",
    "|",
    "run_completed",
  ]);
  assert.deepEqual(labels(rows), [
    "run_started",
    "assistant_message:1",
    "tool_call_started:c1",
    "tool_running:c1",
    "tool_running:c1",
    "tool_call_failed:c1-interrupted",
    "run_completed",
  ]);
});

Deno.test("a continuation appends to its run's stream after the paused run's events", async () => {
  const rows: Row[] = [];
  await execute(rows, "q-1", [
    "run_started",
    "|",
    "|",
    "assistant_message:1",
    "approval_requested",
  ]);
  await execute(rows, "q-1:c1", [
    "approval_answered",
    "|",
    "tool_call_completed:c1",
    "|",
    "run_completed",
  ]);
  assert.deepEqual(labels(rows), [
    "run_started",
    "assistant_message:1",
    "approval_requested",
    "approval_answered",
    "tool_call_completed:c1",
    "run_completed",
  ]);
});
