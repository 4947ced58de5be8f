import assert from "node:assert/strict";
import type { ClassifyContext } from "../../src/danger/classifier.ts";
import { createClassifier } from "../../src/danger/create_classifier.ts";

const classifier = await createClassifier();
// A workspace under /tmp: the sandbox shows the host's /tmp read-only, the workspace and the
// session's scratch (TMPDIR) writable.
const CONTEXT: ClassifyContext = {
  workspace: "/tmp/proj",
  home: "/home/ada",
  protectedRoots: ["/home/ada/.odek", "/opt/odek"],
  trustLevel: "standard",
  scratchDir: "/tmp/odek-1000/host-x/tmp",
};
const ELSEWHERE: ClassifyContext = { ...CONTEXT, workspace: "/home/ada/proj" };

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
  // Elsewhere in /tmp is the host's /tmp (read-only in the sandbox): deleting there asks too.
  for (const command of ["rm -rf /tmp/other", "rm -rf /tmp/x*", "rm -f /tmp/proj.log"]) {
    assert.equal(classes(command), "destructive", command);
  }
  assert.equal(classes("rm -rf ."), "destructive");
  const verdict = classifier.classifyToolCall(
    { name: "shell", args: { command: "rm -rf /tmp/*" } },
    CONTEXT,
  );
  assert.equal(verdict.decision, "ask");
  assert.match(verdict.reason, /holds the workspace/);
});

Deno.test("classifyCommand(): writes to the host's /tmp ask, with the workspace under /tmp and elsewhere; $TMPDIR does not", () => {
  for (const context of [CONTEXT, ELSEWHERE]) {
    const of = (command: string) =>
      [...new Set(classifier.classifyCommand(command, context).map((p) => p.riskClass))]
        .filter((c) => c !== "read").sort().join(" ");
    assert.equal(of("echo note >> /tmp/notes.txt"), "system_write", context.workspace);
    assert.equal(of("cp a.txt /tmp/x"), "system_write", context.workspace);
    assert.equal(of('echo x > "$TMPDIR/x"'), "local_write", context.workspace);
    assert.equal(of("f=$(mktemp); echo x > $f"), "local_write", context.workspace);
    assert.equal(of("mktemp -d"), "local_write", context.workspace);
  }
  // `../x` from a workspace under /tmp is the host's /tmp.
  const up = classifier.classifyCommand("cp index.js ../backup.js && ls ..", CONTEXT);
  assert.ok(
    up.some((p) => p.riskClass === "system_write" && p.targets.includes("/tmp/backup.js")),
    JSON.stringify(up),
  );
  const verdict = classifier.classifyToolCall(
    { name: "shell", args: { command: "cp index.js ../backup.js" } },
    CONTEXT,
  );
  assert.equal(verdict.decision, "ask");
});
