import assert from "node:assert/strict";
import { join } from "node:path";
import type { ModelFactory } from "../../src/runtime/build_model.ts";
import { ScriptedModel, type ScriptedModelTurns } from "../../src/testing/scripted_model.ts";
import { bwrap } from "../_helpers/sandbox.ts";
import { runtimeFixture } from "./_runtime_fixture.ts";

/** A model factory that records the key each host's model was built with. */
function keyRecorder(
  turns: ScriptedModelTurns,
): { factory: ModelFactory; keys: (string | undefined)[] } {
  const keys: (string | undefined)[] = [];
  return {
    keys,
    factory: (spec) => {
      keys.push(spec.apiKey);
      return new ScriptedModel(turns);
    },
  };
}

Deno.test("a world-readable secrets.env is ignored with a warning on every host; its key is not used", async () => {
  const value = `sk-${crypto.randomUUID()}`;
  const recorder = keyRecorder([{ text: "done" }]);
  await using f = await runtimeFixture({
    scripts: [],
    odekHomeFiles: { "secrets.env": { text: `ODEK_API_KEY=${value}\n`, mode: 0o644 } },
    runtime: { modelFactory: recorder.factory },
  });
  assert.equal(f.runtime.secretsSummary.status, "ignored");
  await using host = await f.runtime.openSession({ task: "t" }, {
    workspace: await f.workspace("ws"),
  });
  assert.match(host.warnings.join("\n"), /secrets\.env ignored: its mode 644 .*chmod 600/);
  assert.deepEqual(recorder.keys, [undefined]);
});

for (const sandbox of ["none", ...(bwrap ? ["bwrap" as const] : [])] as const) {
  Deno.test(`a 0600 secrets.env fills an unset variable (the API key), loses to one the environment sets, and never reaches a child's environment (sandbox ${sandbox})`, async () => {
    const key = `sk-${crypto.randomUUID()}`;
    const token = `tok-${crypto.randomUUID()}`;
    const recorder = keyRecorder([
      { toolCalls: [{ id: "env", name: "shell", arguments: { command: "env > envdump.txt" } }] },
      { text: "done" },
    ]);
    await using f = await runtimeFixture({
      scripts: [],
      sandbox,
      env: { ODEK_MODEL: "env-model" },
      odekHomeFiles: {
        "secrets.env": {
          text: `ODEK_API_KEY=${key}\nODEK_SECRETS_TEST_TOKEN=${token}\nODEK_MODEL=secrets-model\n`,
          mode: 0o600,
        },
      },
      runtime: { modelFactory: recorder.factory },
    });
    const summary = f.runtime.secretsSummary;
    assert.equal(summary.status, "read");
    assert.deepEqual(summary.apiKey, { variable: "ODEK_API_KEY", from: "secrets.env" });
    assert.deepEqual(summary.filled.sort(), ["ODEK_API_KEY", "ODEK_SECRETS_TEST_TOKEN"]);
    const ws = await f.workspace("ws");
    await using host = await f.runtime.openSession({ task: "t" }, { workspace: ws });
    assert.deepEqual(recorder.keys, [key], "the key came from secrets.env");
    assert.equal(host.meta.model, "env-model", "the environment's value wins over the file's");
    assert.equal((await (await host.startRun()).result).type, "completed");
    // Read the child's environment from disk, past every redactor.
    const dump = await Deno.readTextFile(join(ws, "envdump.txt"));
    assert.match(dump, /^PATH=/m, "the command ran and wrote its environment");
    for (const secret of [key, token, "ODEK_API_KEY", "ODEK_SECRETS_TEST_TOKEN"]) {
      assert.ok(!dump.includes(secret), `${secret} reached the child's environment`);
    }
    assert.equal(
      Deno.env.get("ODEK_SECRETS_TEST_TOKEN"),
      undefined,
      "nothing was set process-wide",
    );
    // The environment the broker and the sandbox context are built from never holds them.
    assert.ok(!JSON.stringify(f.runtime.env).includes(token));
    assert.ok(!JSON.stringify(f.runtime.env).includes(key));
    // And its values are redacted from what odek writes.
    assert.equal(f.runtime.redact(`x ${token} y`), "x [REDACTED] y");
  });
}
