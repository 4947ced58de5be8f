import assert from "node:assert/strict";
import { ApprovalMemory } from "../../src/approval/approval_memory.ts";
import type { RiskClass } from "../../src/danger/verdict.ts";

Deno.test("ApprovalMemory.canGrant() refuses destructive, privileged, unknown and blocked", async (t) => {
  const rows: [RiskClass[], boolean][] = [
    [["network"], true],
    [["system_write"], true],
    [["network", "system_write"], true],
    [["read"], true],
    [["destructive"], false],
    [["privileged"], false],
    [["unknown"], false],
    [["blocked"], false],
    [["network", "destructive"], false],
    [[], false],
  ];
  const memory = new ApprovalMemory();
  for (const [classes, expected] of rows) {
    await t.step(classes.join("+") || "(none)", () => {
      assert.equal(memory.canGrant(classes), expected);
      if (expected) {
        memory.grant(classes);
        assert.ok(memory.isGranted(classes));
      } else {
        assert.throws(() => memory.grant(classes), RangeError);
        assert.ok(!memory.isGranted(classes));
      }
    });
  }
});

Deno.test("ApprovalMemory.isGranted() needs every class granted", () => {
  const memory = new ApprovalMemory();
  assert.ok(!memory.isGranted(["network"]));
  memory.grant(["network"]);
  assert.ok(memory.isGranted(["network"]));
  assert.ok(!memory.isGranted(["network", "system_write"]));
  assert.ok(!memory.isGranted([]));
  memory.grant(["system_write"]);
  assert.ok(memory.isGranted(["network", "system_write"]));
});

Deno.test("ApprovalMemory.needsFriction() follows the 3-in-60-s rule", async (t) => {
  // [approval times in ms (class network unless noted), check time, classes checked, expected]
  const rows: [string, [number, RiskClass[]][], number, RiskClass[], boolean][] = [
    ["no approvals", [], 0, ["network"], false],
    ["two approvals", [[0, ["network"]], [1, ["network"]]], 2, ["network"], false],
    [
      "three approvals",
      [[0, ["network"]], [1, ["network"]], [2, ["network"]]],
      3,
      ["network"],
      true,
    ],
    ["three, first just inside", [[0, ["network"]], [10, ["network"]], [20, ["network"]]], 59_999, [
      "network",
    ], true],
    ["three, first expired", [[0, ["network"]], [10, ["network"]], [20, ["network"]]], 60_000, [
      "network",
    ], false],
    [
      "other class",
      [[0, ["network"]], [1, ["network"]], [2, ["network"]]],
      3,
      ["system_write"],
      false,
    ],
    ["any class of the call", [[0, ["network"]], [1, ["network"]], [2, ["network"]]], 3, [
      "system_write",
      "network",
    ], true],
    [
      "multi-class approvals count per class",
      [[0, ["network", "system_write"]], [1, [
        "system_write",
      ]], [2, ["network", "system_write"]]],
      3,
      ["system_write"],
      true,
    ],
    ["duplicates in one call count once", [[0, ["network", "network", "network"]]], 1, [
      "network",
    ], false],
    [
      "window slides",
      [[0, ["network"]], [30_000, ["network"]], [61_000, ["network"]], [
        62_000,
        ["network"],
      ]],
      62_001,
      ["network"],
      true,
    ],
  ];
  for (const [name, approvals, at, classes, expected] of rows) {
    await t.step(name, () => {
      let now = 0;
      const memory = new ApprovalMemory({ now: () => now });
      for (const [time, approved] of approvals) {
        now = time;
        memory.recordApproval(approved);
      }
      now = at;
      assert.equal(memory.needsFriction(classes), expected);
    });
  }
});

Deno.test("ApprovalMemory honours custom friction thresholds", () => {
  let now = 0;
  const memory = new ApprovalMemory({ now: () => now, frictionAfter: 1, frictionWindowMs: 10 });
  memory.recordApproval(["network"]);
  assert.ok(memory.needsFriction(["network"]));
  now = 10;
  assert.ok(!memory.needsFriction(["network"]));
});

Deno.test("ApprovalMemory rejects nonsensical thresholds", () => {
  assert.throws(() => new ApprovalMemory({ frictionAfter: 0 }), RangeError);
  assert.throws(() => new ApprovalMemory({ frictionAfter: 1.5 }), RangeError);
  assert.throws(() => new ApprovalMemory({ frictionWindowMs: -1 }), RangeError);
  assert.throws(() => new ApprovalMemory({ frictionWindowMs: NaN }), RangeError);
});
