import assert from "node:assert/strict";
import { join } from "node:path";
import { OdekError } from "../../src/_util/odek_error.ts";
import { originOf } from "../../src/config/merge_config_layers.ts";
import { readProjectLayer } from "../../src/config/read_project_layer.ts";
import {
  loadConfigLayers,
  MAX_CONFIG_BYTES,
  mergeUserLayers,
} from "../../src/config/resolve_config.ts";
import { tightenProjectLayer } from "../../src/config/tighten_project_layer.ts";

/** A scratch ODEK_HOME and workspace. */
async function scratch(): Promise<{ dir: string; home: string; ws: string } & AsyncDisposable> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-layers-" }));
  const home = join(dir, "odek-home");
  const ws = join(dir, "ws");
  await Deno.mkdir(home);
  await Deno.mkdir(ws);
  return {
    dir,
    home,
    ws,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

async function rejection(promise: Promise<unknown>): Promise<OdekError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OdekError, `expected OdekError, got ${error}`);
    return error;
  }
  assert.fail("expected a rejection");
}

/** Every layer sets budgets.maxToolCalls (lower and lower, so the project may too) and one key of its own. */
Deno.test("each layer wins over the ones before it: defaults < secrets.env < user < project < env < flags", async (t) => {
  await using s = await scratch();
  const secretsFile = join(s.home, "secrets.env");
  const configFile = join(s.home, "config.jsonc");
  await Deno.writeTextFile(secretsFile, "ODEK_MAX_TOOL_CALLS=60\nODEK_MAX_ITERATIONS=50\n", {
    mode: 0o600,
  });
  await Deno.chmod(secretsFile, 0o600);
  await Deno.writeTextFile(
    configFile,
    '{ "budgets": { "maxToolCalls": 50, "maxToolParallel": 3 }, "model": "user-model" }',
  );
  await Deno.writeTextFile(
    join(s.ws, "odek.jsonc"),
    '{ "budgets": { "maxToolCalls": 40 }, "timeouts": { "shellSeconds": 60 }, "model": "project-model" }',
  );
  const layers = await loadConfigLayers({
    configFile,
    secretsFile,
    env: { ODEK_MAX_TOOL_CALLS: "30", ODEK_MODEL: "env-model", ODEK_RETRY_MAX_ATTEMPTS: "3" },
    flags: { budgets: { maxToolCalls: 20 }, model: "flag-model" },
  });
  const read = await readProjectLayer(s.ws);
  const [secrets, user] = layers.layers;
  const below = mergeUserLayers({ ...layers, layers: [secrets, user] }).config;
  const tightened = tightenProjectLayer(read.layer!, below, read.file);
  assert.deepEqual(tightened.warnings, []);
  const merged = mergeUserLayers(layers, {
    kind: "project",
    source: read.file,
    layer: tightened.layer,
  });
  const cases: [string, string[], unknown, string][] = [
    ["flags over env", ["budgets", "maxToolCalls"], 20, "flags"],
    ["flags over env (model)", ["model"], "flag-model", "flags"],
    ["env over project", ["retry", "maxAttempts"], 3, "env"],
    ["project over user", ["timeouts", "shellSeconds"], 60, "project"],
    ["user over secrets.env", ["budgets", "maxToolParallel"], 3, "user"],
    ["secrets.env over defaults", ["budgets", "maxIterations"], 50, "secrets"],
    ["defaults", ["timeouts", "requestSeconds"], 600, "default"],
  ];
  for (const [name, keys, value, layer] of cases) {
    await t.step(name, () => {
      const actual = keys.reduce<unknown>(
        (node, key) => (node as Record<string, unknown>)[key],
        merged.config,
      );
      assert.equal(actual, value);
      assert.equal(originOf(merged, keys).kind, layer);
    });
  }
  await t.step("without flags and env, the project's lower value wins over the user's", () => {
    const noTop = { ...layers, layers: [secrets, user] };
    const m = mergeUserLayers(noTop, {
      kind: "project",
      source: read.file,
      layer: tightened.layer,
    });
    assert.equal(m.config.budgets.maxToolCalls, 40);
    assert.equal(m.config.model, "project-model");
    assert.equal(m.origins.model.source, read.file);
  });
});

Deno.test("an empty or comment-only file is an empty layer (user and project)", async () => {
  await using s = await scratch();
  const configFile = join(s.home, "config.jsonc");
  await Deno.writeTextFile(configFile, "// nothing yet\n");
  await Deno.writeTextFile(join(s.ws, "odek.jsonc"), "");
  const layers = await loadConfigLayers({ configFile, env: {} });
  assert.deepEqual(layers.layers[1].layer, {});
  assert.deepEqual((await readProjectLayer(s.ws)).layer, {});
});

Deno.test("the project file: errors name it, the key path, the value and the expected shape", async () => {
  await using s = await scratch();
  const file = join(s.ws, "odek.jsonc");
  await Deno.writeTextFile(file, '{ "budgets": { "maxToolCalls": "lots" } }');
  let error = await rejection(readProjectLayer(s.ws));
  assert.equal(error.code, "CONFIG_INVALID");
  assert.ok(error.message.includes(file), error.message);
  assert.match(error.message, /"budgets\.maxToolCalls": got "lots", expected a number/);
  await Deno.writeTextFile(file, '{ "budgets": { "maxToolCals": 3 } }');
  error = await rejection(readProjectLayer(s.ws));
  assert.match(
    error.message,
    /unknown key budgets\.maxToolCals\. Did you mean "budgets\.maxToolCalls"\?/,
  );
  await Deno.writeTextFile(file, '{ "model": "m",\n  "budgets": { ');
  error = await rejection(readProjectLayer(s.ws));
  assert.match(error.message, /Cannot parse .*odek\.jsonc at line 2/);
});

Deno.test("files over 5 MiB are refused: the user's and the project's", async () => {
  await using s = await scratch();
  const big = `{ "model": "m" }${" ".repeat(MAX_CONFIG_BYTES)}`;
  const configFile = join(s.home, "config.jsonc");
  await Deno.writeTextFile(configFile, big);
  const user = await rejection(loadConfigLayers({ configFile, env: {} }));
  assert.match(user.message, /more than the 5 MiB/);
  await Deno.writeTextFile(join(s.ws, "odek.jsonc"), big);
  const project = await rejection(readProjectLayer(s.ws));
  assert.match(project.message, /project file .*odek\.jsonc: it is \d+ bytes, more than the 5 MiB/);
});

Deno.test("a symlinked or non-regular odek.jsonc is refused, never followed", async () => {
  await using s = await scratch();
  const elsewhere = join(s.dir, "elsewhere.jsonc");
  await Deno.writeTextFile(elsewhere, '{ "budgets": { "maxIterations": 1 } }');
  await Deno.symlink(elsewhere, join(s.ws, "odek.jsonc"));
  const error = await rejection(readProjectLayer(s.ws));
  assert.match(error.message, /odek\.jsonc was not read: .* is a symlink/);
  await Deno.remove(join(s.ws, "odek.jsonc"));
  await Deno.mkdir(join(s.ws, "odek.jsonc"));
  assert.match((await rejection(readProjectLayer(s.ws))).message, /not a regular file/);
});

Deno.test("misnamed files are reported with a pointer, not read: config.json beside config.jsonc, odek.json and .odek/config.jsonc", async () => {
  await using s = await scratch();
  const configFile = join(s.home, "config.jsonc");
  await Deno.writeTextFile(join(s.home, "config.json"), '{ "model": "never-read" }');
  const layers = await loadConfigLayers({ configFile, env: {} });
  assert.equal(mergeUserLayers(layers).config.model, "gpt-4.1-mini");
  assert.match(layers.warnings.join("\n"), /config\.json is not read: odek reads .*config\.jsonc/);
  assert.ok(layers.files.some((f) => f.status === "misnamed"));
  await Deno.writeTextFile(join(s.ws, "odek.json"), '{ "budgets": { "maxIterations": 1 } }');
  await Deno.mkdir(join(s.ws, ".odek"));
  await Deno.writeTextFile(join(s.ws, ".odek", "config.jsonc"), "{}");
  const read = await readProjectLayer(s.ws);
  assert.equal(read.layer, undefined);
  assert.equal(read.warnings.length, 2);
  for (const name of ["odek.json", ".odek/config.jsonc"]) {
    assert.ok(
      read.warnings.some((w) => w.includes(join(s.ws, name)) && w.includes("odek.jsonc")),
      `${name}: ${read.warnings}`,
    );
  }
});

Deno.test("the project layer is the workspace root's only: a parent directory's odek.jsonc is not read", async () => {
  await using s = await scratch();
  await Deno.writeTextFile(join(s.dir, "odek.jsonc"), '{ "budgets": { "maxIterations": 1 } }');
  const read = await readProjectLayer(s.ws);
  assert.equal(read.layer, undefined);
  assert.equal(read.files[0].status, "absent");
});
