import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import type { ApprovalAnswer, ApprovalRequest } from "../../src/approval/approver.ts";
import { TerminalApprover } from "../../src/approval/terminal_approver.ts";
import { askingCall } from "./_calls.ts";

const DRIVER = fileURLToPath(new URL("./_tty_driver.ts", import.meta.url));
const DENO = Deno.execPath();

async function has(program: string): Promise<boolean> {
  try {
    await new Deno.Command(program, { args: ["--version"], stdout: "null", stderr: "null" })
      .output();
    return true;
  } catch {
    return false;
  }
}
const HAS_SCRIPT = await has("script");
const HAS_SETSID = await has("setsid");
if (!HAS_SCRIPT || !HAS_SETSID) {
  console.log(
    "Skipping the pseudo-terminal tests of TerminalApprover: `script`/`setsid` from util-linux " +
      "are missing; run apt-get install bsdutils util-linux",
  );
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

interface DriverRun {
  results: ApprovalAnswer[][] | { error: string };
  /** What the terminal showed (prompts and echoed input). */
  screen: string;
}

/**
 * Run the driver on `batches`. `pty`: under `script`, with `typed` sent to the pseudo-terminal
 * and `stdinText` (if any) redirected to the driver's stdin. `setsid`: no controlling terminal,
 * `typed` piped to stdin.
 */
async function runDriver(
  mode: "pty" | "setsid",
  batches: ApprovalRequest[],
  typed: string,
  options: { stdinText?: string; abortAfterMs?: number } = {},
): Promise<DriverRun> {
  const { stdinText, abortAfterMs } = options;
  const dir = await Deno.makeTempDir({ prefix: "odek_approval_" });
  try {
    const input = join(dir, "in.json");
    const output = join(dir, "out.json");
    await Deno.writeTextFile(input, JSON.stringify({ batches, abortAfterMs }));
    const argv = [DENO, "run", "--allow-read", "--allow-write", DRIVER, input, output];
    let command: Deno.Command;
    if (mode === "pty") {
      let line = argv.map(quote).join(" ");
      if (stdinText !== undefined) {
        await Deno.writeTextFile(join(dir, "stdin.txt"), stdinText);
        line += ` < ${quote(join(dir, "stdin.txt"))}`;
      }
      command = new Deno.Command("script", {
        args: ["-qfec", line, "/dev/null"],
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(60_000),
      });
    } else {
      command = new Deno.Command("setsid", {
        args: ["-w", ...argv],
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(60_000),
      });
    }
    const child = command.spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(typed));
    // With an abort planned, keep the terminal open so that only the abort can end the question.
    if (abortAfterMs === undefined) await writer.close();
    const { stdout, stderr } = await child.output();
    if (abortAfterMs !== undefined) await writer.close().catch(() => {});
    const screen = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    return { results: JSON.parse(await Deno.readTextFile(output)), screen };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function answersOf(run: DriverRun): ApprovalAnswer[][] {
  assert.ok(
    Array.isArray(run.results),
    `driver failed: ${JSON.stringify(run.results)}\n${run.screen}`,
  );
  return run.results;
}

const brief = (answers: ApprovalAnswer[]) =>
  answers.map((a) => [a.callId, a.approved, a.scope, a.reason]);
const ptyTest = { ignore: !HAS_SCRIPT, sanitizeResources: true };

Deno.test({
  name: "TerminalApprover.decide() asks per call through a real pseudo-terminal",
  ...ptyTest,
  fn: async () => {
    const run = await runDriver("pty", [{
      calls: [
        askingCall("c1", ["network"], "curl https://example.com/x.tgz -o x.tgz"),
        askingCall("c2", ["destructive"], "rm -rf ~/projects"),
        askingCall("c3", ["system_write"], "echo hi >> ~/.bashrc"),
      ],
    }], "a\ny\nn\nuse the workspace instead\n");
    const results = answersOf(run);
    const screen = run.screen;
    assert.deepEqual(brief(results[0]), [
      ["c1", true, "class", "approved by the operator for network for the rest of the run"],
      ["c2", true, "once", "approved by the operator"],
      ["c3", false, "once", "Denied by the operator: use the workspace instead"],
    ]);
    assert.match(screen, /odek asks before running 3 tool calls/);
    assert.match(screen, /\| curl https:\/\/example\.com\/x\.tgz -o x\.tgz/);
    assert.match(screen, /\| rm -rf ~\/projects/);
    assert.match(screen, /- destructive: destructive part/);
    assert.match(screen, /Call 1 \(shell\): y = yes once, a = always for network in this run/);
    assert.match(screen, /Call 2 \(shell\): y = yes once, n = no/);
  },
});

Deno.test({
  name: "TerminalApprover.decide() remembers grants and needs the word approve after 3 approvals",
  ...ptyTest,
  fn: async () => {
    const sw = (id: string) => askingCall(id, ["system_write"], `touch /opt/${id}`);
    const run = await runDriver("pty", [
      { calls: [askingCall("n1", ["network"])] },
      { calls: [askingCall("n2", ["network"])] },
      { calls: [sw("s1"), sw("s2"), sw("s3")] },
      { calls: [sw("s4")] },
      { calls: [sw("s5")] },
      { calls: [sw("s6")] },
    ], "a\ny\ny\ny\ny\napprove\nx\nx\nx\nn\n\n");
    const results = answersOf(run);
    const screen = run.screen;
    assert.deepEqual(results.map((r) => r.map((a) => [a.callId, a.approved, a.scope])), [
      [["n1", true, "class"]],
      [["n2", true, "class"]],
      [["s1", true, "once"], ["s2", true, "once"], ["s3", true, "once"]],
      [["s4", true, "once"]],
      [["s5", false, "once"]],
      [["s6", false, "once"]],
    ]);
    assert.match(results[4][0].reason ?? "", /no valid answer after 3 attempts/);
    assert.equal(results[5][0].reason, "Denied by the operator");
    assert.match(screen, /Type the word approve to run it once/);
    assert.match(screen, /Please type approve or n/);
    assert.equal(screen.match(/odek asks before running/g)?.length, 5, "batch 2 needs no prompt");
  },
});

Deno.test({
  name: "TerminalApprover.decide() shows control characters escaped and denies at end of input",
  ...ptyTest,
  fn: async () => {
    const run = await runDriver("pty", [{
      calls: [askingCall("c1", ["network"], "curl x\u001b[2K\rrm -rf build\u202e")],
    }], "");
    const results = answersOf(run);
    const screen = run.screen;
    assert.equal(results[0][0].approved, false);
    assert.match(results[0][0].reason ?? "", /terminal closed/);
    assert.ok(screen.includes("| curl x\\x1b[2K\\x0drm -rf build\\u{202e}"), screen);
    assert.ok(!screen.includes("\u001b[2K"), "raw escape sequence reached the terminal");
  },
});

Deno.test({
  name: "TerminalApprover.decide() reads the terminal, not stdin",
  ...ptyTest,
  fn: async () => {
    const run = await runDriver(
      "pty",
      [{ calls: [askingCall("c1", ["network"])] }],
      "n\n\n",
      { stdinText: "y\ny\ny\n" },
    );
    const results = answersOf(run);
    assert.deepEqual(brief(results[0]), [["c1", false, "once", "Denied by the operator"]]);
  },
});

Deno.test({
  name:
    "TerminalApprover.decide() denies when only piped stdin is available (no controlling terminal)",
  ignore: !HAS_SETSID,
  fn: async () => {
    const run = await runDriver("setsid", [{
      calls: [askingCall("c1", ["network"]), askingCall("c2", ["system_write"])],
    }], "y\ny\na\napprove\n");
    const results = answersOf(run);
    assert.equal(results[0].length, 2);
    for (const answer of results[0]) {
      assert.equal(answer.approved, false);
      assert.match(answer.reason ?? "", /no terminal was available .*cannot open \/dev\/tty/);
      assert.match(answer.reason ?? "", /--yes/);
    }
  },
});

Deno.test("TerminalApprover.decide() approves granted calls without opening the terminal", async () => {
  const { ApprovalMemory } = await import("../../src/approval/approval_memory.ts");
  const memory = new ApprovalMemory();
  memory.grant(["network"]);
  const approver = new TerminalApprover({ ttyPath: "/nonexistent/tty", memory });
  const answers = await approver.decide({
    calls: [askingCall("c1", ["network"]), askingCall("c2", ["system_write"])],
  });
  assert.deepEqual(answers.map((a) => [a.callId, a.approved, a.scope]), [
    ["c1", true, "class"],
    ["c2", false, "once"],
  ]);
  assert.match(answers[1].reason ?? "", /no terminal was available/);
});

Deno.test("TerminalApprover.decide() rejects at once with an aborted signal", async () => {
  const controller = new AbortController();
  controller.abort(new Error("cancelled"));
  const approver = new TerminalApprover({ ttyPath: "/nonexistent/tty" });
  await assert.rejects(
    approver.decide({ calls: [askingCall("c1", ["network"])] }, controller.signal),
    /cancelled/,
  );
});

Deno.test({
  name: "TerminalApprover.decide() rejects with the signal's reason while waiting for an answer",
  ...ptyTest,
  fn: async () => {
    const run = await runDriver("pty", [{ calls: [askingCall("c1", ["network"])] }], "", {
      abortAfterMs: 300,
    });
    assert.ok(!Array.isArray(run.results), "an aborted question must not produce answers");
    assert.match(run.results.error, /TimeoutError|timed out|abort/i);
    assert.match(run.screen, /Call 1 \(shell\)/);
  },
});

Deno.test({
  name:
    "TerminalApprover.decide(): a write to a file the host runs later asks every time, with the whole diff on request",
  ...ptyTest,
  fn: async () => {
    const hook = (id: string) => ({
      ...askingCall(id, ["system_write"], "write .git/hooks/pre-commit"),
      verdict: {
        ...askingCall(id, ["system_write"]).verdict,
        askEveryTime: "write_file writes a file the host runs later (git hooks)",
      },
      preview: "--- a\n+++ a\n@@ -1,1 +1,1 @@\n-x\n+y\n… 500 more diff lines not shown",
      fullPreview: "--- a\n+++ a\n@@ -1,1 +1,1 @@\n-x\n+y\n+the-rest-of-the-diff",
    });
    const run = await runDriver("pty", [
      { calls: [askingCall("n1", ["system_write"])] },
      { calls: [hook("h1")] },
    ], "a\nd\ny\n");
    const results = answersOf(run);
    assert.equal(results[0][0].scope, "class", "system_write was granted for the run");
    // The grant does not cover it: it was asked, without an "always", and the diff was shown.
    assert.deepEqual(brief(results[1]), [["h1", true, "once", "approved by the operator"]]);
    assert.match(run.screen, /Call 1 \(shell\): y = yes once, n = no, d = show the whole diff/);
    assert.match(run.screen, /\| \+the-rest-of-the-diff/);
  },
});

/** An operator terminal that answers from a script: keys for readKey, lines for readLine. */
function scriptedTerminal(answers: { keys?: (string | null)[]; lines?: (string | null)[] }) {
  const asked: { kind: "key" | "line"; choices?: string }[] = [];
  let screen = "";
  let opened = 0;
  let closed = 0;
  const terminal = {
    open: () => {
      opened++;
      return {
        write: (text: string) => Promise.resolve(void (screen += text)),
        readLine: () => {
          asked.push({ kind: "line" });
          return Promise.resolve(answers.lines?.shift() ?? null);
        },
        readKey: (choices: string) => {
          asked.push({ kind: "key", choices });
          return Promise.resolve(answers.keys?.shift() ?? null);
        },
        close: () => void closed++,
      };
    },
  };
  return { terminal, asked, screen: () => screen, counts: () => ({ opened, closed }) };
}

Deno.test("TerminalApprover with an operator terminal: choices are single keys, reasons and the friction word are lines", async () => {
  const { ApprovalMemory } = await import("../../src/approval/approval_memory.ts");
  const memory = new ApprovalMemory();
  const t = scriptedTerminal({ keys: ["y", "n", "a"], lines: ["too risky"] });
  const approver = new TerminalApprover({ terminal: t.terminal, memory });
  const answers = await approver.decide({
    calls: [
      askingCall("c1", ["network"]),
      askingCall("c2", ["system_write"]),
      askingCall("c3", ["network"]),
    ],
  });
  assert.deepEqual(answers.map((a) => [a.callId, a.approved, a.scope]), [
    ["c1", true, "once"],
    ["c2", false, "once"],
    ["c3", true, "class"],
  ]);
  assert.match(answers[1].reason ?? "", /Denied by the operator: too risky/);
  assert.deepEqual(t.asked, [
    { kind: "key", choices: "yna" },
    { kind: "key", choices: "yna" },
    { kind: "line" },
    { kind: "key", choices: "yna" },
  ]);
  assert.match(t.screen(), /odek asks before running 3 tool calls/);
  assert.deepEqual(t.counts(), { opened: 1, closed: 1 });
  // After three approvals of a class within a minute, the word is typed (a line), never one key.
  const friction = new ApprovalMemory();
  for (let i = 0; i < 3; i++) friction.recordApproval(["system_write"]);
  const f = scriptedTerminal({ keys: ["y"], lines: ["approve"] });
  const [answer] = await new TerminalApprover({ terminal: f.terminal, memory: friction }).decide({
    calls: [askingCall("c4", ["system_write"])],
  });
  assert.equal(answer.approved, true);
  assert.deepEqual(f.asked, [{ kind: "line" }]);
});

Deno.test("TerminalApprover with an operator terminal: no key (Esc interrupts) denies, and the terminal is closed", async () => {
  const t = scriptedTerminal({ keys: [null] });
  const [answer] = await new TerminalApprover({ terminal: t.terminal }).decide({
    calls: [askingCall("c1", ["network"])],
  });
  assert.equal(answer.approved, false);
  assert.match(answer.reason ?? "", /the terminal closed before the operator answered/);
  assert.deepEqual(t.counts(), { opened: 1, closed: 1 });
});
