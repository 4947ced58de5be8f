import assert from "node:assert/strict";
import { derivePermissions } from "../../src/broker/derive_permissions.ts";
import type { PermissionSet } from "../../src/broker/permission_set.ts";
import type { ToolInvocation } from "../../src/broker/tool_broker.ts";
import {
  type RiskClass,
  RiskClassSchema,
  type TrustLevel,
  type Verdict,
} from "../../src/danger/verdict.ts";

const WS = "/srv/ws";
const CONTEXT = { workspace: WS, protectedRoots: ["/home/u/.odek", "/opt/odek"] };
const TOOLS: ToolInvocation[] = [
  { id: "c1", name: "read_file", args: { path: "a.txt" } },
  { id: "c2", name: "write_file", args: { path: "a.txt", content: "x" } },
  { id: "c3", name: "glob", args: { pattern: "*" } },
  { id: "c4", name: "shell", args: { command: "echo hi > /etc/motd" } },
];
const CLASSES: readonly RiskClass[] = RiskClassSchema.options;
const TRUST_LEVELS: TrustLevel[] = ["untrusted", "standard", "trusted"];
const TARGETS = ["/etc/motd", "notes/x.txt"];

/** Design §3, written out by hand: what one approved part of each class adds. */
const TABLE: Record<RiskClass, { writePaths: string[]; proxy: boolean }> = {
  read: { writePaths: [], proxy: false },
  local_write: { writePaths: [WS], proxy: false },
  code_execution: { writePaths: [WS], proxy: false },
  network: { writePaths: [], proxy: true },
  system_write: { writePaths: ["/etc/motd", "/srv/ws/notes/x.txt"], proxy: false },
  destructive: { writePaths: ["/etc/motd", "/srv/ws/notes/x.txt"], proxy: false },
  privileged: { writePaths: [], proxy: false },
  unknown: { writePaths: [], proxy: false },
  blocked: { writePaths: [], proxy: false },
};

function verdictOf(...classes: RiskClass[]): Verdict {
  return {
    parts: classes.map((riskClass) => ({ riskClass, subject: riskClass, targets: TARGETS })),
    decision: "allow",
    reason: "test",
  };
}

function expectedSet(writePaths: string[], proxy: boolean): PermissionSet {
  return {
    readPaths: [WS],
    writePaths,
    network: proxy ? { type: "proxy", allowDomains: [] } : { type: "none" },
    runBinaries: [],
    envNames: [],
  };
}

Deno.test("derivePermissions() follows the class → scope table for every tool, class and trust level", async (t) => {
  for (const tool of TOOLS) {
    for (const riskClass of CLASSES) {
      for (const trust of TRUST_LEVELS) {
        await t.step(`${tool.name} × ${riskClass} × ${trust}`, () => {
          const row = trust === "untrusted" ? TABLE.read : TABLE[riskClass];
          const set = derivePermissions(tool, verdictOf(riskClass), trust, CONTEXT);
          assert.deepEqual(set, expectedSet(row.writePaths, row.proxy));
        });
      }
    }
  }
});

Deno.test("derivePermissions() grants the union of every part's scope", () => {
  const set = derivePermissions(
    TOOLS[3],
    verdictOf("network", "local_write", "system_write", "read"),
    "standard",
    CONTEXT,
  );
  assert.deepEqual(
    set,
    expectedSet(["/etc/motd", WS, "/srv/ws/notes/x.txt"], true),
  );
});

Deno.test("derivePermissions() never makes a protected root, or a path inside or around one, writable", async (t) => {
  const targets = [
    "/opt/odek",
    "/opt/odek/data",
    "/opt",
    "/",
    "/home/u",
    "/home/u/.odek/config.jsonc",
    "/opt/odek/../odek/x",
  ];
  for (const target of targets) {
    await t.step(target, () => {
      const verdict: Verdict = {
        parts: [{ riskClass: "destructive", subject: "rm", targets: [target] }],
        decision: "allow",
        reason: "",
      };
      assert.deepEqual(derivePermissions(TOOLS[3], verdict, "trusted", CONTEXT).writePaths, []);
    });
  }
  await t.step("a sibling with a shared prefix stays grantable", () => {
    const verdict: Verdict = {
      parts: [{ riskClass: "system_write", subject: "x", targets: ["/opt/odek-other"] }],
      decision: "allow",
      reason: "",
    };
    const set = derivePermissions(TOOLS[3], verdict, "trusted", CONTEXT);
    assert.deepEqual(set.writePaths, ["/opt/odek-other"]);
  });
});

Deno.test("derivePermissions() gives a blocked or denied call only the read scope, whatever its other parts", () => {
  const blocked = derivePermissions(
    TOOLS[1],
    verdictOf("local_write", "blocked"),
    "trusted",
    CONTEXT,
  );
  assert.deepEqual(blocked, expectedSet([], false));
  const denied = { ...verdictOf("network", "system_write"), decision: "deny" as const };
  assert.deepEqual(derivePermissions(TOOLS[3], denied, "trusted", CONTEXT), expectedSet([], false));
});

Deno.test("derivePermissions() resolves relative targets against the workspace", () => {
  const verdict: Verdict = {
    parts: [{ riskClass: "system_write", subject: "x", targets: ["../ws/./a/../b.txt"] }],
    decision: "allow",
    reason: "",
  };
  assert.deepEqual(derivePermissions(TOOLS[3], verdict, "standard", CONTEXT).writePaths, [
    "/srv/ws/b.txt",
  ]);
});

Deno.test("derivePermissions() makes added directories readable always, and a writable one writable exactly when the workspace is", async (t) => {
  const context = {
    ...CONTEXT,
    addDirs: [{ path: "/srv/cache", readOnly: false }, { path: "/srv/ref", readOnly: true }],
  };
  for (const riskClass of CLASSES) {
    for (const trust of TRUST_LEVELS) {
      await t.step(`${riskClass} × ${trust}`, () => {
        const set = derivePermissions(TOOLS[3], verdictOf(riskClass), trust, context);
        assert.deepEqual(set.readPaths, ["/srv/cache", "/srv/ref", WS]);
        const workspaceWritable = set.writePaths.includes(WS);
        assert.equal(set.writePaths.includes("/srv/cache"), workspaceWritable);
        assert.equal(set.writePaths.includes("/srv/ref"), false, "a :ro directory became writable");
      });
    }
  }
});
