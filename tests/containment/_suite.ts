/**
 * Runs the attempt table (`_attempts.ts`) through the real broker, once per mode (test helper):
 *
 * - `forced_read`: every call carries a fixed `read` verdict, whatever it does, so it runs with
 *   the read-only scope; the classifier plays no part.
 * - `approved`: the real classifier at trust level `standard` through the run's approval gate
 *   (`gateToolCalls`), with an approver that approves every ask unless a part is `blocked`; each
 *   call runs with the scope its approved parts grant.
 *
 * Each attempt gets a fresh fixture and is checked by `assertContained` against the scope it
 * actually ran with (recomputed with the pure `derivePermissions`).
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Approver } from "../../src/approval/approver.ts";
import { derivePermissions } from "../../src/broker/derive_permissions.ts";
import type { PermissionSet } from "../../src/broker/permission_set.ts";
import { realTargets } from "../../src/broker/_real_targets.ts";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { ToolInvocation, ToolResult } from "../../src/broker/tool_broker.ts";
import type { Classifier } from "../../src/danger/classifier.ts";
import { createClassifier } from "../../src/danger/create_classifier.ts";
import type { Verdict } from "../../src/danger/verdict.ts";
import { gateToolCalls } from "../../src/loop/gate_tool_calls.ts";
import type { RunContext } from "../../src/loop/run_context.ts";
import { ToolSet } from "../../src/loop/tool_set.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { findPidsCgroup } from "../../src/broker/find_pids_cgroup.ts";
import { type Attempt, ATTEMPTS } from "./_attempts.ts";
import { assertContained } from "./_check.ts";
import { type ContainmentFixture, makeContainmentFixture } from "./_fixture.ts";

/** How calls are classified and approved. */
export type SuiteMode = "forced_read" | "approved";

/** Approves every ask whose verdict has no `blocked` part. */
export const APPROVE_ALL_BUT_BLOCKED: Approver = {
  decide: (request) =>
    Promise.resolve(request.calls.map((call) => {
      const blocked = call.verdict.parts.some((p) => p.riskClass === "blocked");
      return {
        callId: call.callId,
        approved: !blocked,
        scope: "once" as const,
        ...(blocked ? { reason: "blocked parts are never approved" } : {}),
      };
    })),
};

const forcedRead = (subject: string): Verdict => ({
  parts: [{ riskClass: "read", subject, targets: [] }],
  decision: "allow",
  reason: "forced to read by the containment suite",
});

const probe = await findPidsCgroup();
const pidsCgroup = probe.type === "cgroup" ? probe.dir : null;

/** Which binaries are on the sandbox's PATH (looked up once). */
const missing = new Map<string, boolean>();
function isMissing(binary: string): boolean {
  if (!missing.has(binary)) {
    const { code } = new Deno.Command("bash", {
      args: ["-c", `command -v ${binary}`],
      env: { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" },
      clearEnv: true,
      stdout: "null",
    }).outputSync();
    missing.set(binary, code !== 0);
  }
  return missing.get(binary)!;
}

/**
 * Register one test that runs every attempt in `mode`, each as a step.
 *
 * @param mode forced `read` verdict, or the real classifier with an approving gate
 */
export function registerSuite(mode: SuiteMode): void {
  sandboxTest(
    `containment (${mode}): ${ATTEMPTS.length} escape attempts stay in their scope`,
    async (t) => {
      const classifier = mode === "approved" ? await createClassifier() : null;
      let ran = 0;
      for (const attempt of ATTEMPTS) {
        const absent = (attempt.needs ?? []).filter(isMissing);
        if (absent.length > 0) {
          console.error(`skipping "${attempt.name}": ${absent.join(", ")} not installed`);
          continue;
        }
        if (attempt.needsProcessLimit && pidsCgroup === null) {
          console.error(`skipping "${attempt.name}": no pids cgroup, so no process limit`);
          continue;
        }
        await t.step(attempt.name, async () => {
          await using f = await makeContainmentFixture();
          await runAttempt(f, attempt, classifier);
        });
        ran++;
      }
      if (ran < 40) throw new Error(`only ${ran} attempts ran: at least 40 must`);
    },
  );
}

async function runAttempt(
  f: ContainmentFixture,
  attempt: Attempt,
  classifier: Classifier | null,
): Promise<void> {
  const call = attempt.call(f);
  const broker = new SandboxBroker({
    context: f.context,
    resolveWorkspace: () => Promise.resolve(f.ws),
    trustLevel: "standard",
    shellTimeoutMs: 30_000,
  });
  const before = await f.snapshot();
  const hitsBefore = f.hits();
  let result: ToolResult;
  let scope: PermissionSet | null = null;
  try {
    const invocation: ToolInvocation = { id: "c1", ...call };
    const gated = classifier === null
      ? { invocation: { ...invocation, verdict: forcedRead(call.name) } }
      : await gate(f, classifier, invocation, broker);
    if ("refusal" in gated) {
      result = gated.refusal;
    } else {
      const real = await realTargets(gated.invocation.verdict!, f.ws, {
        protectedRoots: f.context.protectedRoots,
        home: f.context.home,
      }); // as the broker does
      scope = derivePermissions(gated.invocation, real, "standard", {
        workspace: f.ws,
        protectedRoots: f.context.protectedRoots,
      });
      result = await broker.run(gated.invocation);
    }
    if (Deno.env.get("ODEK_CONTAINMENT_TRACE")) {
      const v = "invocation" in gated ? gated.invocation.verdict : undefined;
      console.error(
        `TRACE ${attempt.name} | ${v ? v.parts.map((p) => p.riskClass).join(",") : "refused"} | w=${
          JSON.stringify(scope?.writePaths ?? [])
        } | ${result.ok ? "ok" : result.error.kind}\n${
          (result.ok ? result.output : result.error.message).slice(0, 600)
        }`,
      );
    }
  } finally {
    await broker.close();
  }
  await new Promise((resolve) => setTimeout(resolve, 20)); // let the listeners see late arrivals
  assertContained(f, attempt.name, {
    result,
    scope,
    before,
    after: await f.snapshot(),
    hitsBefore,
  });
  await attempt.verify?.(f, result);
  if (attempt.forbid && (scope?.writePaths.length ?? 0) === 0) {
    const text = result.ok ? result.output : result.error.message;
    assert.doesNotMatch(text, attempt.forbid, `${attempt.name}: escaped:\n${text}`);
  }
}

async function gate(
  f: ContainmentFixture,
  classifier: Classifier,
  invocation: ToolInvocation,
  broker: SandboxBroker,
) {
  // What a session host's gate knows: the scratch, and the workspace's protected files and
  // repository programs scanned before the call.
  const facts = broker.workspaceFacts(f.ws);
  const scratchDir = await broker.scratchDir();
  const context = {
    workspace: f.ws,
    home: f.home,
    protectedRoots: f.context.protectedRoots,
    trustLevel: "standard" as const,
    ...(scratchDir ? { scratchDir } : {}),
    repository: {
      protectedExtra: facts.protectedExtra,
      programs: facts.repoPrograms,
      repositories: facts.repositories,
    },
  };
  const run = {
    emit() {},
    // No session: nothing to journal before the approver is asked.
    journal: {},
    redact: (text: string) => text,
    signal: new AbortController().signal,
  } as unknown as RunContext;
  const [gated] = await gateToolCalls(run, {
    classify: (call) => classifier.classifyToolCall(call, context),
    approver: APPROVE_ALL_BUT_BLOCKED,
  }, [{ invocation, tool: new ToolSet().get(invocation.name)! }]);
  return gated;
}
