/**
 * One rule for `/tmp`, whatever the workspace (issue 13): a program sees the host's `/tmp`
 * read-only, so `cp a ../x` from a workspace under `/tmp` and `echo … >> /tmp/notes.txt` ask
 * (the classifier names the path) or, run as contained code that hides the path, fail visibly —
 * never exit 0 while the host file is missing. `$TMPDIR` is the session host's private scratch:
 * writable, kept between the host's commands, gone when the host closes, and described as such.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ApprovalRequest, Approver } from "../../src/approval/approver.ts";
import { SHELL_TOOL } from "../../tools/_catalogue/program_tools.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { runtimeFixture } from "../runtime/_runtime_fixture.ts";

const approveAll: Approver = {
  decide: (request: ApprovalRequest) =>
    Promise.resolve(
      request.calls.map((c) => ({ callId: c.callId, approved: true, scope: "once" as const })),
    ),
};
const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

Deno.test("the shell tool tells the model $TMPDIR is its private scratch and /tmp read-only", () => {
  assert.match(SHELL_TOOL.description, /\$TMPDIR is a private scratch directory/);
  assert.match(SHELL_TOOL.description, /\/tmp is the host's and read-only/);
});

for (const where of ["under /tmp", "elsewhere"] as const) {
  sandboxTest(
    `phantom writes with the workspace ${where}: they ask, fail visibly, or really happen`,
    async () => {
      const tag = crypto.randomUUID().slice(0, 8);
      const notes = `/tmp/odek-notes-${tag}.txt`;
      const parent = await Deno.realPath(
        await Deno.makeTempDir({
          dir: where === "under /tmp" ? "/tmp" : "/var/tmp",
          prefix: "odek-tmp-rule-",
        }),
      );
      const ws = join(parent, "ws");
      await Deno.mkdir(ws);
      await Deno.writeTextFile(join(ws, "a.txt"), "a\n");
      // Contained code the classifier cannot read: the same writes, from a script file.
      await Deno.writeTextFile(
        join(ws, "run.sh"),
        `cp a.txt ../hidden-${tag}.txt || exit 3\necho note >> ${notes} || exit 4\n`,
      );
      const backup = join(parent, `backup-${tag}.txt`);
      const calls = [
        {
          id: "cp",
          name: "shell",
          arguments: { command: `cp a.txt ../backup-${tag}.txt && ls ..` },
        },
        { id: "echo", name: "shell", arguments: { command: `echo note >> ${notes}` } },
        { id: "script", name: "shell", arguments: { command: "bash run.sh" } },
        {
          id: "scratch",
          name: "shell",
          arguments: { command: 'echo kept > "$TMPDIR/kept" && echo "$TMPDIR"' },
        },
        { id: "again", name: "shell", arguments: { command: 'cat "$TMPDIR/kept"' } },
      ];
      try {
        await using f = await runtimeFixture({
          sandbox: "bwrap",
          scripts: [
            // `again` reads what `scratch` wrote: a turn of its own (a batch's calls run at once).
            [{ toolCalls: calls.slice(0, 4) }, { toolCalls: calls.slice(4) }, { text: "done" }],
            [{ toolCalls: [calls[0]] }, { text: "done" }],
          ],
        });
        let scratch = "";
        {
          // Nobody approves: what names a host path asks and is refused.
          await using host = await f.runtime.openSession({ task: "back up" }, { workspace: ws });
          const outcome = await (await host.startRun()).result;
          assert.equal(outcome.type, "completed", JSON.stringify(outcome));
          const results = Object.fromEntries(
            (await f.runtime.sessions.read(host.sessionId)).messages.filter((m) =>
              m.role === "tool"
            )
              .map((m) => [(m as { tool_call_id: string }).tool_call_id, String(m.content)]),
          );
          assert.match(results.cp, /^error \(denied\).*system_write/s, results.cp);
          assert.match(results.echo, /^error \(denied\).*system_write/s, results.echo);
          // The hidden writes ran contained and failed visibly.
          assert.match(results.script, /^error \(failed\)[\s\S]*exit code [34]/, results.script);
          assert.match(results.script, /Read-only file system/, results.script);
          assert.equal(await exists(backup), false);
          assert.equal(await exists(join(parent, `hidden-${tag}.txt`)), false);
          assert.equal(await exists(notes), false);
          // $TMPDIR: writable, the host's own, kept between its commands.
          assert.doesNotMatch(results.scratch, /^error/, results.scratch);
          scratch = /stdout:\n(\/\S+)\n/.exec(results.scratch)?.[1] ?? "";
          assert.match(scratch, /\/odek-[^/]+\/host-[^/]+\/tmp$/);
          assert.match(results.again, /stdout:\nkept\n/, results.again);
          assert.equal(Deno.statSync(scratch).mode! & 0o777, 0o700, "the scratch is private");
        }
        assert.equal(await exists(scratch), false, "the scratch outlived its host");
        {
          // Approved, the write lands on the host: exit 0 only with the file there.
          await using host = await f.runtime.openSession({ task: "back up" }, {
            workspace: ws,
            approver: approveAll,
          });
          const outcome = await (await host.startRun()).result;
          assert.equal(outcome.type, "completed", JSON.stringify(outcome));
          const [result] = (await f.runtime.sessions.read(host.sessionId)).messages
            .filter((m) => m.role === "tool").map((m) => String(m.content));
          assert.doesNotMatch(result, /^error/, result);
          assert.match(result, new RegExp(`backup-${tag}\\.txt`));
          assert.equal(await Deno.readTextFile(backup), "a\n");
        }
      } finally {
        await Deno.remove(parent, { recursive: true });
        await Deno.remove(notes).catch(() => {});
      }
    },
  );
}
