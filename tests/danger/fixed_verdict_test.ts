import assert from "node:assert/strict";
import { fixedVerdict } from "../../src/danger/fixed_verdict.ts";

Deno.test("fixedVerdict() gives each built-in tool its fixed class and targets", async (t) => {
  const cases = [
    { name: "read_file", args: { path: "src/a.ts" }, riskClass: "read", targets: ["src/a.ts"] },
    { name: "glob", args: { pattern: "*.ts" }, riskClass: "read", targets: ["."] },
    { name: "glob", args: { pattern: "*.ts", path: "src" }, riskClass: "read", targets: ["src"] },
    {
      name: "write_file",
      args: { path: "/ws/b.txt", content: "" },
      riskClass: "local_write",
      targets: ["/ws/b.txt"],
    },
    { name: "shell", args: { command: "make test" }, riskClass: "code_execution", targets: [] },
    { name: "patch", args: { path: "a.ts" }, riskClass: "local_write", targets: ["a.ts"] },
    { name: "search_files", args: { pattern: "x" }, riskClass: "read", targets: ["."] },
    { name: "tree", args: { path: "src" }, riskClass: "read", targets: ["src"] },
    { name: "file_info", args: { path: "a.ts" }, riskClass: "read", targets: ["a.ts"] },
    { name: "head_tail", args: { path: "a.ts" }, riskClass: "read", targets: ["a.ts"] },
    { name: "math_eval", args: { expression: "1+1" }, riskClass: "read", targets: [] },
    { name: "checksum", args: { text: "x", path: "a.ts" }, riskClass: "read", targets: [] },
  ] as const;
  for (const c of cases) {
    await t.step(`${c.name} ${JSON.stringify(c.args)}`, () => {
      const verdict = fixedVerdict({ name: c.name, args: c.args });
      assert.equal(verdict.decision, "allow");
      assert.equal(verdict.parts.length, 1);
      assert.equal(verdict.parts[0].riskClass, c.riskClass);
      assert.deepEqual(verdict.parts[0].targets, c.targets);
      assert.match(verdict.reason, new RegExp(c.riskClass));
    });
  }
});

Deno.test("fixedVerdict() names the shell command as the part's subject", () => {
  const verdict = fixedVerdict({ name: "shell", args: { command: "ls -la" } });
  assert.equal(verdict.parts[0].subject, "ls -la");
});

Deno.test("fixedVerdict() denies a tool it does not know as unknown", () => {
  const verdict = fixedVerdict({ name: "delete_everything", args: {} });
  assert.equal(verdict.decision, "deny");
  assert.equal(verdict.parts[0].riskClass, "unknown");
  assert.match(verdict.reason, /delete_everything/);
});
