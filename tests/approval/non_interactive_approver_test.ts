import assert from "node:assert/strict";
import { NonInteractiveApprover } from "../../src/approval/non_interactive_approver.ts";
import type { RiskClass } from "../../src/danger/verdict.ts";
import { askingCall } from "./_calls.ts";

type Yes = "all" | RiskClass[] | undefined;
// [policy, the call's asking classes, approved?, pattern the reason must match]
const ROWS: [Yes, RiskClass[], boolean, RegExp][] = [
  [undefined, ["network"], false, /rerun with --yes or --yes=network to approve/],
  [undefined, ["system_write", "network"], false, /--yes or --yes=system_write,network/],
  [undefined, ["destructive"], false, /rerun with --yes=destructive to/],
  [undefined, ["unknown"], false, /--yes=unknown/],
  ["all", ["network"], true, /approved by --yes$/],
  ["all", ["system_write"], true, /--yes/],
  ["all", ["network", "system_write"], true, /--yes/],
  ["all", ["destructive"], false, /needs approval for destructive .*--yes=destructive/],
  ["all", ["privileged"], false, /--yes=privileged/],
  ["all", ["unknown"], false, /--yes=unknown/],
  ["all", ["network", "destructive"], false, /approval for destructive \(/],
  ["all", ["blocked"], false, /blocked calls can never be approved/],
  ["all", [], false, /unknown/],
  [["network"], ["network"], true, /approved by --yes=network/],
  [["network"], ["system_write"], false, /rerun with --yes=network,system_write/],
  [["network"], ["network", "system_write"], false, /approval for system_write \(/],
  [["network", "system_write"], ["network", "system_write"], true, /--yes=network,system_write/],
  [["destructive"], ["destructive"], true, /--yes=destructive/],
  [["unknown"], ["unknown"], true, /--yes=unknown/],
  [["unknown"], [], true, /--yes=unknown/],
  [["privileged"], ["privileged", "network"], false, /--yes=privileged,network/],
  [["blocked"], ["blocked"], false, /never be approved/],
  [[], ["network"], false, /--yes=network/],
];

Deno.test("NonInteractiveApprover.decide() applies the --yes policy", async (t) => {
  for (const [yes, classes, approved, reason] of ROWS) {
    await t.step(`${JSON.stringify(yes)} on ${classes.join("+") || "(none)"}`, async () => {
      const approver = new NonInteractiveApprover(yes === undefined ? {} : { yes });
      const [answer] = await approver.decide({ calls: [askingCall("c1", classes)] });
      assert.equal(answer.callId, "c1");
      assert.equal(answer.approved, approved, answer.reason);
      assert.equal(answer.scope, "once");
      assert.match(answer.reason ?? "", reason);
    });
  }
});

Deno.test("NonInteractiveApprover.decide() answers every call of a batch in order", async () => {
  const approver = new NonInteractiveApprover({ yes: "all" });
  const answers = await approver.decide({
    calls: [askingCall("a", ["network"]), askingCall("b", ["destructive"]), askingCall("c", [])],
  });
  assert.deepEqual(answers.map((a) => [a.callId, a.approved]), [["a", true], ["b", false], [
    "c",
    false,
  ]]);
});

Deno.test("NonInteractiveApprover.decide() includes the verdict reason in a denial", async () => {
  const [answer] = await new NonInteractiveApprover().decide({
    calls: [askingCall("c1", ["network"], "curl example.com")],
  });
  assert.match(answer.reason ?? "", /curl example\.com: network/);
  assert.match(answer.reason ?? "", /non-interactively/);
});

Deno.test("NonInteractiveApprover.decide() rejects with the reason of an aborted signal", async () => {
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  await assert.rejects(
    new NonInteractiveApprover({ yes: "all" }).decide({ calls: [] }, controller.signal),
    /stop/,
  );
});

Deno.test("NonInteractiveApprover copies its class list", async () => {
  const yes: RiskClass[] = ["network"];
  const approver = new NonInteractiveApprover({ yes });
  yes.push("destructive");
  const [answer] = await approver.decide({ calls: [askingCall("c1", ["destructive"])] });
  assert.equal(answer.approved, false);
});

Deno.test("NonInteractiveApprover never approves a call that asks every time, whatever --yes says", async () => {
  const call = {
    callId: "h1",
    toolName: "write_file",
    args: { path: ".git/hooks/pre-commit" },
    verdict: {
      decision: "ask" as const,
      reason: "x",
      askEveryTime: "write_file writes a file the host runs later (git hooks)",
      parts: [{ riskClass: "system_write" as const, subject: "write_file", targets: [] }],
    },
  };
  for (const yes of ["all", ["system_write"]] as const) {
    const [answer] = await new NonInteractiveApprover({ yes }).decide({ calls: [call] });
    assert.equal(answer.approved, false);
    assert.match(answer.reason ?? "", /host runs later.*no --yes covers it/);
  }
});

Deno.test("NonInteractiveApprover.decide() names the config that trusts an MCP server when its call is denied", async () => {
  const call = {
    callId: "m1",
    toolName: "files__read",
    args: {},
    verdict: {
      decision: "ask" as const,
      reason: "files__read: unknown",
      parts: [{
        riskClass: "unknown" as const,
        subject: "files__read",
        targets: [],
        detail: 'MCP server files tool "read"; the server\'s scope: read-only workspace',
      }],
    },
  };
  const [answer] = await new NonInteractiveApprover().decide({ calls: [call] });
  assert.equal(answer.approved, false);
  assert.match(answer.reason ?? "", /--yes=unknown/);
  assert.match(answer.reason ?? "", /"mcpServers": \{ "files": \{ "trusted": true \} \}/);
  assert.match(answer.reason ?? "", /"read" in its "trustedTools"/);
  const [shell] = await new NonInteractiveApprover().decide({
    calls: [askingCall("c1", ["unknown"])],
  });
  assert.doesNotMatch(shell.reason ?? "", /mcpServers/);
});
