/**
 * `/ws` on a real listener: the hello with what is pending, every run's events, an approval
 * answered over the socket, a reconnect that resumes after the last event seen without
 * duplicates or gaps, and the message size cap.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RuntimeEvent } from "../../src/runtime/event_subscription.ts";
import { body, serveFixture, TEST_TOKEN, waitFor } from "./_serve_fixture.ts";

interface Message {
  type: string;
  event?: RuntimeEvent;
  request?: { id: string; type: string; calls?: { call_id: string }[] };
  resumed?: boolean;
  ok?: boolean;
}

function open(origin: string, after?: string) {
  const url = new URL("/ws", origin.replace("http", "ws"));
  if (after) url.searchParams.set("after", after);
  const socket = new WebSocket(url, {
    headers: { authorization: `Bearer ${TEST_TOKEN}` },
  } as unknown as string[]);
  const messages: Message[] = [];
  const closed = Promise.withResolvers<CloseEvent>();
  socket.onmessage = (m) => messages.push(JSON.parse(m.data));
  socket.onclose = (e) => closed.resolve(e);
  return { socket, messages, closed: closed.promise };
}

Deno.test("the WebSocket streams events, takes an approval, and a reconnect resumes without duplicates", async () => {
  const outside = { path: "" };
  await using s = await serveFixture({
    scripts: [(_r, index) =>
      index === 0
        ? {
          text: "writing",
          toolCalls: [{
            id: "w1",
            name: "write_file",
            arguments: { path: join(outside.path, "ws.txt"), content: "ws\n" },
          }],
        }
        : { text: "done over the socket" }],
  });
  outside.path = await s.f.workspace("outside");
  const origin = await s.start();
  const first = open(origin);
  await waitFor("hello", () => first.messages.some((m) => m.type === "hello"));
  const run = await body<{ session_id: string }>(
    await s.call("/api/runs", { method: "POST", json: { task: "over the socket" } }),
  );
  await waitFor(
    "the approval request",
    () => first.messages.some((m) => m.type === "request" && m.request?.type === "approval"),
  );
  const asked = first.messages.find((m) => m.type === "request")!.request!;
  const seenBefore = first.messages.filter((m) => m.type === "event").map((m) => m.event!.id);
  first.socket.close();
  await first.closed;

  const second = open(origin, seenBefore.at(-1));
  await waitFor("hello again", () => second.messages.some((m) => m.type === "hello"));
  const hello = second.messages.find((m) => m.type === "hello")!;
  assert.equal(hello.resumed, true);
  second.socket.send(JSON.stringify({
    type: "approval_response",
    id: asked.id,
    decisions: [{ call_id: "w1", approved: true }],
  }));
  await waitFor("the ack", () => second.messages.some((m) => m.type === "ack" && m.ok));
  await waitFor("the run's end", () => s.runs.current(run.session_id) === undefined);
  await waitFor(
    "run_completed over the socket",
    () => second.messages.some((m) => m.event?.type === "run_completed"),
  );
  const after = second.messages.filter((m) => m.type === "event").map((m) => m.event!.id);
  const all = [...seenBefore, ...after];
  assert.equal(new Set(all).size, all.length, "no duplicates");
  const seqs = all.map((id) => Number(id.split(":")[1]));
  assert.deepEqual(seqs, seqs.map((_, i) => i + 1), "no gaps");
  assert.equal(await Deno.readTextFile(join(outside.path, "ws.txt")), "ws\n");

  second.socket.send(JSON.stringify({ type: "nonsense" }));
  await waitFor("an error", () => second.messages.some((m) => m.type === "error"));
  second.socket.send("x".repeat(262_145));
  const closed = await second.closed;
  assert.equal(closed.code, 1009);
  await waitFor("no stream left", () => s.runs.events.size === 0);
});
