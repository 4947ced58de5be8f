/**
 * When the journal fsyncs (docs/sessions.md, "Durability"): one fsync per step, at the
 * `tool_started` written before the call runs; the turn that asked for the call and the result
 * of the call before it become durable with it; a final answer, an operator message and the
 * records put to an approver are durable when their promise resolves; `close()` syncs the rest.
 */
import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import type { JournalSink } from "../../src/session/_journal_session.ts";
import { FileSink } from "../../src/session/_file_sink.ts";
import type { HeldLock } from "../../src/session/_session_lock.ts";
import { startJournalSession } from "../../src/session/_start_session.ts";
import { newSessionMeta } from "../../src/session/_store_common.ts";

interface Write {
  record: string;
  sync: boolean;
}

/** A sink that keeps each write's record type (or message role) and whether it was synced. */
function recordingSink(): JournalSink & { writes: Write[]; closed: boolean } {
  const writes: Write[] = [];
  const sink = {
    writes,
    closed: false,
    write(text: string, sync = true) {
      for (const line of text.split("\n").filter(Boolean)) {
        const value = JSON.parse(line);
        const record = value.t === "message" ? `message:${value.message.role}` : value.t;
        writes.push({ record, sync: false });
      }
      writes.at(-1)!.sync = sync;
      return Promise.resolve();
    },
    close() {
      sink.closed = true;
      return Promise.resolve();
    },
  };
  return sink;
}

const init = { workspace: "/w", model: "m1", baseUrl: "http://127.0.0.1:1", title: "t" };
const options = { redact: (text: string) => text, now: () => new Date(0) };
const turn = (id: string): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name: "shell", arguments: "{}" } }],
});

Deno.test("a step of the journal costs one fsync, taken before its call runs", async () => {
  const sink = recordingSink();
  const { meta } = newSessionMeta("s", init, new Date(0), options.redact);
  const session = await startJournalSession(
    { meta, messages: [], needsNewline: false },
    sink,
    options,
  );
  await session.append({ role: "user", content: "go" });
  await session.append(turn("c1"));
  await session.recordUsage({ inputTokens: 3, outputTokens: 1 });
  await session.recordCheckpoint({ id: "a".repeat(40), phase: "before" });
  await session.recordToolStarted("c1");
  await session.append({ role: "tool", tool_call_id: "c1", content: "ok" });
  await session.append(turn("c2"));
  await session.recordApprovalRequested([{
    callId: "c2",
    verdict: { parts: [], decision: "ask", reason: "asks" },
  }]);
  await session.recordToolStarted("c2");
  await session.append({ role: "tool", tool_call_id: "c2", content: "ok" });
  await session.append({ role: "assistant", content: "done" });
  assert.deepEqual(sink.writes, [
    { record: "message:user", sync: true },
    { record: "call_tracking", sync: false }, // one write with the turn
    { record: "message:assistant", sync: false },
    { record: "usage", sync: false },
    { record: "checkpoint", sync: false },
    { record: "tool_started", sync: true }, // before c1 runs: the turn and all above with it
    { record: "message:tool", sync: false },
    { record: "message:assistant", sync: false },
    { record: "approval_requested", sync: true }, // before the approver is asked
    { record: "tool_started", sync: true },
    { record: "message:tool", sync: false },
    { record: "message:assistant", sync: true }, // the final answer
  ]);
  await session.close();
  assert.ok(sink.closed);
});

/** A stand-in for the journal's file: counts writes and fsyncs. */
function countingFile() {
  const file = {
    bytes: 0,
    syncs: 0,
    closed: false,
    write(bytes: Uint8Array) {
      file.bytes += bytes.length;
      return Promise.resolve(bytes.length);
    },
    sync() {
      file.syncs++;
      return Promise.resolve();
    },
    close() {
      file.closed = true;
    },
  };
  return file;
}

Deno.test("FileSink fsyncs a synced write at once, and unsynced ones at the next sync or close", async () => {
  const file = countingFile();
  let released = false;
  const lock = { release: () => Promise.resolve(void (released = true)) } as unknown as HeldLock;
  const sink = new FileSink(file as unknown as Deno.FsFile, lock);
  await sink.write("a\n", false);
  assert.equal(file.syncs, 0);
  await sink.write("b\n");
  assert.equal(file.syncs, 1);
  await sink.close();
  assert.equal(file.syncs, 1, "nothing left to sync");
  const second = countingFile();
  const other = new FileSink(second as unknown as Deno.FsFile, lock);
  await other.write("c\n", false);
  await other.close();
  assert.equal(second.syncs, 1, "close() syncs what is not durable yet");
  assert.ok(second.closed && released);
  assert.equal(second.bytes, 2);
});
