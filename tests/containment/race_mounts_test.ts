/**
 * Issue 12's broker-level reproduction: while a flipper exchanges a directory the broker mounts
 * with a relative symlink to the home, a real `SandboxBroker` (bwrap) runs a command that reads
 * the home's canary key and plants a marker, 200 times. The canary must never appear and no
 * marker may land in the home. The same with an added directory (writable, and read-only) that
 * contains the workspace, with a `:ro` added directory nested two levels inside the workspace
 * (which must never become writable), and with a granted target outside the workspace.
 *
 * Each scenario runs with two rhythms: the issue's (exchanged every 5 ms) and a pulse (swapped
 * for 1 ms every 5 ms, so the names are mostly in place and most calls get past validation to
 * the mounts, as an attacker timing its swaps to the sandbox's start would). Each run is bounded
 * in time, and starts with a control call that must run where it should; a last test shows the
 * leak check does see the canary when the home really is mounted.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import type { AddDir } from "../../src/config/add_dirs.ts";
import type { Verdict } from "../../src/danger/verdict.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";
import { makeRaceScratch, type RaceScratch, runRace } from "./_race.ts";
import { READ_KEY_AND_MARK, readKeyThrough, WRITE_INTO_READ_ONLY } from "./_race_payloads.ts";

const ITERATIONS = 200;
const BUDGET_MS = 120_000;

const CONTAINED: Verdict = {
  parts: [{ riskClass: "code_execution", subject: "race", targets: [] }],
  decision: "allow",
  reason: "contained",
};

const text = (result: ToolResult) => result.ok ? result.output : result.error.message;

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** The canary never shows, and no marker lands in the home. */
function noLeak(scratch: RaceScratch) {
  return async (result: ToolResult) => {
    assert.ok(!text(result).includes(scratch.canary), `the canary leaked:\n${text(result)}`);
    assert.ok(!(await exists(join(scratch.home, "PWNED"))), "a marker landed in the home");
    assert.ok(!(await exists(join(scratch.home, ".ssh", "PWNED"))), "a marker landed in ~/.ssh");
  };
}

/** One scenario: its layout, what the broker is given, and what "leaked" and "ran" mean. */
interface Scenario {
  name: string;
  setup(scratch: RaceScratch): Promise<{
    workspace: string;
    addDirs?: AddDir[];
    command: string;
    verdict: Verdict;
    flip: { dir: string; a: string; b: string };
    assertNoLeak(result: ToolResult): Promise<void>;
    ran(result: ToolResult): boolean;
  }>;
}

/** `ws/sub` (the workspace) and `ws/alt` → `../home`, exchanged by the flipper. */
function workspaceScenario(name: string, addDir?: { readOnly: boolean }): Scenario {
  return {
    name,
    async setup(scratch) {
      const ws = join(scratch.root, "ws");
      await Deno.mkdir(join(ws, "sub"), { recursive: true });
      await Deno.symlink("../home", join(ws, "alt"));
      return {
        workspace: join(ws, "sub"),
        ...(addDir ? { addDirs: [{ path: ws, readOnly: addDir.readOnly }] } : {}),
        command: READ_KEY_AND_MARK,
        verdict: CONTAINED,
        flip: { dir: ws, a: "sub", b: "alt" },
        assertNoLeak: noLeak(scratch),
        ran: (result) => text(result).includes("cat: .ssh/id_rsa: No such file"),
      };
    },
  };
}

const SCENARIOS: Scenario[] = [
  workspaceScenario("the workspace exchanged with a link to the home"),
  workspaceScenario("a writable added directory containing the workspace", { readOnly: false }),
  workspaceScenario("a read-only added directory containing the workspace", { readOnly: true }),
  {
    name: "a :ro added directory two levels inside the workspace",
    async setup(scratch) {
      // `a` is exchanged with a dangling link, so bwrap's read-only mount of a/b may land
      // elsewhere and leave a/b under the writable workspace: a marker can only land in a/b.
      const ws = join(scratch.root, "ws");
      await Deno.mkdir(join(ws, "a", "b"), { recursive: true });
      await Deno.symlink("../nowhere/a", join(ws, "alt"));
      return {
        workspace: ws,
        addDirs: [{ path: join(ws, "a", "b"), readOnly: true }],
        command: WRITE_INTO_READ_ONLY,
        verdict: CONTAINED,
        flip: { dir: ws, a: "a", b: "alt" },
        assertNoLeak: async (result) => {
          const written = (await exists(join(ws, "a", "b", "PWNED"))) ||
            (await exists(join(ws, "alt", "b", "PWNED")));
          assert.ok(!written, `the read-only directory was written:\n${text(result)}`);
        },
        ran: (result) => text(result).includes("Read-only file system"),
      };
    },
  },
  {
    name: "a granted target outside the workspace exchanged with a link to the home",
    async setup(scratch) {
      const ws = join(scratch.root, "ws");
      const out = join(scratch.root, "out");
      await Deno.mkdir(ws);
      await Deno.mkdir(join(out, "t"), { recursive: true });
      await Deno.symlink("../home", join(out, "alt"));
      const target = join(out, "t");
      return {
        workspace: ws,
        command: readKeyThrough(target),
        verdict: {
          parts: [
            { riskClass: "code_execution", subject: "race", targets: [] },
            { riskClass: "system_write", subject: "touch", targets: [target] },
          ],
          decision: "ask",
          reason: "approved by the test",
        },
        flip: { dir: out, a: "t", b: "alt" },
        assertNoLeak: noLeak(scratch),
        ran: (result) => text(result).includes(`cat: ${target}/.ssh/id_rsa: No such file`),
      };
    },
  },
];

for (const scenario of SCENARIOS) {
  for (const pulseMs of [0, 1]) {
    const rhythm = pulseMs === 0 ? "exchanged every 5 ms" : "swapped 1 ms in every 5";
    sandboxTest(`race: ${scenario.name} (${rhythm}) never leaks`, async () => {
      await using scratch = await makeRaceScratch();
      const setup = await scenario.setup(scratch);
      const report = await runRace({ scratch, ...setup, flip: { ...setup.flip, pulseMs } }, {
        iterations: ITERATIONS,
        budgetMs: BUDGET_MS,
        minFlips: ITERATIONS / 10 + 1,
      });
      console.error(
        `race (${scenario.name}, ${rhythm}): ${report.iterations} calls in ${report.ms} ms, ${report.flips} exchanges, ${report.ran} ran, ${report.refused} refused, ${report.events} refusal events`,
      );
      assert.ok(report.iterations >= ITERATIONS, `only ${report.iterations} calls`);
      assert.ok(report.flips > ITERATIONS / 10, `the flipper barely ran (${report.flips})`);
    });
  }
}

sandboxTest(
  "race: the leak check does see the canary when the home is what gets mounted",
  async () => {
    await using scratch = await makeRaceScratch();
    await using f = await makeSandboxFixture();
    // A home that exists, as a real one does: bwrap hides it with a tmpfs at its path, and the
    // host's /tmp (where the scratch is) is read-only in the sandbox, so a missing one cannot be made.
    await Deno.mkdir(join(scratch.root, "elsewhere"));
    const broker = new SandboxBroker({
      context: { ...f.context, home: join(scratch.root, "elsewhere"), readOnlyHomeFiles: [] },
      resolveWorkspace: () => Promise.resolve(scratch.home),
      trustLevel: "standard",
    });
    try {
      const result = await broker.run({
        id: "c",
        name: "shell",
        args: { command: READ_KEY_AND_MARK },
        verdict: CONTAINED,
      });
      await assert.rejects(() => noLeak(scratch)(result), /canary leaked/);
    } finally {
      await broker.close();
    }
  },
);
