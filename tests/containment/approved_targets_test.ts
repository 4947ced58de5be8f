/**
 * Approvals grant what they show (issue 13): through a session host (the real classifier, the
 * gate, real bwrap and file children), an approved write outside the workspace writes exactly
 * that file and nothing beside it — with `write_file` and with `shell`, new and existing — and a
 * call no approval could make work is refused before anyone is asked, naming `--add-dir`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ApprovalRequest, Approver } from "../../src/approval/approver.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { runtimeFixture } from "../runtime/_runtime_fixture.ts";

/** Approves every ask, and remembers what it was asked. */
function recordingApprover(): Approver & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    decide: (request: ApprovalRequest) => {
      for (const call of request.calls) asked.push(call.callId);
      return Promise.resolve(
        request.calls.map((c) => ({ callId: c.callId, approved: true, scope: "once" as const })),
      );
    },
  };
}

async function toolResults(
  f: Awaited<ReturnType<typeof runtimeFixture>>,
  sessionId: string,
): Promise<Record<string, string>> {
  const { messages } = await f.runtime.sessions.read(sessionId);
  return Object.fromEntries(
    messages.filter((m) => m.role === "tool").map((m) => [
      (m as { tool_call_id: string }).tool_call_id,
      String(m.content),
    ]),
  );
}

sandboxTest(
  "an approved write outside the workspace writes exactly that file, new or existing, with write_file and with shell",
  async () => {
    const out = await Deno.realPath(
      await Deno.makeTempDir({ dir: "/var/tmp", prefix: "odek-outside-" }),
    );
    await Deno.writeTextFile(join(out, "existing.txt"), "old\n");
    await Deno.writeTextFile(join(out, "existing2.txt"), "old\n");
    await Deno.writeTextFile(join(out, "keep.txt"), "keep\n");
    const script = [
      {
        toolCalls: [
          { id: "w1", name: "write_file", arguments: { path: `${out}/new.txt`, content: "new\n" } },
          {
            id: "w2",
            name: "write_file",
            arguments: { path: `${out}/existing.txt`, content: "replaced\n" },
          },
          {
            id: "s1",
            name: "shell",
            arguments: { command: `echo shell-new > ${out}/shell-new.txt` },
          },
          {
            id: "s2",
            name: "shell",
            arguments: { command: `echo appended >> ${out}/existing2.txt` },
          },
        ],
      },
      { text: "written" },
    ];
    const approver = recordingApprover();
    const fixture = await runtimeFixture({ sandbox: "bwrap", scripts: [script] });
    try {
      await using host = await fixture.runtime.openSession({ task: "write outside" }, {
        workspace: await fixture.workspace("ws"),
        approver,
      });
      const outcome = await (await host.startRun()).result;
      assert.equal(outcome.type, "completed", JSON.stringify(outcome));
      const results = await toolResults(fixture, host.sessionId);
      for (const id of ["w1", "w2", "s1", "s2"]) {
        assert.doesNotMatch(results[id], /^error/, `${id}: ${results[id]}`);
      }
      assert.deepEqual(approver.asked.sort(), ["s1", "s2", "w1", "w2"], "each one asked");
      assert.deepEqual(
        (await Array.fromAsync(Deno.readDir(out))).map((e) => e.name).sort(),
        ["existing.txt", "existing2.txt", "keep.txt", "new.txt", "shell-new.txt"],
        "something beside the granted files was written",
      );
      assert.equal(await Deno.readTextFile(join(out, "new.txt")), "new\n");
      assert.equal(await Deno.readTextFile(join(out, "existing.txt")), "replaced\n");
      assert.equal(await Deno.readTextFile(join(out, "shell-new.txt")), "shell-new\n");
      assert.equal(await Deno.readTextFile(join(out, "existing2.txt")), "old\nappended\n");
      assert.equal(await Deno.readTextFile(join(out, "keep.txt")), "keep\n");
    } finally {
      await fixture[Symbol.asyncDispose]();
      await Deno.remove(out, { recursive: true });
    }
  },
);

sandboxTest(
  "a write no approval can grant is refused before asking, naming --add-dir",
  async () => {
    const script = [
      {
        toolCalls: [
          {
            id: "w1",
            name: "write_file",
            arguments: { path: "/var/tmp/odek-no-such-dir-for-tests/x/y.txt", content: "x\n" },
          },
          {
            id: "w2",
            name: "write_file",
            arguments: { path: "/proc/sys/kernel/odek_test", content: "x\n" },
          },
          { id: "s1", name: "shell", arguments: { command: "cat /proc/1/environ" } },
        ],
      },
      { text: "refused" },
    ];
    const approver = recordingApprover();
    await using f = await runtimeFixture({ sandbox: "bwrap", scripts: [script] });
    await using host = await f.runtime.openSession({ task: "write where nothing can be granted" }, {
      workspace: await f.workspace("ws"),
      approver,
    });
    const outcome = await (await host.startRun()).result;
    assert.equal(outcome.type, "completed", JSON.stringify(outcome));
    const results = await toolResults(f, host.sessionId);
    assert.deepEqual(approver.asked, [], "the operator was asked about an ungrantable call");
    for (const id of ["w1", "w2", "s1"]) {
      assert.match(results[id], /^error \(denied\)/, `${id}: ${results[id]}`);
      assert.match(results[id], /--add-dir/, `${id}: ${results[id]}`);
    }
    assert.match(results.w1, /does not exist|is not one/);
  },
);
