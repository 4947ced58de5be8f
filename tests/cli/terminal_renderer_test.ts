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

Deno.test("TerminalRenderer shows context trims and failed compactions on stderr", () => {
  const { r, out } = renderer();
  r.handle(makeRunEvent("context_trimmed", {
    mode: "survival",
    dropped_groups: 7,
    truncated_results: 3,
    estimated_tokens: 20_000,
    window: 32_768,
  }, scope));
  r.handle(makeRunEvent("compaction_failed", { reason: `timeout${ESC}[2K` }, scope));
  assert.match(out.stderr, /context survival trim: 7 old turn\(s\) left out, 3 old result/);
  assert.match(out.stderr, /~20000 of 32768 tokens/);
  assert.match(out.stderr, /compaction failed \(timeout/);
  assert.ok(!out.stderr.includes(ESC));
  assert.equal(out.stdout, "");
});

Deno.test("TerminalRenderer shows a tool_running heartbeat as one line naming the running call", () => {
  const { r, out } = renderer();
  r.handle(makeRunEvent("tool_call_started", {
    call_id: "c1",
    name: "shell",
    args: { command: "npm test" },
    args_sha256: "",
    args_bytes: 1,
  }, scope));
  r.handle(
    makeRunEvent("tool_running", { call_id: "c1", name: "shell", elapsed_ms: 120_400 }, scope),
  );
  const lines = out.stderr.trimEnd().split("\n");
  assert.equal(lines.at(-1), "⏳ shell npm test still running (2 min 0 s)");
  r.close();
});

Deno.test("TerminalRenderer names a spent budget and marks a partial summary as partial", () => {
  const { r, out } = renderer();
  r.handle(makeRunEvent("budget_exceeded", {
    limit_name: "iterations",
    observed: 90,
    limit: 90,
  }, scope));
  r.handle(makeRunEvent("partial_summary", { text: `half done${ESC}[2J` }, scope));
  r.handle(makeRunEvent("stall_detected", {
    name: "glob",
    repeats: 3,
    cycle_length: 1,
    action: "hint",
  }, scope));
  r.handle(makeRunEvent("budget_exceeded", {
    limit_name: "runtime",
    observed: 3.02,
    limit: 3,
  }, scope));
  r.handle(makeRunEvent("budget_exceeded", {
    limit_name: "cost_usd",
    observed: 0.0011,
    limit: 0.001,
  }, scope));
  assert.match(out.stderr, /runtime budget spent: 3\.02 s of 3 s\n/);
  assert.match(out.stderr, /cost_usd budget spent: \$0\.0011 of \$0\.001\n/);
  assert.match(
    out.stderr,
    /iterations budget spent: 90 of 90 \(asking the model for a partial summary…\)/,
  );
  assert.match(out.stderr, /glob was called 3 times in a row with the same arguments/);
  assert.equal(out.stdout, "\n[Iteration budget reached — partial summary]\nhalf done\n");
});

Deno.test("TerminalRenderer shows refused egress destinations, not allowed ones", () => {
  const { r, out } = renderer();
  r.handle(makeRunEvent("egress", {
    host: "198.51.100.7",
    port: 443,
    address: "198.51.100.7",
    allowed: true,
  }, scope));
  r.handle(makeRunEvent("egress", {
    host: "::ffff:7f00:1",
    port: 80,
    address: "::ffff:7f00:1",
    allowed: false,
    reason: `IPv4-mapped form of a loopback address${ESC}[2K`,
  }, scope));
  assert.equal(
    out.stderr,
    "! egress refused [::ffff:7f00:1]:80: IPv4-mapped form of a loopback address\n",
  );
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
