/**
 * Loading and resume behaviour both session stores share: torn tails, corruption, repair.
 */
import assert from "node:assert/strict";
import type { OdekError } from "../../src/_util/odek_error.ts";
import { call, eachStore, errorCode, messageLine, metaLine } from "./_store_harness.ts";

Deno.test("SessionStore tolerates a torn last line and keeps its bytes in the sidecar", async (t) => {
  const tornTail = '{"t":"message","at":"2025-12-31T00:00:02.000Z","message":{"role":"us';
  for (const [label, tail] of [["unterminated", tornTail], ["garbage line", "\u0000garbage\n"]]) {
    await t.step(label, async (t) => {
      const journal = metaLine("torn") + messageLine({ role: "user", content: "one" }) + tail;
      await eachStore(t, { journals: { torn: journal } }, async ({ store, raw, torn }) => {
        assert.equal((await store.read("torn")).messages.length, 1);
        assert.equal(await torn("torn"), undefined, "read() must not write");
        const session = await store.open("torn");
        assert.deepEqual(session.messages, [{ role: "user", content: "one" }]);
        assert.equal(await torn("torn"), tail);
        await session.append({ role: "user", content: "two" });
        await session.close();
        const text = (await raw("torn"))!;
        for (const line of text.trimEnd().split("\n")) JSON.parse(line);
        assert.deepEqual((await store.read("torn")).messages.map((m) => m.content), ["one", "two"]);
      });
    });
  }
});

Deno.test("SessionStore finishes an unterminated but valid last record before appending", async (t) => {
  const journal = metaLine("nonl") + messageLine({ role: "user", content: "one" }).trimEnd();
  await eachStore(t, { journals: { nonl: journal } }, async ({ store, torn }) => {
    const session = await store.open("nonl");
    await session.append({ role: "user", content: "two" });
    await session.close();
    assert.equal(await torn("nonl"), undefined);
    assert.deepEqual((await store.read("nonl")).messages.map((m) => m.content), ["one", "two"]);
  });
});

Deno.test("SessionStore refuses a garbage middle line with SESSION_CORRUPT and the line number", async (t) => {
  const journal = metaLine("bad") + "not json\n" + messageLine({ role: "user", content: "one" });
  await eachStore(t, { journals: { bad: journal } }, async ({ store }) => {
    for (const attempt of [() => store.open("bad"), () => store.read("bad")]) {
      await assert.rejects(attempt(), (error: OdekError) => {
        assert.equal(error.code, "SESSION_CORRUPT");
        assert.match(error.message, /line 2 of .*bad/);
        assert.match(error.message, /odek sessions delete bad/);
        return true;
      });
    }
    // The failed open released its lock.
    assert.equal(await errorCode(store.delete("bad")), "no error");
  });
});

Deno.test("SessionStore refuses a journal without a meta record or with another session's meta", async (t) => {
  const journals = {
    empty: "",
    headless: messageLine({ role: "user", content: "x" }) + metaLine("headless"),
    other: metaLine("someone-else"),
  };
  await eachStore(t, { journals }, async ({ store }) => {
    for (const id of Object.keys(journals)) {
      assert.equal(await errorCode(store.read(id)), "SESSION_CORRUPT", id);
    }
    const rows = await store.list();
    assert.equal(rows.length, 3);
    assert.ok(rows.every((row) => row.problem?.includes("cannot be loaded")));
  });
});

Deno.test("SessionStore open() repairs an interrupted batch once, in call order", async (t) => {
  const assistant = {
    role: "assistant",
    content: null,
    tool_calls: [call("c1"), call("c2", "read_file"), call("c3")],
  };
  const journal = metaLine("crash") + messageLine({ role: "user", content: "go" }) +
    messageLine(assistant) +
    messageLine({ role: "tool", tool_call_id: "c2", content: "done" });
  await eachStore(t, { journals: { crash: journal } }, async ({ store, raw }) => {
    const first = await store.open("crash");
    const firstMessages = [...first.messages];
    await first.close();
    assert.deepEqual(first.repairedToolCallIds, ["c1", "c3"]);
    assert.deepEqual(firstMessages.slice(2).map((m) => m.role === "tool" && m.tool_call_id), [
      "c1",
      "c2",
      "c3",
    ]);
    assert.equal(
      firstMessages[2].content,
      "error (interrupted): Tool call c1 (shell) was interrupted before " +
        "completion (odek stopped); it was not re-run and may have had partial effects. Check its effects " +
        "before retrying.",
    );
    const records = (await raw("crash"))!.trimEnd().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(records.at(-1).toolCallIds, ["c1", "c3"]);
    assert.equal(records.at(-1).t, "repair");
    assert.equal(records.length, 7);

    const second = await store.open("crash");
    await second.close();
    assert.deepEqual(second.repairedToolCallIds, []);
    assert.deepEqual(second.messages, firstMessages);
    assert.equal((await raw("crash"))!.trimEnd().split("\n").length, 7);
  });
});

Deno.test("SessionStore drops an orphan tool result from the transcript but keeps it in the journal", async (t) => {
  const journal = metaLine("orphan") +
    messageLine({ role: "tool", tool_call_id: "ghost", content: "?" }) +
    messageLine({ role: "user", content: "hi" });
  await eachStore(t, { journals: { orphan: journal } }, async ({ store, raw }) => {
    const session = await store.open("orphan");
    await session.close();
    assert.deepEqual(session.messages, [{ role: "user", content: "hi" }]);
    assert.match((await raw("orphan"))!, /ghost/);
  });
});
