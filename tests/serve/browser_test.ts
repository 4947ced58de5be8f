/**
 * The page in headless Chromium (Debian's `chromium`, driven by `playwright-core` from
 * tests/serve/browser, a test-only package): open it with the token, start a run against the
 * scripted model, see the streamed text, approve a risky `shell` call and see its result, reload
 * while the next approval waits and find the run reattached, deny that call with a reason the
 * model receives, and find the session in the list. Screenshots at desktop and phone width go to
 * `test-artifacts/serve/`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ScriptedModelRequest } from "../../src/testing/scripted_model.ts";
import { serveFixture, TEST_TOKEN, waitFor } from "./_serve_fixture.ts";

const CHROMIUM = "/usr/bin/chromium";
const PLAYWRIGHT = new URL("./browser/node_modules/playwright-core/index.js", import.meta.url);
const DRIVER = fileURLToPath(new URL("./browser/drive_page.mjs", import.meta.url));
const ARTIFACTS = fileURLToPath(new URL("../../test-artifacts/serve/", import.meta.url));

// The calls the scripted model makes (test data; they touch only the session's own workspace).
const APPROVED_COMMAND = "echo approved-canary > marker.txt; git push 2>&1; true";
const DENIED_COMMAND = "git push";
const DENY_REASON = "not now, the branch is frozen";

async function missing(): Promise<string | undefined> {
  try {
    await Deno.stat(CHROMIUM);
  } catch {
    return `no ${CHROMIUM}: run "apt-get install chromium"`;
  }
  try {
    await Deno.stat(PLAYWRIGHT);
  } catch {
    return 'playwright-core is not installed: run "npm ci --prefix tests/serve/browser"';
  }
  try {
    await new Deno.Command("node", { args: ["--version"], stdout: "null" }).output();
  } catch {
    return 'no node to run playwright-core: run "apt-get install nodejs"';
  }
  try {
    await Deno.stat("/usr/bin/bwrap");
  } catch {
    return 'no bwrap for the shell tool: run "apt-get install bubblewrap"';
  }
  return undefined;
}

function scriptedTurns(requests: ScriptedModelRequest[]) {
  return (request: ScriptedModelRequest, index: number) => {
    requests.push(request);
    switch (index) {
      case 0:
        return {
          text: "Hello **world**, running the first command.",
          chunkDelayMs: 5,
          toolCalls: [{ id: "sh1", name: "shell", arguments: { command: APPROVED_COMMAND } }],
        };
      case 1:
        return {
          toolCalls: [{ id: "sh2", name: "shell", arguments: { command: DENIED_COMMAND } }],
        };
      default:
        return { text: "All done: the push was refused." };
    }
  };
}

const skip = await missing();
if (skip) console.log(`browser_test: skipped: ${skip}`);

Deno.test({
  name:
    "the page runs a task, streams text, takes an approval and a denial, and reattaches after a reload",
  ignore: skip !== undefined,
}, async () => {
  const requests: ScriptedModelRequest[] = [];
  await using s = await serveFixture({ sandbox: "bwrap", scripts: [scriptedTurns(requests)] });
  const origin = await s.start();
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  // playwright-core reads /proc files Deno allows only with --allow-all: it runs under Node
  const driver = new Deno.Command("node", {
    args: [DRIVER],
    env: { ORIGIN: origin, TOKEN: TEST_TOKEN, ARTIFACTS, DENY_REASON, CHROMIUM },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const steps: string[] = [];
  const watch = (async () => {
    for await (const line of driver.stdout.pipeThrough(new TextDecoderStream())) {
      steps.push(...line.split("\n").filter((l) => l.startsWith("step: ")));
    }
  })();
  const stderr = new Response(driver.stderr).text();
  await waitFor("the approved call's marker", async () => {
    const [session] = s.runs.list();
    return session !== undefined &&
      await Deno.readTextFile(join(session.workspace, "marker.txt")).then(
        (t) => t.trim() === "approved-canary",
        () => false,
      );
  }, 60_000);
  const status = await driver.status;
  await watch;
  assert.equal(status.code, 0, `the page steps: ${steps.join(" | ")}\n${await stderr}`);
  assert.equal(steps.length, 7, steps.join(" | "));
  const [session] = s.runs.list();
  await waitFor("the run's end", () => s.runs.current(session.sessionId) === undefined);
  assert.equal(session.state, "completed", session.summary);
  const denied = requests.at(-1)!.messages.filter((m) => m.role === "tool").at(-1);
  assert.match(String(denied?.content), new RegExp(DENY_REASON));
  for (const shot of ["desktop.png", "phone.png", "phone-menu.png"]) {
    assert.ok((await Deno.stat(join(ARTIFACTS, shot))).size > 1000, shot);
  }
});
