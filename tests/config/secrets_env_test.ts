import assert from "node:assert/strict";
import { join } from "node:path";
import { readSecretsEnv, unsetOnly } from "../../src/config/read_secrets_env.ts";
import { loadConfigLayers, mergeUserLayers } from "../../src/config/resolve_config.ts";

async function withSecrets(
  text: string,
  mode: number,
  fn: (file: string, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "secrets.env");
    await Deno.writeTextFile(file, text, { mode });
    await Deno.chmod(file, mode); // the umask may have cleared bits
    await fn(file, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("readSecretsEnv() ignores a file with any group or world bit, with a warning naming the fix", async (t) => {
  for (const mode of [0o644, 0o640, 0o604, 0o660, 0o602, 0o620]) {
    await t.step(mode.toString(8), async () => {
      await withSecrets("ODEK_TEST_TOKEN=abcdefgh12345678\n", mode, async (file) => {
        const read = await readSecretsEnv(file);
        assert.equal(read.status, "ignored");
        assert.deepEqual(read.vars, {});
        assert.equal(read.warnings.length, 1);
        assert.match(read.warnings[0], new RegExp(`chmod 600 ${file}`));
        assert.match(read.warnings[0], new RegExp(`mode ${mode.toString(8)}`));
      });
    });
  }
});

Deno.test("readSecretsEnv() reads NAME=VALUE lines of a 0600 file: comments, export, quotes; a bad line is skipped by number", async () => {
  const text = [
    "# a comment",
    "",
    "ODEK_API_KEY=sk-test-0123456789",
    "export GITHUB_TOKEN='ghp quoted value'",
    'PLAIN="double quoted"',
    "not a pair with the value hunter2-secret",
    "1BAD=x",
    "EMPTY=",
  ].join("\n");
  await withSecrets(text, 0o600, async (file) => {
    const read = await readSecretsEnv(file);
    assert.equal(read.status, "read");
    assert.deepEqual(read.vars, {
      ODEK_API_KEY: "sk-test-0123456789",
      GITHUB_TOKEN: "ghp quoted value",
      PLAIN: "double quoted",
      EMPTY: "",
    });
    assert.deepEqual(read.warnings, [
      `${file} line 6 skipped: it is not NAME=VALUE`,
      `${file} line 7 skipped: it is not NAME=VALUE`,
    ]);
    // A skipped line may hold a secret: its text is never repeated.
    assert.doesNotMatch(read.warnings.join("\n"), /hunter2/);
  });
});

Deno.test("readSecretsEnv() ignores a symlink and a missing file is absent", async () => {
  await withSecrets("A=1\n", 0o600, async (file, dir) => {
    const link = join(dir, "link.env");
    await Deno.symlink(file, link);
    assert.equal((await readSecretsEnv(link)).status, "ignored");
    assert.equal((await readSecretsEnv(join(dir, "none.env"))).status, "absent");
  });
});

Deno.test("unsetOnly() fills only variables the environment does not set (an empty one counts as set)", () => {
  assert.deepEqual(unsetOnly({ A: "1", B: "2", C: "3" }, { A: "env", C: "" }), { B: "2" });
});

Deno.test("secrets.env is the lowest layer: its ODEK_* variables lose to the user file and to the environment", async () => {
  await withSecrets(
    "ODEK_MODEL=from-secrets\nODEK_MAX_ITERATIONS=7\nODEK_MAX_TOOL_CALLS=9\n",
    0o600,
    async (file, dir) => {
      const configFile = join(dir, "config.jsonc");
      await Deno.writeTextFile(configFile, '{ "model": "from-user" }');
      const layers = await loadConfigLayers({
        configFile,
        env: { ODEK_MAX_TOOL_CALLS: "3" },
        secretsFile: file,
      });
      const merged = mergeUserLayers(layers);
      assert.equal(merged.config.model, "from-user");
      assert.equal(merged.config.budgets.maxIterations, 7);
      assert.equal(merged.origins["budgets.maxIterations"].kind, "secrets");
      // The environment sets it: the file's value is not used at all.
      assert.equal(merged.config.budgets.maxToolCalls, 3);
      assert.deepEqual(Object.keys(layers.filled).sort(), ["ODEK_MAX_ITERATIONS", "ODEK_MODEL"]);
    },
  );
});
