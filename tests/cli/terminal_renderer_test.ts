import assert from "node:assert/strict";
import { TerminalRenderer } from "../../src/cli/terminal_renderer.ts";
import { makeRunEvent } from "../../src/loop/make_run_event.ts";

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

const scope = { runId: "r".repeat(32) };
const ESC = "\u001b";

Deno.test("TerminalRenderer drops escape sequences the model or a tool sends to the terminal", () => {
  const { r, out } = renderer();
  // OSC 52 (set the clipboard), OSC 0 (window title), a carriage return and cursor movement.
  r.handle(
    makeRunEvent("text_delta", {
      text: `${ESC}]52;c;ZXZpbA==\u0007${ESC}]0;owned\u0007hello\rworld\n`,
    }, scope),
  );
  r.handle(makeRunEvent("tool_call_started", {
    call_id: "c1",
    name: `shell${ESC}[2K`,
    args: { command: `true \r${ESC}[2K${ESC}[1A${ESC}[32mls -la (harmless)\nrm important` },
    args_sha256: "",
    args_bytes: 1,
  }, scope));
  r.handle(makeRunEvent("tool_call_failed", {
    call_id: "c1",
    name: `shell${ESC}[2K`,
    duration_ms: 5,
    error_class: "failed",
    message: `exit code 1\nstdout:\n${ESC}[31mred\u0007`,
  }, scope));
  for (const text of [out.stdout, out.stderr]) {
    assert.ok(!text.includes(ESC), JSON.stringify(text));
    assert.ok(!text.includes("\r"), JSON.stringify(text));
    assert.ok(!text.includes("\u0007"), JSON.stringify(text));
  }
  // A carriage return becomes a line break: nothing can overwrite what was printed before it.
  assert.match(out.stdout, /hello\nworld\n$/);
  // The label shows the whole command on one line, so nothing can hide behind a fake first line;
  // the escape sequences are removed whole.
  assert.match(out.stderr, /▸ shell true\s+ls -la \(harmless\) ⏎ rm important\n/);
});
