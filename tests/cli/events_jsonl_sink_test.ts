import assert from "node:assert/strict";
import { join } from "node:path";
import { OdekError } from "../../src/_util/odek_error.ts";
import { EventsJsonlSink } from "../../src/cli/events_jsonl_sink.ts";
import { makeRunEvent } from "../../src/loop/make_run_event.ts";

async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "odek-sink-" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

const scope = { runId: "r".repeat(32), sessionId: "s1" };
const ARGS = '{"command":"echo SECRET-ARG-VALUE"}';

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("EventsJsonlSink creates the file with mode 0600 and writes one JSON line per event", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "events.jsonl");
  const sink = await EventsJsonlSink.open(path);
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
  sink.handle(makeRunEvent("session_saved", { message_count: 3 }, scope));
  sink.handle(makeRunEvent("budget_exceeded", {
    limit_name: "tool_calls",
    observed: 6,
    limit: 5,
  }, scope));
  await sink.close();
  const lines = (await Deno.readTextFile(path)).split("\n");
  assert.equal(lines.pop(), "", "every line ends with a newline");
  const events = lines.map((l) => JSON.parse(l));
  assert.deepEqual(events.map((e) => e.type), ["session_saved", "budget_exceeded"]);
  assert.equal(events[1].schema, "odek.event/v1");
  assert.deepEqual(events[1].data, { limit_name: "tool_calls", observed: 6, limit: 5 });
  assert.equal(sink.written, 2);
  assert.equal(sink.dropped, 0);
});

Deno.test("EventsJsonlSink keeps only the SHA-256 and size of tool arguments, and no streamed text", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "events.jsonl");
  const sink = await EventsJsonlSink.open(path);
  const digest = await sha256Hex(ARGS);
  sink.handle(makeRunEvent("text_delta", { text: "streamed" }, scope));
  sink.handle(makeRunEvent("tool_call_started", {
    call_id: "c1",
    name: "shell",
    args: JSON.parse(ARGS),
    args_sha256: digest,
    args_bytes: ARGS.length,
  }, { ...scope, tool: "shell" }));
  sink.handle(makeRunEvent("tool_call_completed", {
    call_id: "c1",
    name: "shell",
    duration_ms: 3,
    result_bytes: 20,
    preview: "SECRET-ARG-VALUE",
  }, { ...scope, tool: "shell" }));
  await sink.close();
  const text = await Deno.readTextFile(path);
  assert.ok(!text.includes("SECRET-ARG-VALUE"), text);
  assert.ok(!text.includes("streamed"), text);
  const [started, completed] = text.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(started.data, {
    call_id: "c1",
    name: "shell",
    args_sha256: digest,
    args_bytes: ARGS.length,
  });
  assert.equal(completed.data.result_bytes, 20);
  assert.ok(!("preview" in completed.data));
});

Deno.test("EventsJsonlSink refuses a symlink at the path, even one to a file it could write", async () => {
  await using dir = await tempDir();
  const target = join(dir.path, "target.jsonl");
  await Deno.writeTextFile(target, "", { mode: 0o600 });
  const link = join(dir.path, "events.jsonl");
  await Deno.symlink(target, link);
  await assert.rejects(
    EventsJsonlSink.open(link),
    (e) => e instanceof OdekError && e.code === "USAGE" && /symbolic link/.test(e.message),
  );
  const dangling = join(dir.path, "dangling.jsonl");
  await Deno.symlink(join(dir.path, "nowhere.jsonl"), dangling);
  await assert.rejects(EventsJsonlSink.open(dangling), /symbolic link/);
  await assert.rejects(Deno.stat(join(dir.path, "nowhere.jsonl")), Deno.errors.NotFound);
  assert.equal(await Deno.readTextFile(target), "");
});

Deno.test("EventsJsonlSink needs the parent directory and refuses other users' access", async () => {
  await using dir = await tempDir();
  await assert.rejects(
    EventsJsonlSink.open(join(dir.path, "missing", "events.jsonl")),
    /the folder .*missing does not exist\. Create it first\./,
  );
  const open = join(dir.path, "shared.jsonl");
  await Deno.writeTextFile(open, "");
  await Deno.chmod(open, 0o644);
  await assert.rejects(EventsJsonlSink.open(open), /other users may access it \(mode 644\)/);
  await assert.rejects(EventsJsonlSink.open(dir.path), /not a regular file/);
});

Deno.test("EventsJsonlSink appends to an existing private file", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "events.jsonl");
  await Deno.writeTextFile(path, '{"earlier":true}\n', { mode: 0o600 });
  await Deno.chmod(path, 0o600);
  const sink = await EventsJsonlSink.open(path);
  sink.handle(makeRunEvent("session_saved", { message_count: 1 }, scope));
  await sink.close();
  const lines = (await Deno.readTextFile(path)).trim().split("\n");
  assert.equal(lines.length, 2);
  assert.equal(lines[0], '{"earlier":true}');
});

Deno.test("EventsJsonlSink drops events instead of blocking when its queue is full", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "events.jsonl");
  const sink = await EventsJsonlSink.open(path, { maxQueued: 4 });
  // A burst from one step: handle() returns at once every time; only the queue's worth is kept.
  for (let i = 0; i < 100; i++) {
    sink.handle(makeRunEvent("session_saved", { message_count: i }, scope));
  }
  assert.equal(sink.dropped, 96);
  await sink.close();
  const lines = (await Deno.readTextFile(path)).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((e) => e.data.message_count), [0, 1, 2, 3], "in order, none torn");
  assert.equal(sink.written + sink.dropped, 100);
  sink.handle(makeRunEvent("session_saved", { message_count: 100 }, scope));
  assert.equal(sink.dropped, 97, "after close, events are counted as dropped");
});

Deno.test("EventsJsonlSink refuses /dev/stdout without claiming /dev does not exist", async () => {
  // Found by the adversarial review: the folder check swallowed every stat error, so a folder
  // odek may not use (/dev needs --allow-all in Deno) was reported as missing.
  await assert.rejects(EventsJsonlSink.open("/dev/stdout"), (error) => {
    assert.ok(error instanceof OdekError);
    assert.equal(error.code, "USAGE");
    assert.doesNotMatch(error.message, /does not exist/);
    assert.match(error.message, /^Cannot write events to \/dev\/stdout: /);
    return true;
  });
});

Deno.test("EventsJsonlSink refuses a path inside the guarded directory, a session journal included", async () => {
  // Found by the adversarial review: --events-jsonl ODEK_HOME/sessions/<id>.jsonl (private,
  // regular) was accepted, and the events appended to that journal made the session unloadable.
  await using dir = await tempDir();
  const sessions = join(dir.path, "sessions");
  await Deno.mkdir(sessions);
  const journal = join(sessions, "s1.jsonl");
  await Deno.writeTextFile(journal, '{"t":"meta"}\n', { mode: 0o600 });
  for (const path of [journal, join(dir.path, "new.jsonl"), join(sessions, "..", "x.jsonl")]) {
    await assert.rejects(EventsJsonlSink.open(path, { refuseInside: dir.path }), (error) => {
      assert.ok(error instanceof OdekError);
      assert.equal(error.code, "USAGE");
      assert.match(error.message, /where odek keeps its sessions and configuration/);
      return true;
    });
  }
  assert.equal(await Deno.readTextFile(journal), '{"t":"meta"}\n');
  const outside = await EventsJsonlSink.open(join(dir.path, "elsewhere.jsonl"), {
    refuseInside: sessions,
  });
  await outside.close();
});
