/**
 * Behaviour both session stores share, run against each (see _store_harness.ts).
 */
import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { redactKnownValues } from "../../src/_util/redact_known_values.ts";
import { call, eachStore, errorCode, INIT } from "./_store_harness.ts";

Deno.test("SessionStore create/append/open round-trips meta and messages", async (t) => {
  await eachStore(t, {}, async ({ store }) => {
    const transcript: ChatMessage[] = [
      { role: "system", content: "be brief" },
      { role: "user", content: "list files" },
      { role: "assistant", content: null, tool_calls: [call("it1-call0", "glob")] },
      { role: "tool", tool_call_id: "it1-call0", content: '{"ok":true,"output":"a.ts"}' },
      { role: "assistant", content: "a.ts", reasoning_content: "easy" },
    ];
    const long = "x".repeat(100);
    const session = await store.create({ ...INIT, title: `\n  ${long}\nsecond line` });
    assert.match(session.meta.id, /^20260101-000000-[0-9a-f]{6}$/);
    assert.equal(session.meta.title, "x".repeat(80));
    for (const message of transcript) await session.append(message);
    assert.deepEqual(session.messages, transcript);
    await session.close();
    await session.close(); // idempotent

    const reopened = await store.open(session.meta.id);
    try {
      assert.deepEqual(reopened.messages, transcript);
      assert.deepEqual(reopened.repairedToolCallIds, []);
      assert.deepEqual(reopened.meta, session.meta);
      assert.equal(reopened.meta.createdAt, "2026-01-01T00:00:00.000Z");
    } finally {
      await reopened.close();
    }
    assert.deepEqual((await store.read(session.meta.id)).messages, transcript);
  });
});

Deno.test("SessionStore updateMeta() patches are applied on reopen", async (t) => {
  await eachStore(t, {}, async ({ store }) => {
    const session = await store.create({ ...INIT, id: "patched" });
    await session.updateMeta({ model: "other-model" });
    assert.equal(session.meta.model, "other-model");
    await session.close();
    const { meta } = await store.read("patched");
    assert.equal(meta.model, "other-model");
    assert.equal(meta.baseUrl, INIT.baseUrl);
  });
});

Deno.test("SessionStore locks an open session and refuses a second open or delete", async (t) => {
  await eachStore(t, {}, async ({ store }) => {
    const session = await store.create({ ...INIT, id: "busy" });
    assert.equal(await errorCode(store.open("busy")), "SESSION_LOCKED");
    assert.equal(await errorCode(store.delete("busy")), "SESSION_LOCKED");
    assert.equal((await store.list())[0].locked, true);
    await session.close();
    assert.equal((await store.list())[0].locked, false);
    const again = await store.open("busy");
    await again.close();
  });
});

Deno.test("SessionStore redacts secrets and their base64 form before writing", async (t) => {
  const secret = "sk-test-0123456789abcdef";
  await eachStore(t, { redact: redactKnownValues([secret]) }, async ({ store, raw }) => {
    const session = await store.create({ ...INIT, id: "secret", title: `use ${secret}` });
    await session.append({ role: "user", content: `key ${secret} and ${btoa(secret)}` });
    await session.append({
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "c1",
        type: "function",
        function: { name: "shell", arguments: `{"k":"${secret}"}` },
      }],
    });
    await session.updateMeta({ baseUrl: `http://h/?key=${secret}` });
    await session.close();
    const text = (await raw("secret"))!;
    assert.ok(!text.includes(secret) && !text.includes(btoa(secret)), text);
    assert.equal(text.match(/\[REDACTED\]/g)?.length, 5);
    assert.equal(session.messages[0].content, "key [REDACTED] and [REDACTED]");

    // A secret that straddles the 80-character title cut is redacted before the cut.
    const cut = await store.create({ ...INIT, id: "cut", title: `${"x".repeat(70)}${secret}` });
    await cut.close();
    assert.equal(cut.meta.title, `${"x".repeat(70)}[REDACTED]`);
    assert.ok(!(await raw("cut"))!.includes(secret.slice(0, 10)));
  });
});

Deno.test("SessionStore list() is newest first, latest() and delete() follow it", async (t) => {
  await eachStore(t, {}, async ({ store }) => {
    assert.deepEqual(await store.list(), []);
    assert.equal(await store.latest(), undefined);
    const a = await store.create({ ...INIT, id: "alpha" });
    const b = await store.create({ ...INIT, id: "beta" });
    await b.close();
    await a.append({ role: "user", content: "later" });
    await a.close();
    const rows = await store.list();
    assert.deepEqual(rows.map((row) => row.id), ["alpha", "beta"]);
    assert.equal(rows[0].messageCount, 1);
    assert.ok(rows[0].bytes > rows[1].bytes);
    assert.equal(await store.latest(), "alpha");
    await store.delete("alpha");
    assert.equal(await store.latest(), "beta");
    assert.equal(await errorCode(store.read("alpha")), "SESSION_NOT_FOUND");
    assert.equal(await errorCode(store.delete("alpha")), "SESSION_NOT_FOUND");
  });
});

Deno.test("SessionStore refuses invalid names, taken names and unknown sessions", async (t) => {
  await eachStore(t, {}, async ({ store }) => {
    for (const id of ["", ".", "..", "../x", "a/b", "-x", ".hidden", "a b", "x".repeat(65)]) {
      assert.equal(await errorCode(store.create({ ...INIT, id })), "USAGE", id);
      assert.equal(await errorCode(store.open(id)), "USAGE", id);
      assert.equal(await errorCode(store.delete(id)), "USAGE", id);
    }
    const session = await store.create({ ...INIT, id: "taken" });
    await session.close();
    assert.equal(await errorCode(store.create({ ...INIT, id: "taken" })), "USAGE");
    await assert.rejects(store.open("nope"), /odek sessions list/);
    assert.equal(await errorCode(store.open("nope")), "SESSION_NOT_FOUND");
  });
});

Deno.test("SessionStore append() rejects an invalid message and writes nothing", async (t) => {
  await eachStore(t, {}, async ({ store, raw }) => {
    const session = await store.create({ ...INIT, id: "strict" });
    const before = await raw("strict");
    const invalid = { role: "tool", tool_call_id: "", content: "x" } as ChatMessage;
    await assert.rejects(session.append(invalid), TypeError);
    await session.close();
    assert.equal(await raw("strict"), before);
    await assert.rejects(session.append({ role: "user", content: "late" }), /closed/);
  });
});
