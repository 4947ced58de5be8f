/**
 * Nothing the repository configures executes at a read scope (issue 13), tried with real git in
 * real sandboxes. The canary program is a data file written by this test: it only appends a line
 * to a marker (in the private scratch, or in the workspace, and one outside the workspace that
 * must stay untouched).
 *
 * - Through a session host's gate: `git status` and `git diff` in a repository whose
 *   `diff.external` and `core.fsmonitor` name the canary are denied at `untrusted`, and at
 *   `standard` run only as a contained `code_execution` call (the workspace writable, nothing
 *   outside it).
 * - The second layer: a program forced to a read scope runs git with the fixed keys neutralised
 *   by environment, one test per key git runs at a read scope; the same call with the workspace
 *   writable (no neutralisation) runs the canary, so each can fail.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { GIT_NEUTRAL_ENV } from "../../src/broker/_git_neutral_env.ts";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { Verdict } from "../../src/danger/verdict.ts";
import { REPO_PROGRAM_KEYS } from "../../src/danger/repo_programs.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";
import { runtimeFixture } from "../runtime/_runtime_fixture.ts";

const hasGit = (() => {
  try {
    return Deno.statSync("/usr/bin/git").isFile;
  } catch {
    return false;
  }
})();
if (!hasGit) console.error("skipping repository-program tests: git missing (apt-get install git)");

async function git(cwd: string, ...args: string[]): Promise<void> {
  const { code, stderr } = await new Deno.Command("git", {
    args,
    cwd,
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
}

/** A repository with one commit and one modified file, and the canary script beside it. */
async function repository(ws: string, markers: string[]): Promise<string> {
  await git(ws, "init", "-q");
  await Deno.writeTextFile(join(ws, "a.txt"), "one\n");
  await git(ws, "add", "a.txt");
  await git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init");
  await Deno.writeTextFile(join(ws, "a.txt"), "two\n");
  const canary = join(ws, "canary.sh");
  const lines = markers.map((m) => `echo "ran $1" >> "${m}" 2>/dev/null`);
  await Deno.writeTextFile(canary, `#!/bin/sh\n${lines.join("\n")}\nexit 0\n`, { mode: 0o755 });
  return canary;
}

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

for (const trust of ["untrusted", "standard"] as const) {
  sandboxTest(
    `git status and git diff with diff.external and core.fsmonitor canaries at --trust ${trust}`,
    async () => {
      if (!hasGit) return;
      await using f = await runtimeFixture({
        sandbox: "bwrap",
        scripts: [[
          {
            toolCalls: [
              { id: "c1", name: "shell", arguments: { command: "git status" } },
              { id: "c2", name: "shell", arguments: { command: "git diff" } },
            ],
          },
          { text: "done" },
        ]],
      });
      const ws = await f.workspace("ws");
      const outside = join(f.root, "outside-marker.txt");
      await Deno.writeTextFile(outside, "untouched\n");
      const inside = join(ws, "inside-marker.txt");
      const canary = await repository(ws, [inside, outside]);
      await git(ws, "config", "diff.external", canary);
      await git(ws, "config", "core.fsmonitor", canary);
      await using host = await f.runtime.openSession({ task: "look at the repo" }, {
        workspace: ws,
        trust,
      });
      const outcome = await (await host.startRun()).result;
      assert.equal(outcome.type, "completed", JSON.stringify(outcome));
      const results = (await f.runtime.sessions.read(host.sessionId)).messages
        .filter((m) => m.role === "tool").map((m) => String(m.content));
      assert.equal(await Deno.readTextFile(outside), "untouched\n", "the outside marker changed");
      if (trust === "untrusted") {
        for (const r of results) assert.match(r, /code_execution/, r);
        for (const r of results) assert.match(r, /not allowed at trust level untrusted/, r);
        assert.equal(await exists(inside), false, "a repository program ran at untrusted");
      } else {
        assert.ok(results.every((r) => !/Not run/.test(r)), results.join("\n"));
        // They ran contained: the workspace writable (the canary's marker is there), the
        // outside marker untouched (checked above).
        assert.match(await Deno.readTextFile(inside), /ran/);
      }
    },
  );
}

const READ: Verdict = {
  parts: [{ riskClass: "read", subject: "git", targets: [] }],
  decision: "allow",
  reason: "forced to a read scope",
};
const WRITABLE: Verdict = {
  parts: [{ riskClass: "code_execution", subject: "git", targets: [] }],
  decision: "allow",
  reason: "the control: no neutralisation",
};

/** For each fixed key git runs at a read scope: the command that makes it run. */
const TRIGGERS: Record<string, string> = {
  // git pages only on a terminal: `script` gives it one.
  "core.pager": "script -qec 'git -p log -1' /dev/null",
  "core.fsmonitor": "git status",
  "diff.external": "git diff",
  "core.editor": "git config --edit",
  "credential.helper": "printf 'protocol=https\\nhost=127.0.0.1\\n\\n' | git credential fill",
  "core.askPass": "printf 'protocol=https\\nhost=127.0.0.1\\n\\n' | git credential fill",
  "core.sshCommand": "git ls-remote ssh://127.0.0.1:1/r",
};

Deno.test("the neutral environment covers every fixed-name key of the table", () => {
  const neutralised = Object.entries(GIT_NEUTRAL_ENV)
    .filter(([name]) => name.startsWith("GIT_CONFIG_KEY_")).map(([, key]) => key);
  const fixed = REPO_PROGRAM_KEYS.filter((k) => k.neutral !== undefined).map((k) => k.name);
  assert.deepEqual(neutralised.sort(), fixed.sort());
  assert.equal(GIT_NEUTRAL_ENV.GIT_CONFIG_COUNT, String(fixed.length));
  for (const key of Object.keys(TRIGGERS)) assert.ok(fixed.includes(key), key);
});

for (const [key, command] of Object.entries(TRIGGERS)) {
  sandboxTest(`read-scope git neutralises ${key} (${command})`, async () => {
    if (!hasGit) return;
    await using f = await makeSandboxFixture();
    const canary = await repository(f.workspace, ['"$TMPDIR/ran"']);
    // The canary writes where the sandbox lets it: the scratch ($TMPDIR), even at a read scope.
    await Deno.writeTextFile(
      canary,
      `#!/bin/sh\necho "ran ${key}" >> "$TMPDIR/ran"\necho username=x\nexit 0\n`,
      { mode: 0o755 },
    );
    await git(f.workspace, "config", key, key === "core.askPass" ? canary : `${canary} x`);
    const broker = new SandboxBroker({
      context: f.context,
      resolveWorkspace: () => Promise.resolve(f.workspace),
      trustLevel: "standard",
    });
    try {
      const scratch = (await broker.scratchDir())!;
      const ran = join(scratch, "ran");
      const run = (verdict: Verdict) =>
        broker.run({
          id: "c",
          name: "shell",
          args: { command: `(${command}) >/dev/null 2>&1; echo done`, timeout_seconds: 20 },
          verdict,
        });
      const read = await run(READ);
      assert.ok(read.ok, JSON.stringify(read));
      assert.equal(await exists(ran), false, `${key} ran at a read scope`);
      // The control: the same command with the workspace writable is not neutralised.
      const control = await run(WRITABLE);
      assert.ok(control.ok, JSON.stringify(control));
      assert.match(
        await Deno.readTextFile(ran),
        new RegExp(`ran ${key}`),
        `${key}: the control did not run it`,
      );
    } finally {
      await broker.close();
    }
  });
}
