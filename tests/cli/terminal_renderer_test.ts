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
  assert.match(out.stdout, /helloworld\n$/);
  // The label shows the whole command on one line, so nothing can hide behind a fake first line.
  assert.match(out.stderr, /▸ shell\[2K true \[2K\[1A\[32mls -la \(harmless\) ⏎ rm important\n/);
});

Deno.test("TerminalRenderer marks a model retry with one line after the partial text", () => {
  const { r, out } = renderer();
  r.handle(makeRunEvent("text_delta", { text: "The answer is" }, scope));
  r.handle(makeRunEvent("model_retry", {
    attempt: 2,
    max_attempts: 8,
    wait_ms: 1500,
    reason: "http_529",
    status: 529,
  }, scope));
  r.handle(makeRunEvent("model_retry", {
    attempt: 3,
    max_attempts: 8,
    wait_ms: 250,
    reason: "stream_idle",
  }, scope));
  r.handle(makeRunEvent("text_delta", { text: "The answer is 42." }, scope));
  r.handle(makeRunEvent("assistant_message", {
    content: "The answer is 42.",
    tool_call_count: 0,
    finish_reason: "stop",
  }, scope));
  assert.equal(out.stdout, "The answer is\nThe answer is 42.\n");
  assert.equal(
    out.stderr,
    "↻ model HTTP 529: retry 2/8 in 1.5 s\n↻ model stream stalled: retry 3/8 in 250 ms\n",
  );
});
