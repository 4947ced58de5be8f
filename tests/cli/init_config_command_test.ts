import assert from "node:assert/strict";
import { join } from "node:path";
import type { CliIO } from "../../src/cli/cli_io.ts";
import { configCommand } from "../../src/cli/config_command.ts";
import { initCommand } from "../../src/cli/init_command.ts";
import { initTemplate, KEY_DESCRIPTIONS } from "../../src/cli/init_templates.ts";
import { main } from "../../src/cli/main.ts";
import { mergeConfigLayers } from "../../src/config/merge_config_layers.ts";
import { ConfigLayerSchema, DEFAULT_CONFIG } from "../../src/config/odek_config.ts";
import { PROJECT_KEY_RULES } from "../../src/config/project_key_rules.ts";
import { parseConfigText } from "../../src/config/read_config_file.ts";
import { ProjectLayerSchema } from "../../src/config/read_project_layer.ts";
import { tightenProjectLayer } from "../../src/config/tighten_project_layer.ts";

/** A fake CliIO over a private HOME with a workspace `ws`; dispose it to delete both. */
async function fixture() {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-init-" }));
  await Deno.mkdir(join(home, "ws"));
  const out = { stdout: "", stderr: "" };
  const io: CliIO = {
    stdout: { write: (text) => void (out.stdout += text) },
    stderr: { write: (text) => void (out.stderr += text) },
    readStdin: () => Promise.resolve(""),
    stdinIsTerminal: false,
    stderrIsTerminal: false,
    env: { HOME: home, PATH: "/usr/bin:/bin" },
    callerDir: join(home, "ws"),
    installDir: "/opt/odek",
    onSignal: () => () => {},
  };
  return { home, io, out, [Symbol.asyncDispose]: () => Deno.remove(home, { recursive: true }) };
}

/** The template with its value lines uncommented (what a user gets by uncommenting everything). */
function uncommented(text: string): string {
  return text.split("\n").map((line) => line.replace(/^(\s*)\/\/(\s+["}\]])/, "$1$2")).join("\n");
}

Deno.test("initTemplate(): every key is described, and the file changes nothing until edited", () => {
  assert.deepEqual(
    Object.keys(DEFAULT_CONFIG).filter((key) => !(key in KEY_DESCRIPTIONS)),
    [],
  );
  for (const kind of ["user", "project"] as const) {
    assert.deepEqual(parseConfigText(initTemplate(kind), `${kind}.jsonc`, ConfigLayerSchema), {});
  }
});

Deno.test('initTemplate("user") uncommented is a valid layer of every key at its default (or an example)', () => {
  const layer = parseConfigText(
    uncommented(initTemplate("user")),
    "config.jsonc",
    ConfigLayerSchema,
  );
  assert.deepEqual(Object.keys(layer).sort(), Object.keys(DEFAULT_CONFIG).sort());
  const merged = mergeConfigLayers([{ kind: "user", source: "config.jsonc", layer }]).config;
  for (const key of ["model", "timeouts", "budgets", "retry", "context", "toolOutput"] as const) {
    assert.deepEqual(merged[key], DEFAULT_CONFIG[key], key);
  }
});

Deno.test('initTemplate("project") holds exactly the keys a project may set, and a project may set all of them', () => {
  const text = uncommented(initTemplate("project"));
  const layer = parseConfigText(text, "odek.jsonc", ProjectLayerSchema);
  const out = tightenProjectLayer(layer, DEFAULT_CONFIG, "odek.jsonc");
  assert.deepEqual(out.warnings, []);
  const allowed = Object.entries(PROJECT_KEY_RULES)
    .filter(([, rule]) => rule.type !== "refuse")
    .map(([path]) => path.split(".")[0]);
  assert.deepEqual(Object.keys(layer).sort(), [...new Set(allowed)].sort());
  for (const refused of ["baseUrl", "provider", "sandbox", "trustedClasses", "addDirs"]) {
    assert.ok(!text.includes(`"${refused}"`), refused);
  }
});

Deno.test("odek init writes ODEK_HOME/config.jsonc (0600) once; --project writes the workspace's odek.jsonc", async () => {
  await using f = await fixture();
  assert.equal(await initCommand([], f.io), 0);
  const file = join(f.home, ".odek", "config.jsonc");
  assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
  assert.equal(await Deno.readTextFile(file), initTemplate("user"));
  await assert.rejects(() => initCommand([], f.io), /config\.jsonc exists already/);
  assert.equal(await main(["init", "--project"], f.io), 0);
  assert.equal(await Deno.readTextFile(join(f.home, "ws", "odek.jsonc")), initTemplate("project"));
  assert.equal(await main(["init", "--project"], f.io), 2, "an existing file is never replaced");
  assert.equal(await main(["init", "--workspace", "ws"], f.io), 2, "--workspace needs --project");
  assert.equal(await main(["init", "--bogus"], f.io), 2);
});

Deno.test("odek config: show is the only subcommand; --help documents it", async () => {
  await using f = await fixture();
  assert.equal(await main(["config"], f.io), 2);
  assert.match(f.out.stderr, /odek config takes one subcommand, show; got none/);
  assert.equal(await main(["config", "list"], f.io), 2);
  assert.equal(await configCommand(["--help"], f.io), 0);
  assert.match(f.out.stdout, /Usage: odek config show/);
});

Deno.test("odek config show: each value with its layer; secrets.env names only, never its values", async () => {
  await using f = await fixture();
  await Deno.mkdir(join(f.home, ".odek"), { mode: 0o700 });
  const secret = `sk-${crypto.randomUUID()}`;
  await Deno.writeTextFile(join(f.home, ".odek", "secrets.env"), `ODEK_API_KEY=${secret}\n`);
  await Deno.chmod(join(f.home, ".odek", "secrets.env"), 0o600);
  await Deno.writeTextFile(join(f.home, ".odek", "config.jsonc"), '{ "model": "user-model" }');
  await Deno.writeTextFile(
    join(f.home, "ws", "odek.jsonc"),
    `{ "contextFiles": ["docs/a.md"], "budgets": { "maxToolCalls": 9 }, "mcpServers": { "files": { "command": "node", "args": ["s.js"] } } }`,
  );
  f.io.env.ODEK_MAX_ITERATIONS = "33";
  assert.equal(await configCommand(["show"], f.io), 0, f.out.stderr);
  const out = f.out.stdout;
  assert.match(out, /^ {2}model +"user-model" +· user .*config\.jsonc$/m);
  assert.match(out, /^ {2}budgets\.maxIterations +33 +· env ODEK_MAX_ITERATIONS$/m);
  assert.match(out, /^ {2}budgets\.maxToolCalls +9 +· project .*odek\.jsonc$/m);
  assert.match(out, /^ {2}contextFiles\[0\] +"docs\/a\.md" +· project/m);
  assert.match(out, /^ {2}timeouts\.shellSeconds +1800 +· default$/m);
  assert.match(out, /^api key: from ODEK_API_KEY \(secrets\.env\); its value is never shown$/m);
  assert.match(out, /^secrets\.env: ODEK_API_KEY; values hidden$/m);
  assert.match(out, /^ {2}files: not approved$/m);
  assert.ok(!out.includes(secret));
  f.out.stdout = "";
  assert.equal(await configCommand(["show", "--json"], f.io), 0);
  assert.ok(!f.out.stdout.includes(secret));
  const report = JSON.parse(f.out.stdout);
  assert.deepEqual(report.secrets.names, ["ODEK_API_KEY"]);
  assert.deepEqual(report.projectMcpServers, [{ name: "files", approved: false }]);
});
