import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { processesWith, uniqueSleep } from "../broker/_processes.ts";
import { type OdekFixture, odekFixture, toolMessages } from "./_odek.ts";

/** Whether `pid` names a live process (a zombie is dead). Deno cannot read /proc: bash does. */
function alive(pid: number): boolean {
  const script =
    'read -r s < "/proc/$1/stat" 2>/dev/null || exit 1; s=${s##*) }; [ "${s%% *}" != Z ]';
  return new Deno.Command("bash", { args: ["-c", script, "alive", String(pid)] }).outputSync()
    .success;
}

async function waitForFile(path: string, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const text = await Deno.readTextFile(path);
      if (text.endsWith("\n")) return text;
    } catch {
      // Not yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${path}`);
}

/**
 * Start a run whose shell call starts a background `sleep` child and sleeps itself, send
 * `signal` once both are running, and check: the exit code, no process of the call alive 2 s
 * later, the interrupted result in the session, and that `odek continue` resumes.
 */
async function interruptLongShell(
  fx: OdekFixture,
  signal: "SIGINT" | "SIGTERM",
  env: Record<string, string>,
  checkPidfile: boolean,
) {
  const marker = uniqueSleep();
  await using first = await startFakeOpenAIServer({
    turns: [{
      toolCalls: [{
        id: "long",
        name: "shell",
        arguments: {
          command: `${marker} & echo $! > child.pid; echo $$ > shell.pid; ${marker}`,
        },
      }],
    }, { text: "never asked" }],
  });
  const child = fx.spawn(["run", "--base-url", first.url, "--session", "stopme", "sleep long"], {
    env,
  });
  const childPid = Number(await waitForFile(join(fx.workspace, "child.pid")));
  const shellPid = Number(await waitForFile(join(fx.workspace, "shell.pid")));
  // Both the shell and the sleep it started are running.
  const before = processesWith(marker);
  assert.equal(before.length >= 2, true, `expected two sleeps, found ${before}`);
  child.kill(signal);
  // A bound on liveness, not a speed assertion: odek must exit rather than wait on the command.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const exitedInTime = await Promise.race([
    child.status.then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 30_000))),
  ]);
  clearTimeout(timer);
  if (!exitedInTime) {
    child.kill("SIGKILL");
    for (const pid of processesWith(marker)) Deno.kill(pid, "SIGKILL");
  }
  const out = await child.output();
  assert.ok(exitedInTime, `odek did not exit within 30 s of ${signal}`);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, signal === "SIGINT" ? 130 : 143, stderr);
  assert.match(stderr, new RegExp(`${signal} received: stopping tools and saving the session`));
  assert.match(stderr, /resume it with odek continue stopme/);

  await new Promise((resolve) => setTimeout(resolve, 2_000));
  assert.deepEqual(processesWith(marker), [], "a process of the shell call is still alive");
  if (checkPidfile) {
    assert.equal(alive(childPid), false, `the background child ${childPid} is alive`);
    assert.equal(alive(shellPid), false, `the shell ${shellPid} is alive`);
  }
  assert.equal(first.requests.length, 1);

  await using second = await startFakeOpenAIServer({ turns: [{ text: "Picked up again." }] });
  const resumed = await fx.run(["continue", "stopme", "--base-url", second.url], { env });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /Picked up again\./);
  const results = toolMessages(second.requests[0].body);
  assert.deepEqual(results.map((r) => r.tool_call_id), ["long"]);
  assert.match(
    results[0].content,
    /^error \(interrupted\): interrupted: the command and every process it started were killed/,
  );
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.test(`${signal} during a long unsandboxed shell call kills its process group, saves the session (exit ${signal === "SIGINT" ? 130 : 143}) and continue resumes`, async () => {
    await using fx = await odekFixture();
    await interruptLongShell(fx, signal, { ODEK_SANDBOX: "none" }, true);
  });
}

sandboxTest(
  "SIGINT during a long sandboxed shell call kills the whole sandbox, exit 130, and continue resumes",
  async () => {
    await using fx = await odekFixture();
    // In the sandbox's pid namespace the pidfiles hold namespace pids: the marker finds them.
    await interruptLongShell(fx, "SIGINT", {}, false);
  },
);
