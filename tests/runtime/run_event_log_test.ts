import assert from "node:assert/strict";
import { makeRunEvent } from "../../src/loop/make_run_event.ts";
import { EventHub } from "../../src/runtime/event_hub.ts";
import { EventSubscription, type RuntimeEvent } from "../../src/runtime/event_subscription.ts";
import { RunEventLog } from "../../src/runtime/run_event_log.ts";

const saved = (runId: string, n: number) =>
  makeRunEvent("session_saved", { message_count: n }, { runId, sessionId: "s1" });

async function drain(subscription: AsyncIterable<RuntimeEvent>): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of subscription) {
    seen.push(
      event.type === "events_dropped"
        ? `dropped ${event.run_id}:${event.data.from}-${event.data.to}`
        : event.id,
    );
  }
  return seen;
}

Deno.test("RunEventLog numbers events from 1 per run, with ids <run>:<seq>, and replays after a seq", async () => {
  const log = new RunEventLog("r1");
  for (let n = 1; n <= 4; n++) log.append(saved("r1", n));
  const live = log.subscribe({ after: 2 });
  log.append(saved("r1", 5));
  log.end();
  assert.deepEqual(await drain(live), ["r1:3", "r1:4", "r1:5"]);
  // After the end: the whole history, then the stream ends.
  assert.deepEqual(await drain(log.subscribe()), ["r1:1", "r1:2", "r1:3", "r1:4", "r1:5"]);
  assert.equal(log.lastSeq, 5);
  assert.equal(log.append(saved("r1", 6)), undefined, "an ended run takes no more events");
});

Deno.test("a subscriber that does not keep up loses the oldest events to one events_dropped marker; the run never waits", async () => {
  const log = new RunEventLog("r1");
  const slow = log.subscribe({ bufferSize: 3 });
  const fast = log.subscribe();
  const fastSeen = drain(fast);
  for (let n = 1; n <= 10; n++) log.append(saved("r1", n)); // synchronous: nothing waited
  log.end();
  assert.deepEqual(await drain(slow), ["dropped r1:1-7", "r1:8", "r1:9", "r1:10"]);
  assert.equal((await fastSeen).length, 10, "another subscriber lost nothing");
});

Deno.test("a marker stands in for events no longer in the run's memory; its seq is the last dropped one", async () => {
  const log = new RunEventLog("r1", { historyLimit: 2 });
  for (let n = 1; n <= 5; n++) log.append(saved("r1", n));
  log.end();
  const events: RuntimeEvent[] = [];
  for await (const event of log.subscribe({ after: 1 })) events.push(event);
  assert.deepEqual(events.map((e) => e.id), ["r1:3", "r1:4", "r1:5"]);
  const marker = events[0].type === "events_dropped" ? events[0] : undefined;
  assert.ok(marker, "the replay starts with a marker");
  assert.deepEqual(marker.data, { from: 2, to: 3 });
});

Deno.test("RunEventLog.subscribe() refuses a bad after or bufferSize with a RangeError naming it", () => {
  const log = new RunEventLog("r1");
  assert.throws(() => log.subscribe({ after: -1 }), /after must be a non-negative integer/);
  assert.throws(() => log.subscribe({ after: 1.5 }), RangeError);
  assert.throws(() => log.subscribe({ bufferSize: 0 }), /bufferSize must be a positive integer/);
});

Deno.test("EventHub: one stream over several runs keeps a marker per run", async () => {
  const hub = new EventHub();
  const sub = hub.subscribe({ bufferSize: 2 });
  const a = new RunEventLog("ra", { forward: (e) => hub.publish(e) });
  const b = new RunEventLog("rb", { forward: (e) => hub.publish(e) });
  a.append(saved("ra", 1));
  b.append(saved("rb", 1));
  a.append(saved("ra", 2));
  b.append(saved("rb", 2));
  hub.end();
  assert.deepEqual(await drain(sub), ["dropped ra:1-1", "dropped rb:1-1", "ra:2", "rb:2"]);
});

Deno.test("EventSubscription ends at once when the consumer breaks out, and tells its owner", async () => {
  let closed = 0;
  const sub = new EventSubscription({ onClose: () => closed++ });
  const log = new RunEventLog("r1", { forward: (e) => sub.push(e) });
  log.append(saved("r1", 1));
  log.append(saved("r1", 2));
  for await (const _ of sub) break;
  assert.equal(closed, 1);
  assert.ok(sub.closed);
  sub.push({ ...saved("r1", 3), seq: 3, id: "r1:3" } as RuntimeEvent); // ignored, no throw
  assert.deepEqual(await sub.next(), { value: undefined, done: true });
});
