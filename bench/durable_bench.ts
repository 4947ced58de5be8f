/**
 * Durable-run benchmark (`deno task bench`): the overhead one step of a durable run adds over a
 * local one. The same trivial tool-call step (its work returns at once; the model and the tool
 * are left out, so only the recording is measured) runs 200 times through:
 * - local: `journalStepRunner` on a session of the file store (one fsynced line per step);
 * - durable: `durableStepRunner` inside one DBOS workflow, on a session in PostgreSQL (the start
 *   mark, the engine's step record, the journal row), on a throw-away cluster on loopback with
 *   fsync off (a real server's commit latency comes on top: one to three commits per step).
 * Needs PostgreSQL; prints why it skipped otherwise.
 *
 * @module
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
// @ts-types="@types/pg"
import pg from "pg";
import { durableStepRunner } from "../src/durable/durable_step_runner.ts";
import { PgJournalBackend } from "../src/durable/pg_journal_backend.ts";
import { ensureQueueSchema } from "../src/durable/queue_schema.ts";
import { journalStepRunner } from "../src/loop/journal_step_runner.ts";
import type { Step, StepRunner } from "../src/loop/step_runner.ts";
import type { ToolMessage } from "../src/_util/chat_message.ts";
import { BackendSessionStore } from "../src/session/backend_session_store.ts";
import { FileSessionStore } from "../src/session/file_session_store.ts";
import { findPostgres, startTestPostgres } from "../tests/durable/_postgres.ts";

const STEPS = 200;
const init = { workspace: "/w", model: "m", baseUrl: "http://127.0.0.1:1/v1", title: "bench" };

function step(i: number): Step<ToolMessage> {
  return {
    info: { type: "tool_call", iteration: 1, callId: `c${i}`, name: "glob" },
    execute: () => Promise.resolve({ role: "tool", tool_call_id: `c${i}`, content: `r${i}` }),
    records: (message) => [message],
  };
}

async function steps(runner: StepRunner): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < STEPS; i++) await runner.run(step(i));
  return (performance.now() - started) / STEPS;
}

const found = findPostgres();
if ("missing" in found) {
  console.log(`durable step overhead: skipped (${found.missing})`);
} else {
  const dir = await Deno.makeTempDir({ prefix: "odek-durable-bench-" });
  await using postgres = await startTestPostgres(found.bin);
  const url = await postgres.database("bench");
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  try {
    await using local = await new FileSessionStore(dir).create(init);
    const localMs = await steps(journalStepRunner(local));

    await ensureQueueSchema(pool);
    DBOS.setConfig({ name: "odek-bench", systemDatabaseUrl: url, logLevel: "error" });
    const workflow = DBOS.registerWorkflow(async () => {
      const store = new BackendSessionStore(
        new PgJournalBackend(pool, { owner: "bench", view: 0, dedupe: "bench" }),
      );
      await using session = await store.create({ ...init, id: "bench" });
      const runner = durableStepRunner({
        journal: session,
        pool,
        workflowId: DBOS.workflowID!,
        workerId: "bench",
      });
      return await steps(runner);
    }, { name: "bench" });
    await DBOS.launch();
    const durableMs = await workflow();
    await DBOS.shutdown();
    console.log(
      `durable step overhead (${STEPS} trivial tool steps): local ${localMs.toFixed(2)} ms/step, ` +
        `durable ${durableMs.toFixed(2)} ms/step, overhead ${
          (durableMs - localMs).toFixed(2)
        } ms/step`,
    );
  } finally {
    await pool.end();
    await Deno.remove(dir, { recursive: true });
  }
}
