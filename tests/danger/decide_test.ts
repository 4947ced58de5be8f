import assert from "node:assert/strict";
import { decide, decideClass } from "../../src/danger/decide.ts";
import { type RiskClass, RiskClassSchema, type VerdictPart } from "../../src/danger/verdict.ts";

const CLASSES = RiskClassSchema.options;

function part(riskClass: RiskClass, subject: string = riskClass): VerdictPart {
  return { riskClass, subject, targets: [] };
}

Deno.test("decideClass() follows the policy table of design §3", async (t) => {
  const table: Record<string, Record<RiskClass, string>> = {
    untrusted: {
      read: "allow",
      local_write: "deny",
      code_execution: "deny",
      network: "deny",
      system_write: "deny",
      destructive: "deny",
      privileged: "deny",
      unknown: "deny",
      blocked: "deny",
    },
    standard: {
      read: "allow",
      local_write: "allow",
      code_execution: "allow",
      network: "ask",
      system_write: "ask",
      destructive: "ask",
      privileged: "ask",
      unknown: "ask",
      blocked: "deny",
    },
  };
  for (const [level, row] of Object.entries(table)) {
    for (const riskClass of CLASSES) {
      await t.step(`${level} ${riskClass}`, () => {
        assert.equal(decideClass(riskClass, level as "untrusted" | "standard"), row[riskClass]);
      });
    }
  }
});

Deno.test("decideClass() at trusted is standard plus exactly the pre-approved classes", () => {
  for (const riskClass of CLASSES) {
    const standard = decideClass(riskClass, "standard");
    assert.equal(decideClass(riskClass, "trusted"), standard, riskClass);
    const approved = decideClass(riskClass, "trusted", [riskClass]);
    assert.equal(approved, riskClass === "blocked" ? "deny" : "allow", riskClass);
  }
  assert.equal(decideClass("network", "trusted", ["system_write"]), "ask");
});

Deno.test("decideClass() ignores pre-approved classes below trusted", () => {
  assert.equal(decideClass("network", "standard", ["network"]), "ask");
  assert.equal(decideClass("network", "untrusted", ["network"]), "deny");
});

Deno.test("decide() is deny if any part is denied, else ask if any asks, else allow", () => {
  assert.equal(
    decide([part("read"), part("blocked"), part("network")], "standard").decision,
    "deny",
  );
  assert.equal(
    decide([part("read"), part("network"), part("local_write")], "standard").decision,
    "ask",
  );
  assert.equal(decide([part("read"), part("code_execution")], "standard").decision, "allow");
  assert.equal(decide([part("read"), part("local_write")], "untrusted").decision, "deny");
  assert.equal(decide([], "standard").decision, "allow");
});

Deno.test("decide() names the sub-command that drove the decision in its reason", () => {
  const parts: VerdictPart[] = [
    part("read", "ls"),
    { riskClass: "network", subject: "curl https://e.example", targets: ["e.example"] },
    {
      riskClass: "destructive",
      subject: "rm -rf ~/projects",
      targets: ["/home/ada/projects"],
      detail: "deletes outside the workspace",
    },
  ];
  const verdict = decide(parts, "standard");
  assert.equal(verdict.decision, "ask");
  assert.equal(
    verdict.reason,
    "rm -rf ~/projects: destructive (deletes outside the workspace); 1 more part asks",
  );
  assert.equal(verdict.parts, parts);
  const denied = decide(parts, "untrusted");
  assert.match(
    denied.reason,
    /^rm -rf ~\/projects: destructive .*not allowed at trust level untrusted/,
  );
  assert.equal(
    decide([part("blocked", "cat ~/.odek/x")], "trusted").reason,
    "cat ~/.odek/x: blocked",
  );
  assert.equal(decide([], "standard").reason, "nothing to run");
});

Deno.test("decide() honours trustedClasses only at trusted", () => {
  const parts = [part("network", "curl x")];
  assert.equal(decide(parts, "trusted", { trustedClasses: ["network"] }).decision, "allow");
  assert.equal(decide(parts, "standard", { trustedClasses: ["network"] }).decision, "ask");
  assert.equal(decide(parts, "trusted").decision, "ask");
});

Deno.test("decide() throws a TypeError for a trust level outside the schema", () => {
  assert.throws(() => decide([part("read")], "root" as never), TypeError);
});
