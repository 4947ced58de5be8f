/** The `compaction` journal record: written redacted, the last one loaded on open. */
import assert from "node:assert/strict";
import { eachStore, INIT } from "./_store_harness.ts";

Deno.test("SessionStore recordCompaction() is journaled redacted and the newest digest survives a reopen", async (t) => {
  await eachStore(t, { redact: (text) => text.replaceAll("hunter22", "[REDACTED]") }, async (h) => {
    const session = await h.store.create(INIT);
    assert.equal(session.compaction, undefined);
    await session.append({ role: "user", content: "task" });
    await session.recordCompaction({ digest: "first digest", coveredUntil: 3 });
    await session.append({ role: "assistant", content: "later" });
    await session.recordCompaction({ digest: "password hunter22 seen", coveredUntil: 7 });
    assert.deepEqual(session.compaction, { digest: "password [REDACTED] seen", coveredUntil: 7 });
    await session.close();
    const raw = (await h.raw(session.meta.id))!;
    assert.ok(!raw.includes("hunter22"), "the digest was written unredacted");
    assert.equal(raw.split("\n").filter((line) => line.includes('"t":"compaction"')).length, 2);
    const reopened = await h.store.open(session.meta.id);
    try {
      assert.deepEqual(reopened.compaction, {
        digest: "password [REDACTED] seen",
        coveredUntil: 7,
      });
      // Compaction records are not transcript messages.
      assert.deepEqual(reopened.messages.map((m) => m.role), ["user", "assistant"]);
    } finally {
      await reopened.close();
    }
  });
});
