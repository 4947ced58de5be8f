import assert from "node:assert/strict";
import { join } from "node:path";
import { OdekError } from "../../src/_util/odek_error.ts";
import type { RuntimeEvent } from "../../src/runtime/event_subscription.ts";
import { plantCanaryRepository } from "../checkpoint/_canary_repo.ts";
import { runtimeFixture } from "./_runtime_fixture.ts";

async function all(events: AsyncIterable<RuntimeEvent>): Promise<RuntimeEvent[]> {
  const out: RuntimeEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const write = (id: string, path: string, content: string) => ({
  toolCalls: [{ id, name: "write_file", arguments: { path, content } }],
});

Deno.test("a writing step is checkpointed before and after: its changes, a diff, and the run's summary", async () => {
  await using f = await runtimeFixture({
    scripts: [[
      { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "stats.sh" } }] },
      write("w1", "stats.sh", "echo $((1 + 2))\n"),
      write("w2", "notes/new.txt", "one\ntwo\n"),
      { text: "Fixed." },
    ]],
  });
  const workspace = await f.workspace("ws");
  await Deno.writeTextFile(join(workspace, "stats.sh"), "echo $((1 + 1))\n");
  await using host = await f.runtime.openSession({ task: "fix stats.sh" }, { workspace });
  await using run = await host.startRun();
  const events = await all(run.events);
  assert.equal((await run.result).type, "completed");
  const started = events.find((e) => e.type === "run_started");
  assert.equal(started?.type === "run_started" && started.data.checkpoints, true);
  const changed = events.filter((e) => e.type === "files_changed");
  assert.deepEqual(
    changed.map((e) =>
      e.type === "files_changed" ? e.data.files.map((f) => `${f.change} ${f.path}`) : []
    ),
    [["modified stats.sh"], ["added notes/new.txt"]],
  );
  const first = changed[0].type === "files_changed" ? changed[0].data.files[0] : undefined;
  assert.equal(first?.diff, "@@ -1,1 +1,1 @@\n-echo $((1 + 1))\n+echo $((1 + 2))");
  const summary = events.find((e) => e.type === "run_files_changed");
  assert.deepEqual(
    summary?.type === "run_files_changed" &&
      summary.data.files.map((f) => [f.path, f.change, f.added, f.removed]),
    [["notes/new.txt", "added", 2, 0], ["stats.sh", "modified", 1, 1]],
  );
  // The read took no checkpoint; each write one before and one after — and the second write's
  // "before" is the first one's "after", so the journal does not repeat it.
  const { checkpoints } = await f.runtime.sessions.read(host.sessionId);
  assert.deepEqual(checkpoints.map((c) => c.phase), ["before", "after", "after"]);
});

Deno.test("host.rewind() undoes the last turn: its files and its messages, and the next request leaves it out", async () => {
  await using f = await runtimeFixture({
    scripts: [[
      write("w1", "a.txt", "first version\n"),
      { text: "Wrote a.txt." },
      write("w2", "a.txt", "second version\n"),
      write("w3", "b.txt", "made by turn two\n"),
      { text: "Rewrote a.txt." },
      { text: "Back at turn one." },
    ]],
  });
  const workspace = await f.workspace("ws");
  await using host = await f.runtime.openSession({ task: "write a.txt" }, { workspace });
  assert.equal((await (await host.startRun()).result).type, "completed");
  await (await host.startRun({ message: "now rewrite it" })).result;
  assert.deepEqual(host.turns().map((t) => t.text), ["write a.txt", "now rewrite it"]);
  const undone = await host.rewind();
  assert.equal(undone.turn.turn, 2);
  assert.deepEqual(undone.files?.written, ["a.txt"]);
  assert.deepEqual(undone.files?.deleted, ["b.txt"]);
  assert.equal(await Deno.readTextFile(join(workspace, "a.txt")), "first version\n");
  assert.equal(await Deno.stat(join(workspace, "b.txt")).catch(() => null), null);
  assert.deepEqual(undone.conversation, { kept: 5, removed: 6 });
  await (await host.startRun({ message: "where are we?" })).result;
  const last = f.models[0].requests.at(-1)!;
  const sent = JSON.stringify(last.messages);
  assert.ok(sent.includes("write a.txt") && sent.includes("where are we?"));
  assert.ok(!sent.includes("now rewrite it") && !sent.includes("w2"), sent);
  // The journal keeps everything and records the rewind.
  const read = await f.runtime.sessions.read(host.sessionId);
  assert.ok(read.messages.some((m) => m.role === "user" && m.content === "now rewrite it"));
  assert.deepEqual(read.rewinds.map((r) => [r.record.turn, r.record.conversation]), [[2, true]]);
  assert.equal(read.rewinds[0].record.files?.written, 1);
});

Deno.test("a rewind never overwrites a file changed outside odek without consent", async (t) => {
  for (const answer of ["cancel", "keep", "overwrite"] as const) {
    await t.step(answer, async () => {
      await using f = await runtimeFixture({
        scripts: [[
          write("w1", "a.txt", "odek's\n"),
          write("w2", "b.txt", "odek's b\n"),
          { text: "Done." },
        ]],
      });
      const workspace = await f.workspace("ws");
      await Deno.writeTextFile(join(workspace, "a.txt"), "original\n");
      await Deno.writeTextFile(join(workspace, "b.txt"), "original b\n");
      await using host = await f.runtime.openSession({ task: "edit" }, { workspace });
      await (await host.startRun()).result;
      await Deno.writeTextFile(join(workspace, "a.txt"), "the operator's own edit\n");
      let asked: readonly string[] = [];
      const rewind = host.rewind({
        onConflict: (paths) => {
          asked = paths;
          return Promise.resolve(answer);
        },
      });
      if (answer === "cancel") {
        await assert.rejects(
          rewind,
          (e) =>
            e instanceof OdekError && e.code === "RESTORE_CONFLICT" && /a\.txt/.test(e.message),
        );
        assert.equal(await Deno.readTextFile(join(workspace, "b.txt")), "odek's b\n");
        assert.equal(host.turns().length, 1, "nothing is rewound");
      } else {
        const outcome = await rewind;
        assert.deepEqual(outcome.files?.conflicts, ["a.txt"]);
        assert.equal(await Deno.readTextFile(join(workspace, "b.txt")), "original b\n");
      }
      assert.deepEqual(asked, ["a.txt"]);
      assert.equal(
        await Deno.readTextFile(join(workspace, "a.txt")),
        answer === "overwrite" ? "original\n" : "the operator's own edit\n",
      );
    });
  }
});

Deno.test("rewind to an earlier turn: the files only, then the conversation only", async () => {
  await using f = await runtimeFixture({
    scripts: [[
      write("w1", "a.txt", "1\n"),
      { text: "one" },
      write("w2", "a.txt", "2\n"),
      { text: "two" },
      write("w3", "a.txt", "3\n"),
      { text: "three" },
    ], []],
  });
  const workspace = await f.workspace("ws");
  await using host = await f.runtime.openSession({ task: "turn one" }, { workspace });
  await (await host.startRun()).result;
  await (await host.startRun({ message: "turn two" })).result;
  await (await host.startRun({ message: "turn three" })).result;
  const files = await host.rewind({ turn: 2, conversation: false });
  assert.equal(files.conversation, undefined);
  assert.equal(await Deno.readTextFile(join(workspace, "a.txt")), "1\n");
  assert.equal(host.turns().length, 3);
  const talk = await host.rewind({ turn: 2, files: false });
  assert.equal(talk.files, undefined);
  assert.equal(await Deno.readTextFile(join(workspace, "a.txt")), "1\n");
  assert.deepEqual(host.turns().map((t) => t.text), ["turn one"]);
  // The rewound state survives a reopen: the journal is the record.
  await host.close();
  await using again = await f.runtime.openSession({ sessionId: host.sessionId }, { workspace });
  assert.deepEqual(again.turns().map((t) => t.text), ["turn one"]);
  await assert.rejects(
    again.rewind({ turn: 5 }),
    (e) => e instanceof OdekError && e.code === "USAGE" && /turns 1 to 1, not 5/.test(e.message),
  );
});

Deno.test("checkpoint, undo and rewind never run a workspace's git filter driver, hooks or fsmonitor", async () => {
  await using f = await runtimeFixture({
    scripts: [[write("w1", "src.txt", "changed\n"), { text: "done" }]],
  });
  const workspace = await f.workspace("ws");
  const scratch = await f.workspace("scratch");
  const marker = await plantCanaryRepository(workspace, scratch);
  await Deno.writeTextFile(join(workspace, "src.txt"), "original\n");
  await using host = await f.runtime.openSession({ task: "edit src.txt" }, { workspace });
  await (await host.startRun()).result;
  const rewound = await host.rewind({ conversation: false });
  assert.deepEqual(rewound.files?.written, ["src.txt"]);
  await host.rewind({ turn: 1 });
  assert.equal(await Deno.readTextFile(join(workspace, "src.txt")), "original\n");
  assert.equal(await Deno.stat(marker).catch(() => null), null, "the canary ran");
  // The workspace's .git was never recorded nor touched.
  assert.match(await Deno.readTextFile(join(workspace, ".git/config")), /filter "canary"/);
});

Deno.test("a workspace over the checkpoint caps turns checkpoints off, says so once, and the run goes on", async () => {
  await using f = await runtimeFixture({
    scripts: [[write("w1", "a.txt", "x"), write("w2", "b.txt", "y"), { text: "done" }]],
    config: { checkpoints: { maxFiles: 2 } },
  });
  const workspace = await f.workspace("ws");
  for (const name of ["1", "2", "3"]) await Deno.writeTextFile(join(workspace, name), name);
  await using host = await f.runtime.openSession({ task: "write" }, { workspace });
  await using run = await host.startRun();
  const events = await all(run.events);
  assert.equal((await run.result).type, "completed");
  const off = events.filter((e) => e.type === "checkpoints_off");
  assert.equal(off.length, 1);
  assert.match(
    off[0].type === "checkpoints_off" ? off[0].data.reason : "",
    /more than 2 files \(checkpoints\.maxFiles\)/,
  );
  assert.match(host.checkpointsOff ?? "", /checkpoints\.maxFiles/);
  assert.equal(await Deno.readTextFile(join(workspace, "b.txt")), "y");
});

Deno.test("odek's runtime rewinds a session no host has open, and lists its turns", async () => {
  await using f = await runtimeFixture({
    scripts: [[write("w1", "a.txt", "new\n"), { text: "done" }]],
  });
  const workspace = await f.workspace("ws");
  await Deno.writeTextFile(join(workspace, "a.txt"), "old\n");
  const host = await f.runtime.openSession({ task: "edit a" }, { workspace });
  await (await host.startRun()).result;
  await host.close();
  const turns = await f.runtime.turns(host.sessionId);
  assert.equal(turns.length, 1);
  assert.ok(turns[0].checkpoint);
  const outcome = await f.runtime.rewind(host.sessionId);
  assert.equal(outcome.workspace, workspace);
  assert.equal(await Deno.readTextFile(join(workspace, "a.txt")), "old\n");
  assert.deepEqual(await f.runtime.turns(host.sessionId), []);
  const { here, elsewhere } = await f.runtime.sessionsOf(workspace);
  assert.deepEqual([here.map((s) => s.id), elsewhere.length], [[host.sessionId], 0]);
});

Deno.test("a step a crash stopped between its checkpoints counts as odek's: a rewind takes it back without asking", async () => {
  await using f = await runtimeFixture({
    scripts: [[write("w1", "a.txt", "turn one\n"), { text: "done" }]],
  });
  const workspace = await f.workspace("ws");
  const host = await f.runtime.openSession({ task: "write a.txt" }, { workspace });
  await (await host.startRun()).result;
  await host.close();
  // What a crash leaves: a "before" checkpoint journaled, the step's write, no "after".
  {
    await using session = await f.runtime.sessions.open(host.sessionId);
    await session.append({ role: "user", content: "now break it" });
    const { GitCheckpointStore } = await import("../../src/checkpoint/git_checkpoint_store.ts");
    await using store = await GitCheckpointStore.open({
      dir: join(f.odekHome, "checkpoints"),
      workspace,
      sessionId: host.sessionId,
    });
    const before = await store.record({ phase: "before", label: "before shell (c9)" });
    await session.recordCheckpoint({ id: before.id, phase: "before" });
    await Deno.writeTextFile(join(workspace, "a.txt"), "half-done by a killed step\n");
  }
  let asked = false;
  const outcome = await f.runtime.rewind(host.sessionId, {
    onConflict: () => {
      asked = true;
      return Promise.resolve("cancel");
    },
  });
  assert.equal(asked, false);
  assert.equal(outcome.turn.text, "now break it");
  assert.equal(await Deno.readTextFile(join(workspace, "a.txt")), "turn one\n");
});
