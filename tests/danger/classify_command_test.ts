import assert from "node:assert/strict";
import { createClassifier } from "../../src/danger/create_classifier.ts";
import { CONTEXT, mismatch, type Row } from "./_table.ts";
import { CONSTRUCT_ROWS } from "./_table_constructs.ts";
import { EVERYDAY_ROWS } from "./_table_everyday.ts";
import { NORMALISE_ROWS } from "./_table_normalise.ts";
import { PATH_ROWS } from "./_table_paths.ts";
import { SYSTEM_ROWS } from "./_table_system.ts";
import { TOOL_ROWS } from "./_table_tools.ts";
import { WRAPPER_ROWS } from "./_table_wrappers.ts";

const TABLES: Record<string, Row[]> = {
  constructs: CONSTRUCT_ROWS,
  normalisation: NORMALISE_ROWS,
  wrappers: WRAPPER_ROWS,
  tools: TOOL_ROWS,
  paths: PATH_ROWS,
  system: SYSTEM_ROWS,
  everyday: EVERYDAY_ROWS,
};
const classifier = await createClassifier();

Deno.test("classifyCommand() table has at least 400 distinct commands", () => {
  const all = Object.values(TABLES).flat().map(([command]) => command);
  assert.ok(new Set(all).size >= 400, `only ${new Set(all).size} distinct commands`);
  assert.equal(new Set(all).size, all.length, "a command appears twice in the tables");
});

for (const [name, rows] of Object.entries(TABLES)) {
  Deno.test(`classifyCommand() classifies the ${name} table`, async (t) => {
    for (const row of rows) {
      await t.step(JSON.stringify(row[0]).slice(0, 120), () => {
        const problem = mismatch(row, classifier.classifyCommand(row[0], CONTEXT));
        assert.equal(problem, null, `${JSON.stringify(row[0])}: ${problem}`);
      });
    }
  });
}

Deno.test("classifyCommand() never asks for the everyday rows at trust level standard", () => {
  for (const [command] of EVERYDAY_ROWS) {
    const verdict = classifier.classifyToolCall({ name: "shell", args: { command } }, CONTEXT);
    assert.equal(verdict.decision, "allow", `${command}: ${verdict.reason}`);
  }
});

Deno.test("classifyCommand() puts the sub-command in each part's subject", () => {
  const parts = classifier.classifyCommand("git status && rm -rf ~/projects", CONTEXT);
  const destructive = parts.find((p) => p.riskClass === "destructive");
  assert.equal(destructive?.subject, "rm -rf ~/projects");
  assert.deepEqual(destructive?.targets, ["/home/ada/projects"]);
  assert.equal(parts.find((p) => p.riskClass === "read")?.subject, "git status");
});

Deno.test("classifyCommand() returns one unknown part for text that is not valid Bash", () => {
  for (const command of ["echo 'unterminated", "if then fi", "exec 3<>/dev/tcp/e.example/80"]) {
    const parts = classifier.classifyCommand(command, CONTEXT);
    assert.deepEqual(parts.map((p) => p.riskClass), ["unknown"], command);
  }
});

Deno.test("classifyCommand() turns a script too complex to walk into unknown", () => {
  const defs = Array.from({ length: 30 }, (_, i) => `f${i + 1}() { f${i}; f${i}; }`).join("; ");
  const parts = classifier.classifyCommand(`f0() { ls; }; ${defs}; f30`, CONTEXT);
  assert.ok(parts.some((p) => p.riskClass === "unknown" && /too complex/.test(p.detail ?? "")));
});
