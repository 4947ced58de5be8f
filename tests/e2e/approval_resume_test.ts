/**
 * Issue 14, case 7 (design §8.3): Ctrl-C at the approval prompt of a real `odek run` on a pseudo
 * terminal. The journal records the call that was put to the operator and no start; `odek
 * continue` runs the calls that never started and asks the one that waited again — or, with
 * nobody to ask, answers it "not started".
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { bwrap } from "../_helpers/sandbox.ts";
import { ODEK_FLAGS, type OdekFixture, odekFixture, ROOT, toolMessages } from "./_odek.ts";

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

async function hasScript(): Promise<boolean> {
  try {
    await new Deno.Command("script", { args: ["--version"], stdout: "null", stderr: "null" })
      .output();
    return true;
  } catch {
    return false;
  }
}
const HAS_SCRIPT = await hasScript();
if (!HAS_SCRIPT) {
  console.error(
    "skipping the approval-resume e2e tests: `script` is missing (apt-get install bsdutils)",
  );
}

/** The session's journal records. */
async function records(fx: OdekFixture, id: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(join(fx.odekHome, "sessions", `${id}.jsonl`));
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

/**
 * `odek run` on a pseudo terminal (`script`): wait for the approval prompt, press Ctrl-C, and
 * return what the terminal showed and the exit code. The third call writes a canary file
 * outside the workspace (it asks); the first two are contained (they do not).
 */
async function cancelAtPrompt(
  fx: OdekFixture,
  canary: string,
): Promise<{ code: number; screen: string }> {
  await Deno.writeTextFile(join(fx.workspace, "a.txt"), "alpha\n");
  await using server = await startFakeOpenAIServer({
    turns: [{
      toolCalls: [
        { id: "r1", name: "read_file", arguments: { path: "a.txt" } },
        { id: "s1", name: "shell", arguments: { command: "echo one >> ran.log" } },
        { id: "w1", name: "shell", arguments: { command: `echo three >> ${canary}` } },
      ],
    }],
    strict: true,
  });
  const argv = [
    Deno.execPath(),
    ...ODEK_FLAGS,
    join(ROOT, "main.ts"),
    "run",
    "--session",
    "asked",
    "--base-url",
    server.url,
    "do three things",
  ];
  const child = new Deno.Command("script", {
    args: ["-qfec", argv.map(quote).join(" "), "/dev/null"],
    env: fx.env,
    clearEnv: true,
    cwd: fx.workspace,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.getReader();
  let screen = "";
  while (!/Call 1 \(shell\): y = yes once/.test(screen)) {
    const { value, done } = await reader.read();
    if (done) break;
    screen += new TextDecoder().decode(value);
  }
  assert.match(screen, /odek asks before running 1 tool call/, screen);
  await writer.write(new TextEncoder().encode("\x03")); // Ctrl-C on the terminal: SIGINT
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    screen += new TextDecoder().decode(value);
  }
  await writer.close().catch(() => {});
  const { code } = await child.status;
  await child.stderr.cancel();
  assert.equal(server.requests.length, 1);
  return { code, screen };
}

async function scenario(t: Deno.TestContext, continueFlags: string[], approved: boolean) {
  await using fx = await odekFixture();
  const outside = join(fx.home, "outside");
  await Deno.mkdir(outside);
  const canary = join(outside, "canary.txt");
  await Deno.writeTextFile(canary, "");
  await t.step("Ctrl-C at the prompt", async () => {
    const { code, screen } = await cancelAtPrompt(fx, canary);
    assert.equal(code, 130, screen);
    const saved = await records(fx, "asked");
    const kinds = saved.map((r) => r.t);
    // Tracked calls; the asking one put to the operator; nothing started; no result.
    assert.ok(kinds.indexOf("call_tracking") < kinds.lastIndexOf("message"));
    const asked = saved.filter((r) => r.t === "approval_requested");
    assert.deepEqual(asked.map((r) => r.callId), ["w1"]);
    assert.equal((asked[0].verdict as { decision: string }).decision, "ask");
    assert.equal(saved.filter((r) => r.t === "tool_started").length, 0);
    assert.equal(
      saved.filter((r) => r.t === "message" && (r.message as { role: string }).role === "tool")
        .length,
      0,
    );
  });
  await t.step(`odek continue ${continueFlags.join(" ")}`, async () => {
    await using server = await startFakeOpenAIServer({ turns: [{ text: "done" }], strict: true });
    const result = await fx.run(
      ["continue", "asked", "--base-url", server.url, "--json", ...continueFlags],
      { noTerminal: true },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(server.requests[0].refused, undefined, server.requests[0].refusal);
    const results = Object.fromEntries(
      toolMessages(server.requests[0].body).map((m) => [m.tool_call_id, m]),
    );
    assert.match(results.r1.content, /alpha/);
    assert.doesNotMatch(results.s1.raw, /^error/);
    // The calls that never started ran once, now; nothing was reported as "may have had effects".
    assert.equal(await Deno.readTextFile(join(fx.workspace, "ran.log")), "one\n");
    assert.doesNotMatch(JSON.stringify(results), /may have had partial effects/);
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    const started = events.find((e) => e.type === "run_started");
    assert.deepEqual(
      started.data.pending_tool_calls.map((p: { call_id: string; state: string }) => [
        p.call_id,
        p.state,
      ]),
      [["r1", "not_started"], ["s1", "not_started"], ["w1", "awaiting_approval"]],
    );
    if (approved) {
      assert.ok(events.some((e) => e.type === "approval_requested"), "asked again");
      assert.equal(await Deno.readTextFile(canary), "three\n");
    } else {
      assert.match(
        results.w1.raw,
        /^error \(not_started\): Tool call w1 \(shell\) was not run: the run stopped before it was approved/,
      );
      assert.equal(await Deno.readTextFile(canary), "", "the call that was never approved ran");
    }
  });
}

const ignore = bwrap === null || !HAS_SCRIPT;

Deno.test({
  name:
    "odek continue without anyone to ask answers the call that waited for approval as not started (case 7)",
  ignore,
  fn: (t) => scenario(t, [], false),
});

Deno.test({
  name: "odek continue --yes asks the call that waited for approval again, and it runs (case 7)",
  ignore,
  fn: (t) => scenario(t, ["--yes"], true),
});
