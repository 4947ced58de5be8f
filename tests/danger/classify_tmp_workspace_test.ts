import assert from "node:assert/strict";
import type { ClassifyContext } from "../../src/danger/classifier.ts";
import { createClassifier } from "../../src/danger/create_classifier.ts";

const classifier = await createClassifier();
// A workspace under /tmp: the sandbox's /tmp is private, but the workspace is bound inside it.
const CONTEXT: ClassifyContext = {
  workspace: "/tmp/proj",
  home: "/home/ada",
  protectedRoots: ["/home/ada/.odek", "/opt/odek"],
  trustLevel: "standard",
};

function classes(command: string): string {
  const parts = classifier.classifyCommand(command, CONTEXT);
  return [...new Set(parts.map((p) => p.riskClass))].sort().join(" ");
}

Deno.test("classifyCommand(): deleting a /tmp directory that holds the workspace is destructive, not a private-/tmp write", () => {
  for (
    const command of [
      "rm -rf ..",
      "rm -rf /tmp",
      "rm -rf /tmp/*",
      "find /tmp -delete",
      "rm -rf /tmp/pro*",
      "mv /tmp /var/tmp/x",
    ]
  ) {
    assert.match(classes(command), /destructive/, command);
  }
  for (const command of ["rm -rf /tmp/other", "rm -rf /tmp/x*", "rm -f /tmp/proj.log"]) {
    assert.equal(classes(command), "local_write", command);
  }
  assert.equal(classes("rm -rf ."), "destructive");
  const verdict = classifier.classifyToolCall(
    { name: "shell", args: { command: "rm -rf /tmp/*" } },
    CONTEXT,
  );
  assert.equal(verdict.decision, "ask");
  assert.match(verdict.reason, /holds the workspace/);
});
