import assert from "node:assert/strict";
import { TerminalRenderer } from "../../src/cli/terminal_renderer.ts";
import { ODEK_VERSION } from "../../src/cli/version.ts";
import { makeRunEvent } from "../../src/loop/make_run_event.ts";
import { previewHead, previewTail } from "../../src/loop/result_preview.ts";

function renderer() {
  const out = { stdout: "", stderr: "" };
  const r = new TerminalRenderer({
    stdout: { write: (t) => void (out.stdout += t) },
    stderr: { write: (t) => void (out.stderr += t) },
    stderrIsTerminal: false,
    color: false,
  });
  return { r, out };
}

const scope = { runId: "r".repeat(32), sessionId: "20260728-101010-abc123" };

function started(callId: string, name: string, args: unknown) {
  return makeRunEvent("tool_call_started", {
    call_id: callId,
    name,
    args,
    args_sha256: "",
    args_bytes: 1,
  }, scope);
}

function runStarted(extra: Record<string, unknown> = {}) {
  return makeRunEvent("run_started", {
    model: "gpt-4.1-mini",
    base_url: "https://api.openai.com/v1",
    sandbox: "bwrap",
    max_iterations: 90,
    workspace: "/home/ada/proj",
    resumed: false,
    trust: "standard",
    instructions: [{ source: "AGENTS.md", lines: 12 }],
    checkpoints: true,
    ...extra,
  }, scope);
}

Deno.test("TerminalRenderer starts with a banner: model, host, trust, sandbox, workspace, session, AGENTS.md", () => {
  const { r, out } = renderer();
  r.handle(runStarted());
  assert.equal(
    out.stderr,
    `odek ${ODEK_VERSION} · gpt-4.1-mini @ api.openai.com · trust standard · sandbox bwrap\n` +
      "workspace /home/ada/proj · session 20260728-101010-abc123 · AGENTS.md (12 lines)\n",
  );
  const resumed = renderer();
  resumed.r.handle(runStarted({ resumed: true, instructions: [], checkpoints: false }));
  assert.match(
    resumed.out.stderr,
    /session 20260728-101010-abc123 \(resumed\) · checkpoints off\n$/,
  );
});

Deno.test("TerminalRenderer names every call's target on its result line (two parallel reads apart)", () => {
  const { r, out } = renderer();
  r.handle(started("a", "read_file", { path: "src/a.ts" }));
  r.handle(started("b", "read_file", { path: "src/b.ts", offset: 40, limit: 20 }));
  r.handle(started("j", "bg_output", { id: "bg3" }));
  for (const id of ["b", "a", "j"]) {
    r.handle(makeRunEvent("tool_call_completed", {
      call_id: id,
      name: id === "j" ? "bg_output" : "read_file",
      duration_ms: 21,
      result_bytes: 2,
      preview: "ok",
    }, scope));
  }
  const lines = out.stderr.split("\n").filter((l) => l.startsWith("✓"));
  assert.deepEqual(lines, [
    "✓ read_file src/b.ts:40-59 (21 ms)",
    "✓ read_file src/a.ts (21 ms)",
    "✓ bg_output bg3 (21 ms)",
  ]);
});

Deno.test("TerminalRenderer shows a failed command's last lines after a marker, and marks every cut", () => {
  const output = [
    "exit code 1 · 812 ms",
    "stdout:",
    ...Array.from({ length: 30 }, (_, i) => `test ${i + 1} ... ok`),
    "7/10 passed",
    "Error: expected 3, got 2",
    "    at stats (stats.ts:4)",
  ].join("\n");
  const { r, out } = renderer();
  r.handle(started("c", "shell", { command: "deno test" }));
  r.handle(makeRunEvent("tool_call_failed", {
    call_id: "c",
    name: "shell",
    duration_ms: 812,
    error_class: "failed",
    message: output,
  }, scope));
  const body = out.stderr.split("\n").filter((l) => l.startsWith("  │ ")).map((l) => l.slice(4));
  assert.equal(body[0], "exit code 1 · 812 ms");
  assert.equal(body[1], "… 22 more lines");
  assert.deepEqual(body.slice(-3), [
    "7/10 passed",
    "Error: expected 3, got 2",
    "    at stats (stats.ts:4)",
  ]);
  assert.equal(body.length, 14);
  assert.match(out.stderr, /^✗ shell deno test failed \(812 ms\)$/m);
  // A successful shell call shows its end too; other tools their start; both say what is cut.
  const text = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n");
  assert.ok(previewTail(text).startsWith("… 8 more lines\nline 9\n"));
  assert.ok(previewHead(text).endsWith("line 12\n… 8 more lines"));
  const ok = renderer();
  ok.r.handle(started("s", "shell", { command: "seq 20" }));
  ok.r.handle(makeRunEvent("tool_call_completed", {
    call_id: "s",
    name: "shell",
    duration_ms: 3,
    result_bytes: 40,
    preview: previewHead(text),
    tail: previewTail(text),
    lines: 20,
  }, scope));
  assert.match(ok.out.stderr, /│ … 8 more lines\n {2}│ line 9\n/);
  assert.match(ok.out.stderr, /│ line 20\n$/);
});

Deno.test("TerminalRenderer shows a write's diff, a new file's first lines, and the run's changed files", () => {
  const { r, out } = renderer();
  r.handle(runStarted());
  r.handle(started("w", "write_file", { path: "stats.sh", content: "x" }));
  r.handle(makeRunEvent("tool_call_completed", {
    call_id: "w",
    name: "write_file",
    duration_ms: 12,
    result_bytes: 30,
    preview: "Replaced stats.sh: 487 bytes, 20 lines",
  }, scope));
  r.handle(makeRunEvent("files_changed", {
    checkpoint: "c".repeat(40),
    call_ids: ["w"],
    files: [{
      path: "stats.sh",
      change: "modified",
      added: 1,
      removed: 1,
      binary: false,
      diff: "@@ -3,3 +3,3 @@\n total=0\n-echo $((1 + 1))\n+echo $((1 + 2))\n done",
    }],
  }, scope));
  r.handle(started("n", "write_file", { path: "new.txt", content: "x" }));
  r.handle(makeRunEvent("files_changed", {
    checkpoint: "d".repeat(40),
    call_ids: ["n"],
    files: [{
      path: "new.txt",
      change: "added",
      added: 14,
      removed: 0,
      binary: false,
      diff: `@@ -0,0 +1,14 @@\n${Array.from({ length: 14 }, (_, i) => `+row ${i + 1}`).join("\n")}`,
    }],
  }, scope));
  r.handle(makeRunEvent("run_files_changed", {
    from: "a".repeat(40),
    to: "d".repeat(40),
    files: [
      { path: "new.txt", change: "added", added: 14, removed: 0, binary: false },
      { path: "old.bin", change: "deleted", added: 0, removed: 0, binary: true },
      { path: "stats.sh", change: "modified", added: 1, removed: 1, binary: false },
    ],
  }, scope));
  const text = out.stderr;
  assert.match(text, /^✓ write_file stats\.sh \(12 ms\)$/m);
  assert.match(
    text,
    /± stats\.sh \+1 -1\n {2}│ @@ -3,3 \+3,3 @@\n {2}│ {2}total=0\n {2}│ -echo \$\(\(1 \+ 1\)\)\n {2}│ \+echo \$\(\(1 \+ 2\)\)\n/,
  );
  assert.match(text, /± new\.txt \(added\) \+14\n {2}│ row 1\n/);
  assert.match(text, /│ row 10\n {2}│ … 4 more lines\n/);
  assert.match(text, /± 3 files changed \(\+15 -1\) · undo with: odek undo\n/);
  assert.match(
    text,
    /\n {2}A new\.txt {3}\+14\n {2}D old\.bin {3}binary\n {2}M stats\.sh {2}\+1 -1\n$/,
  );
});

Deno.test("TerminalRenderer lists the files a shell command changed and warns when checkpoints are off", () => {
  const { r, out } = renderer();
  r.handle(started("s", "shell", { command: "rm -rf build" }));
  r.handle(makeRunEvent("files_changed", {
    checkpoint: "c".repeat(40),
    call_ids: ["s"],
    files: [
      { path: "build/a.js", change: "deleted", added: 0, removed: 3, binary: false },
      { path: "build/b.js", change: "deleted", added: 0, removed: 5, binary: false },
    ],
  }, scope));
  r.handle(
    makeRunEvent("checkpoints_off", { reason: "the workspace holds more than 20000 files" }, scope),
  );
  assert.match(
    out.stderr,
    /± files changed:\n {2}│ D build\/a\.js {2}-3\n {2}│ D build\/b\.js {2}-5\n/,
  );
  assert.match(
    out.stderr,
    /! checkpoints are off for this session, so changes from now on cannot be undone: the workspace holds more than 20000 files\n/,
  );
});
