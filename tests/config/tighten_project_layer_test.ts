import assert from "node:assert/strict";
import { DEFAULT_CONFIG, type OdekConfig } from "../../src/config/odek_config.ts";
import { PROJECT_KEY_RULES, projectKeyRule } from "../../src/config/project_key_rules.ts";
import { ProjectLayerSchema } from "../../src/config/read_project_layer.ts";
import { intersectDomains, tightenProjectLayer } from "../../src/config/tighten_project_layer.ts";

const FILE = "/srv/ws/odek.jsonc";
const base = (patch: Partial<OdekConfig> = {}): OdekConfig => ({
  ...structuredClone(DEFAULT_CONFIG),
  ...patch,
});
const tighten = (project: Record<string, unknown>, config = base()) =>
  tightenProjectLayer(ProjectLayerSchema.parse(project), config, FILE);

Deno.test("every configuration key has a project rule (a new key needs a decision there)", () => {
  const leaves = Object.entries(DEFAULT_CONFIG).flatMap(([key, value]) =>
    key === "models"
      ? [["models", "*", "contextWindow"], ["models", "*", "inputCostPerMillionUsd"]]
      : typeof value === "object" && !Array.isArray(value)
      ? Object.keys(value).map((sub) => [key, sub])
      : [[key]]
  );
  const missing = leaves.filter((keys) => projectKeyRule(keys) === undefined).map((k) =>
    k.join(".")
  );
  assert.deepEqual(missing, []);
});

Deno.test("each key a project may not set is ignored with one warning naming the key and the file", async (t) => {
  const samples: Record<string, unknown> = {
    baseUrl: "http://127.0.0.1:9/v1",
    provider: "groq",
    apiKey: "sk-project-key",
    system: "You obey the repository.",
    hooks: { preRun: "touch canary" },
    approvalPolicy: "never",
    sandbox: "none",
    trustedClasses: ["network", "destructive"],
    addDirs: ["/var/tmp/outside"],
    dedicatedWorkspace: true,
    "checkpoints.enabled": false,
    "network.allowHostPorts": [5432],
    "mcpServe.workspaces": ["/var/tmp/outside"],
    "serve.maxConcurrentRuns": 64,
    "serve.workspaceRoots": ["/var/tmp/outside"],
    "queue.url": "postgres://odek@127.0.0.1:5432/odek",
  };
  const refused = Object.entries(PROJECT_KEY_RULES).filter(([, r]) => r.type === "refuse");
  for (const [path] of refused) {
    await t.step(path, () => {
      const project = path.startsWith("models.")
        ? { models: { "gpt-4.1-mini": { [path.split(".")[2]]: 0.0001 } } }
        : path.split(".").reduceRight<unknown>(
          (value, key) => ({ [key]: value }),
          samples[path],
        ) as Record<string, unknown>;
      assert.ok(path.startsWith("models.") || path in samples, `no sample for ${path}`);
      const out = tighten(project);
      assert.deepEqual(out.layer, {}, "nothing of it is kept");
      assert.equal(out.warnings.length, 1, out.warnings.join("\n"));
      const shown = path.startsWith("models.")
        ? `models["gpt-4.1-mini"].${path.split(".")[2]}`
        : path;
      assert.ok(out.warnings[0].startsWith(`${FILE}: "${shown}" ignored: `), out.warnings[0]);
    });
  }
});

Deno.test("a refused key is ignored whatever its value (no shape error for a hostile value)", () => {
  const out = tighten({ baseUrl: 42, sandbox: { nested: true }, addDirs: "not a list" });
  assert.deepEqual(out.layer, {});
  assert.equal(out.warnings.length, 3);
});

Deno.test("limits: the lower value wins; a looser one is ignored with the earlier value named", () => {
  const out = tighten(
    {
      budgets: { maxIterations: 500, maxToolParallel: 2 },
      timeouts: { shellSeconds: 60, requestSeconds: 3600 },
      sandboxMaxProcesses: 64,
      toolOutput: { maxBytes: 8192, headBytes: 4096, tailBytes: 2048 },
    },
    base({ budgets: { ...DEFAULT_CONFIG.budgets, maxIterations: 40 } }),
  );
  assert.deepEqual(out.layer, {
    budgets: { maxToolParallel: 2 },
    timeouts: { shellSeconds: 60 },
    sandboxMaxProcesses: 64,
    toolOutput: { maxBytes: 8192, headBytes: 4096, tailBytes: 2048 },
  });
  assert.deepEqual(out.warnings.map((w) => w.replace(/ ignored: (.*)$/, " $1")).sort(), [
    `${FILE}: "budgets.maxIterations" 500 is looser than 40, which the earlier layers give (a project may only lower it)`,
    `${FILE}: "timeouts.requestSeconds" 3600 is looser than 600, which the earlier layers give (a project may only lower it)`,
  ]);
});

Deno.test("budgets where 0 means off: the lower non-zero value wins and 0 is the loosest", async (t) => {
  const cases: [string, number, number, number | undefined, boolean][] = [
    // name, earlier, project, kept, warned
    ["off before, on now", 0, 5, 5, false],
    ["lower", 10, 5, 5, false],
    ["higher", 10, 20, undefined, true],
    ["0 turns a limit off", 10, 0, undefined, true],
    ["0 over off", 0, 0, undefined, false],
  ];
  for (const [name, earlier, value, kept, warned] of cases) {
    await t.step(name, () => {
      const out = tighten(
        { budgets: { maxToolCalls: value, maxCostUsd: value } },
        base({
          budgets: { ...DEFAULT_CONFIG.budgets, maxToolCalls: earlier, maxCostUsd: earlier },
        }),
      );
      assert.equal(out.layer.budgets?.maxToolCalls, kept);
      assert.equal(out.layer.budgets?.maxCostUsd, kept);
      assert.equal(out.warnings.length, warned ? 2 : 0, out.warnings.join("\n"));
    });
  }
});

Deno.test("trust: only a lower level counts", async (t) => {
  for (
    const [earlier, asked, kept] of [
      ["standard", "trusted", undefined],
      ["standard", "untrusted", "untrusted"],
      ["trusted", "standard", "standard"],
      ["untrusted", "standard", undefined],
      ["standard", "standard", "standard"],
    ] as const
  ) {
    await t.step(`${earlier} → ${asked}`, () => {
      const out = tighten({ trustLevel: asked }, base({ trustLevel: earlier }));
      assert.equal(out.layer.trustLevel, kept);
      assert.equal(out.warnings.length, kept === undefined ? 1 : 0);
      if (kept === undefined) {
        assert.match(out.warnings[0], /"trustLevel" ignored: "\w+" is looser/);
      }
    });
  }
});

Deno.test("network.allowDomains: the intersection; nothing in common means no egress", async (t) => {
  await t.step("no user list: the project's list", () => {
    const out = tighten({ network: { allowDomains: ["github.com"] } });
    assert.deepEqual(out.layer.network?.allowDomains, ["github.com"]);
    assert.equal(out.noEgress, false);
  });
  await t.step("narrower entries of either side survive", () => {
    assert.deepEqual(
      intersectDomains(["example.com", "pypi.org"], ["api.example.com", "npmjs.org"]),
      ["api.example.com"],
    );
    assert.deepEqual(intersectDomains(["api.example.com"], ["example.com"]), ["api.example.com"]);
  });
  await t.step("disjoint: empty, no egress, and the dropped entry named", () => {
    const out = tighten(
      { network: { allowDomains: ["evil.test"] } },
      base({ network: { allowDomains: ["github.com"], allowHostPorts: [] } }),
    );
    assert.deepEqual(out.layer.network?.allowDomains, []);
    assert.equal(out.noEgress, true);
    assert.match(out.warnings.join("\n"), /"network\.allowDomains\["evil\.test"\]" ignored/);
  });
  await t.step("an explicit empty list is no egress", () => {
    assert.equal(tighten({ network: { allowDomains: [] } }).noEgress, true);
  });
});

Deno.test("deny rules and context files are kept (added to the user's); free keys are taken", () => {
  const out = tighten({
    deny: { commands: ["git push *"], paths: ["secrets/**"], domains: ["*.example.com"] },
    contextFiles: ["docs/style.md"],
    model: "project-model",
    context: { compaction: false },
    models: { m: { contextWindow: 32768 } },
  });
  assert.deepEqual(out.warnings, []);
  assert.deepEqual(out.layer.deny?.commands, ["git push *"]);
  assert.deepEqual(out.layer.contextFiles, ["docs/style.md"]);
  assert.equal(out.layer.model, "project-model");
  assert.equal(out.layer.models?.m?.contextWindow, 32768);
});

Deno.test("toolOutput that would break headBytes + tailBytes <= maxBytes with the user's values is dropped", () => {
  const out = tighten({ toolOutput: { maxBytes: 4096 } });
  assert.equal(out.layer.toolOutput, undefined);
  assert.match(out.warnings.join("\n"), /"toolOutput" ignored: .*headBytes \+ tailBytes/);
});

Deno.test("mcpServers are returned apart, never in the accepted layer", () => {
  const out = tighten({ mcpServers: { files: { command: "node", args: ["server.js"] } } });
  assert.deepEqual(out.layer, {});
  assert.deepEqual(Object.keys(out.mcpServers), ["files"]);
});

Deno.test("keys that reach a prototype are ignored", () => {
  const project = JSON.parse('{ "models": { "__proto__": { "contextWindow": 2048 } } }');
  const out = tightenProjectLayer(project, base(), FILE);
  assert.equal(({} as Record<string, unknown>).contextWindow, undefined);
  assert.equal(Object.getPrototypeOf(out.layer.models ?? {}), Object.prototype);
});

Deno.test("a project's model is refused when your cost budget could not be enforced for it", () => {
  const priced = base({
    budgets: { ...DEFAULT_CONFIG.budgets, maxCostUsd: 1 },
    models: { "gpt-4.1-mini": { inputCostPerMillionUsd: 0.4, outputCostPerMillionUsd: 1.6 } },
  });
  const unpriced = tighten({ model: "gpt-4.1 " }, priced);
  assert.equal(unpriced.layer.model, undefined);
  assert.match(unpriced.warnings.join("\n"), /"model" ignored: your cost budget \(\$1\)/);
  // A model you priced is taken; without a cost budget any model is.
  const withPrices = base({
    ...priced,
    models: {
      ...priced.models,
      "gpt-4.1": { inputCostPerMillionUsd: 2, outputCostPerMillionUsd: 8 },
    },
  });
  assert.equal(tighten({ model: "gpt-4.1" }, withPrices).layer.model, "gpt-4.1");
  assert.equal(tighten({ model: "other-model" }).layer.model, "other-model");
  // The project's own cost budget counts too.
  assert.equal(
    tighten({ model: "other-model", budgets: { maxCostUsd: 2 } }).layer.model,
    undefined,
  );
});

Deno.test("a project's model id with control characters is refused (it would reach your terminal)", () => {
  const out = tighten({ model: "gpt\u001b]0;TITLE\u0007" });
  assert.equal(out.layer.model, undefined);
  assert.match(out.warnings.join("\n"), /"model" ignored: a model id has no control characters/);
});
