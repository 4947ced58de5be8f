/**
 * The approver for runs without a person: a fixed `--yes` policy.
 *
 * @module
 */
import type { RiskClass } from "../danger/verdict.ts";
import type { ApprovalAnswer, ApprovalRequest, Approver } from "./approver.ts";
import { askingClasses } from "./asking_classes.ts";
import { NEVER_SWEPT } from "./_sweeping_classes.ts";

/**
 * Options for {@linkcode NonInteractiveApprover}.
 *
 * @example Approve network asks only
 * ```ts
 * import type { NonInteractiveApproverOptions } from "./non_interactive_approver.ts";
 * const options: NonInteractiveApproverOptions = { yes: ["network"] };
 * if (options.yes === "all") throw new Error("a list");
 * ```
 */
export interface NonInteractiveApproverOptions {
  /**
   * `"all"` (bare `--yes`): approve every ask except calls with a `destructive`, `privileged` or
   * `unknown` part. A list (`--yes=<class>,…`, see {@linkcode parseYesFlag}): approve exactly
   * the calls whose asking classes are all in the list. Absent: deny every ask.
   * @default undefined
   */
  yes?: "all" | readonly RiskClass[];
}

/**
 * Decides asks by the `--yes` policy of design §3, without asking anyone. Every denial's reason
 * names the classes and the flag that would allow the call, e.g.
 * `… rerun with --yes=network to approve it`. `blocked` is never approved (the classifier denies
 * it before any approver sees it), nor is a call whose verdict says `askEveryTime` (a write to a
 * file the host runs later: only a person approves it).
 *
 * @example Bare --yes approves network but not destructive
 * ```ts
 * import { NonInteractiveApprover } from "./non_interactive_approver.ts";
 * const approver = new NonInteractiveApprover({ yes: "all" });
 * const call = (callId: string, riskClass: "network" | "destructive") => ({
 *   callId, toolName: "shell", args: {},
 *   verdict: { decision: "ask" as const, reason: "x", parts: [{ riskClass, subject: "x", targets: [] }] },
 * });
 * const [a, b] = await approver.decide({ calls: [call("1", "network"), call("2", "destructive")] });
 * if (!a.approved || b.approved) throw new Error("policy");
 * ```
 */
export class NonInteractiveApprover implements Approver {
  readonly #yes: "all" | readonly RiskClass[] | undefined;

  /**
   * An approver with a fixed policy.
   *
   * @param options the `--yes` policy; absent denies every ask
   */
  constructor(options: NonInteractiveApproverOptions = {}) {
    this.#yes = options.yes === "all" ? "all" : options.yes ? [...options.yes] : undefined;
  }

  /**
   * Decide every call by the policy.
   *
   * @param request the asking calls
   * @param signal rejects with its reason if already aborted
   * @returns one answer per call, in order, scope `once`
   */
  decide(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer[]> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return Promise.resolve(request.calls.map((call) => {
      if (call.verdict.askEveryTime !== undefined) {
        return {
          callId: call.callId,
          approved: false,
          scope: "once" as const,
          reason:
            `Denied: ${call.verdict.askEveryTime}, and odek runs non-interactively (no --yes covers it); run odek at a terminal to approve it, or make the change yourself`,
        };
      }
      const classes = askingClasses(call.verdict);
      const missing = this.#missing(classes);
      if (missing.length === 0) {
        const how = this.#yes === "all" ? "--yes" : `--yes=${(this.#yes ?? []).join(",")}`;
        return { callId: call.callId, approved: true, scope: "once", reason: `approved by ${how}` };
      }
      return {
        callId: call.callId,
        approved: false,
        scope: "once",
        reason: this.#why(missing, call.verdict.reason) + addDirHint(call, missing) +
          mcpTrustHint(call, missing),
      };
    }));
  }

  /** The asking classes the policy does not cover. */
  #missing(classes: RiskClass[]): RiskClass[] {
    if (this.#yes === undefined) return classes;
    if (this.#yes === "all") return classes.filter((c) => NEVER_SWEPT.includes(c));
    const allowed = this.#yes;
    return classes.filter((c) => !allowed.includes(c) || c === "blocked");
  }

  #why(missing: RiskClass[], verdictReason: string): string {
    const head = `Denied: the call needs approval for ${missing.join(", ")} (${verdictReason}) ` +
      `and odek runs non-interactively`;
    if (missing.includes("blocked")) return `${head}; blocked calls can never be approved`;
    const sweepable = missing.every((c) => !NEVER_SWEPT.includes(c));
    const list = this.#yes === undefined || this.#yes === "all"
      ? missing
      : [...this.#yes, ...missing];
    const flags = this.#yes === undefined && sweepable
      ? `--yes or --yes=${list.join(",")}`
      : `--yes=${list.join(",")}`;
    return `${head}; the operator can rerun with ${flags} to approve it`;
  }
}

/** A write outside the workspace can also be made possible by granting its directory. */
function addDirHint(call: ApprovalRequest["calls"][number], missing: RiskClass[]): string {
  const outside = call.verdict.parts.some((part) =>
    (part.riskClass === "system_write" || part.riskClass === "destructive") &&
    missing.includes(part.riskClass) && part.targets.length > 0 &&
    /outside the workspace|host's \/tmp|startup file/.test(part.detail ?? "")
  );
  return outside ? ", or grant the directory it writes with --add-dir DIR" : "";
}

/**
 * An MCP tool's call is `unknown` because its server is not trusted: marking the server (or the
 * tool) trusted is the lasting answer, which `--yes=unknown` (every unknown call) is not.
 */
function mcpTrustHint(call: ApprovalRequest["calls"][number], missing: RiskClass[]): string {
  if (!missing.includes("unknown")) return "";
  for (const part of call.verdict.parts) {
    const mcp = /^MCP server (\S+) tool "([^"]*)"/.exec(part.detail ?? "");
    if (part.riskClass !== "unknown" || mcp === null) continue;
    return `; or, to let this server's calls run without asking, mark it trusted in the config: "mcpServers": { "${
      mcp[1]
    }": { "trusted": true } } (or list "${mcp[2]}" in its "trustedTools")`;
  }
  return "";
}
