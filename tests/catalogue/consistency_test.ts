// Every piece odek derives from the tool catalogue, checked entry by entry: the model-facing
// spec, BUILTIN_TOOLS, the classifier's parts, the verdict without a gate, the runner of the
// entry's category (a child's registry and handler, the background-job manager, the core), and
// the tool's line in docs/tools.md. A missing or disagreeing piece fails the entry's step.
import assert from "node:assert/strict";
import { join } from "node:path";
import { BUILTIN_TOOLS } from "../../src/broker/builtin_tools.ts";
import { BackgroundJobs } from "../../src/broker/background_jobs.ts";
import { runBackgroundTool } from "../../src/broker/_run_background_tool.ts";
import type { SandboxContext } from "../../src/broker/render_sandbox.ts";
import { createClassifier } from "../../src/danger/create_classifier.ts";
import { fixedVerdict } from "../../src/danger/fixed_verdict.ts";
import { builtinToolSpecs } from "../../src/loop/builtin_tool_specs.ts";
import { restorePlan } from "../../src/loop/restore_plan.ts";
import type { RunContext } from "../../src/loop/run_context.ts";
import { runCoreTool } from "../../src/loop/run_core_tool.ts";
import type { ToolChildServer } from "../../tools/_catalogue/child_server.ts";
import {
  type ChildCategory,
  isChildEntry,
  TOOL_CATALOGUE,
  type ToolEntry,
} from "../../tools/_catalogue/mod.ts";
import { type HandlerModules, loadHandler } from "../../tools/_load_handler.ts";
import { EgressClient } from "../../tools/_web_fetch.ts";
import { COMPUTE_HANDLER_MODULES, computeToolServer } from "../../tools/compute.ts";
import { FILE_HANDLER_MODULES, fileToolServer } from "../../tools/files.ts";
import { WEB_HANDLER_MODULES, webToolServer } from "../../tools/web.ts";
import { ROOT } from "../arch/_source_files.ts";

const CONTEXT = {
  workspace: "/srv/ws",
  home: "/home/ada",
  protectedRoots: ["/home/ada/.odek"],
  trustLevel: "standard" as const,
};
const classifier = await createClassifier();
const docs = await Deno.readTextFile(join(ROOT, "docs/tools.md"));
const egress = new EgressClient(undefined);
/** Each child category's program and its server (the registry it serves). */
const CHILDREN: Record<ChildCategory, { program: string; server: ToolChildServer }> = {
  files: { program: "tools/files.ts", server: fileToolServer() },
  compute: { program: "tools/compute.ts", server: computeToolServer() },
  web: { program: "tools/web.ts", server: webToolServer(egress) },
};

/** Each child category's handler modules (the only modules its child can import). */
const MODULES: Record<ChildCategory, HandlerModules> = {
  files: FILE_HANDLER_MODULES,
  compute: COMPUTE_HANDLER_MODULES,
  web: WEB_HANDLER_MODULES,
};

/** Arguments the entry's rule reads, filled with harmless sample values (never run). */
function sampleArgs(entry: ToolEntry): Record<string, unknown> {
  const { rule } = entry;
  switch (rule.kind) {
    case "path":
      return { [rule.arg]: "src/a.ts" };
    case "glob":
      return { [rule.pattern]: "*.ts", [rule.base]: "src" };
    case "command":
      return { [rule.arg]: "true" };
    case "url":
      return { [rule.arg]: "http://127.0.0.1:9/x" };
    case "fixed":
    case "access":
      return {};
  }
}

/** The argument names a rule reads. */
function ruleArgs(entry: ToolEntry): string[] {
  const { rule } = entry;
  switch (rule.kind) {
    case "path":
    case "url":
      return [rule.arg];
    case "glob":
      return [rule.pattern, rule.base];
    case "command":
      return [rule.arg, ...(rule.alwaysAsk ? [rule.alwaysAsk.arg] : [])];
    case "fixed":
    case "access":
      return [];
  }
}

/** The class the classifier must give the sample call, by the rule. */
function expectedClasses(entry: ToolEntry): string[] {
  const { rule } = entry;
  switch (rule.kind) {
    case "path":
      return [rule.access === "read" ? "read" : "local_write"];
    case "glob":
      return ["read"];
    case "command":
      return classifier.classifyCommand("true", CONTEXT).map((p) => p.riskClass);
    case "url":
      return ["network"];
    case "fixed":
      return [rule.class];
    case "access":
      return [
        rule.workspace === "write" ? "local_write" : "read",
        ...(rule.network ? ["network"] : []),
      ];
  }
}

/** A run context with just what the core tools touch. */
function coreContext(): RunContext {
  return {
    plan: restorePlan([]),
    redact: (text: string) => text,
    emit() {},
    signal: new AbortController().signal,
  } as unknown as RunContext;
}

const PROGRAM_CONTEXT = {
  mode: "docker", // bg_start answers sandbox_unavailable instead of starting a job
  bwrapPath: null,
  denoPath: Deno.execPath(),
  denoDir: "/nonexistent",
  toolsDir: "/nonexistent",
  workspace: "/nonexistent",
  home: "/nonexistent",
  odekHome: "/nonexistent",
  installDir: "/nonexistent",
  protectedRoots: [],
  readOnlyHomeFiles: [],
} satisfies SandboxContext;
const NOTHING = {
  readPaths: [],
  writePaths: [],
  network: { type: "none" as const },
  runBinaries: [],
  envNames: [],
};

/** Check that every derived piece of one entry exists and agrees with it. */
async function checkEntry(entry: ToolEntry, specs: ReturnType<typeof builtinToolSpecs>) {
  const { name } = entry;
  assert.match(name, /^[a-z][a-z0-9_]{0,63}$/, "a tool name");
  assert.ok(entry.description.trim().length > 20, `${name}: a description`);

  // The model-facing spec.
  const spec = specs.filter((s) => s.function.name === name);
  assert.equal(spec.length, 1, `${name}: one model-facing spec`);
  assert.equal(spec[0].function.description, entry.description, `${name}: the spec's description`);
  const { $schema: _drop, ...schema } = entry.args["~standard"].jsonSchema.input({
    target: "draft-2020-12",
  });
  assert.deepEqual(spec[0].function.parameters, schema, `${name}: the spec's parameters`);
  const properties = Object.keys((schema as { properties?: object }).properties ?? {});
  for (const arg of ruleArgs(entry)) {
    assert.ok(properties.includes(arg), `${name}: its rule reads ${arg}, which its schema lacks`);
  }

  // BUILTIN_TOOLS.
  assert.ok(BUILTIN_TOOLS.includes(entry), `${name}: in BUILTIN_TOOLS`);

  // The classifier's parts.
  const args = sampleArgs(entry);
  const verdict = classifier.classifyToolCall({ name, args }, CONTEXT);
  assert.ok(
    !verdict.parts.some((p) => /not a known tool/.test(p.detail ?? "")),
    `${name}: the classifier knows it (${JSON.stringify(verdict.parts)})`,
  );
  assert.deepEqual(
    verdict.parts.map((p) => p.riskClass),
    expectedClasses(entry),
    `${name}: the classifier applies its ${entry.rule.kind} rule`,
  );

  // The verdict without a gate.
  const ungated = fixedVerdict({ name, args });
  assert.deepEqual(ungated.parts.map((p) => p.riskClass), [entry.classWithoutGate], name);
  const contained = ["read", "local_write", "code_execution"].includes(entry.classWithoutGate);
  assert.equal(ungated.decision, contained ? "allow" : "deny", `${name}: ${ungated.reason}`);
  assert.doesNotMatch(ungated.reason, /not a built-in tool/, name);

  // The runner of its category.
  if (isChildEntry(entry)) {
    const child = CHILDREN[entry.category];
    await Deno.stat(join(ROOT, child.program));
    const handler = await loadHandler(entry, MODULES[entry.category]);
    assert.equal(typeof handler, "function", `${name}: ${entry.handler.module} has its handler`);
    const answer = await child.server.answer(
      JSON.stringify({ type: "call", id: 1, tool: name, args: { "?": 1 }, workspace: "/" }),
    );
    assert.ok(
      answer?.type === "result" && !answer.ok && answer.error.kind === "invalid_arguments",
      `${name}: ${child.program} serves it (${JSON.stringify(answer)})`,
    );
    for (const [other, { program, server }] of Object.entries(CHILDREN)) {
      if (other === entry.category) continue;
      const elsewhere = await server.answer(
        JSON.stringify({ type: "call", id: 2, tool: name, args: {}, workspace: "/" }),
      );
      assert.ok(
        elsewhere?.type === "result" && !elsewhere.ok && elsewhere.error.kind === "unknown_tool",
        `${name}: ${program} must not serve it`,
      );
    }
  } else if (entry.category === "bg") {
    const result = await runBackgroundTool(new BackgroundJobs(), name, { id: "bg999" }, {
      set: NOTHING,
      context: PROGRAM_CONTEXT,
    });
    assert.ok(
      result.ok || result.error.kind !== "unknown_tool",
      `${name}: the job manager runs it`,
    );
  } else if (entry.category === "core") {
    const result = await runCoreTool(coreContext(), { id: "c1", name, args: {} });
    assert.ok(result.ok || result.error.kind !== "unknown_tool", `${name}: the core runs it`);
  } else {
    assert.equal(entry.category, "shell", name);
  }

  // Its line in docs/tools.md.
  assert.ok(docs.includes(`\`${name}\``), `${name}: docs/tools.md names it`);
}

Deno.test("every catalogue entry has each derived piece, and they agree with it", async (t) => {
  const specs = builtinToolSpecs();
  assert.deepEqual(
    specs.map((s) => s.function.name),
    TOOL_CATALOGUE.map((e) => e.name),
    "one spec per entry, in catalogue order",
  );
  assert.equal(new Set(TOOL_CATALOGUE.map((e) => e.name)).size, TOOL_CATALOGUE.length);
  for (const entry of TOOL_CATALOGUE) {
    await t.step(entry.name, () => checkEntry(entry, specs));
  }
  egress.close();
});

Deno.test("the classifier and the verdict without a gate know no tool the catalogue lacks", () => {
  for (const name of ["web_fetch", "fetch_url", "http_batch", "web_search", "delete_everything"]) {
    const verdict = classifier.classifyToolCall({ name, args: { url: "http://127.0.0.1:9/" } }, {
      ...CONTEXT,
    });
    assert.deepEqual(verdict.parts.map((p) => p.riskClass), ["unknown"], name);
    assert.equal(fixedVerdict({ name, args: {} }).decision, "deny", name);
  }
});
