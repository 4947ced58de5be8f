import assert from "node:assert/strict";
// @ts-types="@types/pg"
import pg from "pg";
import { PgJournalBackend } from "../../src/durable/pg_journal_backend.ts";
import { ensureQueueSchema } from "../../src/durable/queue_schema.ts";
import { BackendSessionStore } from "../../src/session/backend_session_store.ts";
import { findPostgres, startTestPostgres } from "./_postgres.ts";

const found = findPostgres();
if ("missing" in found) console.log(`PostgreSQL session store tests skipped: ${found.missing}`);

const init = { workspace: "/w", model: "m", baseUrl: "http://127.0.0.1:1/v1", title: "t" };

Deno.test({
  name:
    "PostgreSQL sessions: the file journal's records, locks, and a replayed workflow writes each record once",
  ignore: "missing" in found,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    if ("missing" in found) return;
    await using postgres = await startTestPostgres(found.bin);
    const pool = new pg.Pool({ connectionString: await postgres.database("s") });
    try {
      await ensureQueueSchema(pool);
      const store = (owner: string, extra: { view?: number; dedupe?: string } = {}) =>
        new BackendSessionStore(new PgJournalBackend(pool, { owner, ...extra }));

      await t.step(
        "create, append, read, list; a second owner is refused while it is open",
        async () => {
          const session = await store("a").create({ ...init, id: "one" });
          await session.append({ role: "user", content: "hello" });
          await session.recordToolStarted("c1");
          const code = await store("b").open("one").then(() => "opened", (e) => e.code);
          assert.equal(code, "SESSION_LOCKED");
          const [row] = await store("b").list();
          assert.equal(row.locked, true);
          await session.close();
          const records = await store("b").read("one");
          assert.deepEqual(records.messages, [{ role: "user", content: "hello" }]);
          const again = await store("b").open("one");
          assert.equal(again.messages.length, 1);
          await again.close();
        },
      );

      await t.step(
        "a replay of the same workflow from its start view writes nothing twice",
        async () => {
          const write = async () => {
            const s = store("wf-1", { view: 0, dedupe: "wf-1" });
            const session = await s.create({ ...init, id: "two" });
            await session.append({ role: "user", content: "task" });
            await session.append({ role: "assistant", content: "same" });
            await session.append({ role: "assistant", content: "same" });
            return session;
          };
          await write(); // the first execution dies without closing
          const replay = await write();
          await replay.append({ role: "user", content: "after the crash" });
          await replay.close();
          const { messages } = await store("x").read("two");
          assert.deepEqual(messages.map((m) => m.content), [
            "task",
            "same",
            "same",
            "after the crash",
          ]);
        },
      );

      await t.step(
        "a replay after the first execution closed the session (killed before the engine recorded the end) opens it again",
        async () => {
          const write = async () => {
            const session = await store("wf-3", { view: 0, dedupe: "wf-3" }).create({
              ...init,
              id: "three",
            });
            await session.append({ role: "user", content: "task" });
            return session;
          };
          await (await write()).close(); // the lock is released, the workflow not finished
          const replay = await write();
          await replay.close();
          assert.deepEqual((await store("x").read("three")).messages.map((m) => m.content), [
            "task",
          ]);
          // Another workflow's create of the same name is still refused, and so is a replay
          // while another owner holds the session.
          const other = await store("wf-4", { view: 0, dedupe: "wf-4" })
            .create({ ...init, id: "three" }).then(() => "created", (e) => e.message);
          assert.match(other, /already exists/);
          const held = await store("b").open("three");
          const code = await store("wf-3", { view: 0, dedupe: "wf-3" })
            .create({ ...init, id: "three" }).then(() => "created", (e) => e.code);
          assert.equal(code, "SESSION_LOCKED");
          await held.close();
        },
      );
    } finally {
      await pool.end();
    }
  },
});
