/**
 * The run's plan: steps with statuses and optional acceptance checks, kept by the core (never by
 * a tool child) and rendered into the protected head of every request. Shapes and limits follow
 * odek-go §4.3 (`create`/`update`/`get`, statuses `pending|in_progress|done|blocked`, at most 12
 * steps); acceptance checks are odek's own: a step with a check becomes `done` only when the tool
 * the check names ran and succeeded after the check was declared — never because of text a tool
 * printed.
 *
 * @module
 */

/** Status of one step. */
export type PlanStepStatus = "pending" | "in_progress" | "done" | "blocked";

/** What proves a step done: a successful call of `tool` whose arguments contain `argsInclude`. */
export interface PlanCheck {
  tool: string;
  argsInclude?: string;
  /** Ledger sequence number when the check was declared; only later calls count. */
  declaredAt: number;
  /** The id of the call that satisfied the check, once the step was marked done. */
  satisfiedBy?: string;
}

/** One step. */
export interface PlanStep {
  id: string;
  title: string;
  status: PlanStepStatus;
  note?: string;
  check?: PlanCheck;
}

/** One completed tool call, as the core saw it (structured, not parsed from output). */
export interface LedgerEntry {
  /** Position in the run: strictly increasing. */
  seq: number;
  callId: string;
  name: string;
  /** The call's arguments as the model sent them (JSON text). */
  argsText: string;
  /** The result was `ok` (a shell command exited 0). */
  succeeded: boolean;
}

/** A serialisable plan, as persisted in each `plan` tool result. */
export interface PlanSnapshot {
  version: number;
  steps: PlanStep[];
}

/** Largest number of steps in a plan (odek-go §4.3 `max_steps`). */
export const MAX_PLAN_STEPS = 12;
/** Largest rendered plan, in characters (odek-go §4.3 `max_render_chars`). */
export const MAX_PLAN_RENDER_CHARS = 2000;

/** A refused plan change: the message says why, for the model. */
export class PlanRefusal extends Error {}

/**
 * Plan state plus the ledger of completed calls it checks evidence against.
 *
 * @example A check is met only by a later successful call of the named tool
 * ```ts
 * import { PlanState } from "./plan_state.ts";
 * const plan = new PlanState();
 * plan.create([{ id: "t", title: "tests pass", check: { tool: "shell", argsInclude: "deno test" } }]);
 * let refused = false;
 * try { plan.update([{ id: "t", status: "done" }]); } catch { refused = true; }
 * if (!refused) throw new Error("done without evidence");
 * plan.observe({ callId: "c1", name: "shell", argsText: '{"command":"deno test"}', succeeded: true });
 * plan.update([{ id: "t", status: "done" }]);
 * if (plan.snapshot().steps[0].check?.satisfiedBy !== "c1") throw new Error("no evidence kept");
 * ```
 */
export class PlanState {
  #version = 0;
  #steps: PlanStep[] = [];
  #ledger: LedgerEntry[] = [];
  #seq = 0;

  /** Restore from a snapshot (a resumed session). The ledger starts empty: evidence is per run. */
  static restore(snapshot: PlanSnapshot): PlanState {
    const plan = new PlanState();
    plan.#version = snapshot.version;
    plan.#steps = structuredClone(snapshot.steps).map((step) =>
      step.check && step.status !== "done"
        ? { ...step, check: { ...step.check, declaredAt: 0 } }
        : step
    );
    return plan;
  }

  /** The plan version: 0 before the first `create`, then +1 per change. */
  get version(): number {
    return this.#version;
  }

  /** Record a completed tool call. Calls of `plan` itself never count as evidence. */
  observe(entry: Omit<LedgerEntry, "seq">): void {
    if (entry.name === "plan") return;
    this.#ledger.push({ ...entry, seq: ++this.#seq });
    if (this.#ledger.length > 10_000) this.#ledger.splice(0, this.#ledger.length - 10_000);
  }

  /**
   * Replace the plan. Every step starts `pending`; checks are declared now.
   * @throws {PlanRefusal} for duplicate ids or more than {@linkcode MAX_PLAN_STEPS} steps
   */
  create(
    steps: readonly { id: string; title: string; check?: { tool: string; argsInclude?: string } }[],
  ): void {
    if (steps.length < 1 || steps.length > MAX_PLAN_STEPS) {
      throw new PlanRefusal(`A plan has 1 to ${MAX_PLAN_STEPS} steps; got ${steps.length}.`);
    }
    const ids = new Set<string>();
    for (const step of steps) {
      if (ids.has(step.id)) throw new PlanRefusal(`Step id "${step.id}" is used twice.`);
      ids.add(step.id);
    }
    this.#steps = steps.map((step) => ({
      id: step.id,
      title: flatten(step.title),
      status: "pending",
      ...(step.check
        ? {
          check: {
            tool: step.check.tool,
            ...(step.check.argsInclude ? { argsInclude: step.check.argsInclude } : {}),
            declaredAt: this.#seq,
          },
        }
        : {}),
    }));
    this.#version++;
  }

  /**
   * Apply status and note changes atomically: one invalid entry refuses them all.
   * @throws {PlanRefusal} naming the unknown step, or the check a `done` step has not met
   */
  update(updates: readonly { id: string; status?: PlanStepStatus; note?: string }[]): void {
    if (this.#steps.length === 0) {
      throw new PlanRefusal('There is no plan yet: call plan with action "create" first.');
    }
    const next = structuredClone(this.#steps);
    for (const change of updates) {
      const step = next.find((s) => s.id === change.id);
      if (!step) {
        throw new PlanRefusal(
          `No step "${change.id}" (steps: ${
            next.map((s) => s.id).join(", ")
          }). Nothing was changed.`,
        );
      }
      if (change.note !== undefined) step.note = flatten(change.note);
      if (change.status === undefined || change.status === step.status) continue;
      if (change.status === "done" && step.check) {
        const evidence = this.#evidence(step.check);
        if (!evidence) {
          throw new PlanRefusal(
            `Step "${step.id}" cannot be done yet: its check needs a successful ${step.check.tool} call` +
              (step.check.argsInclude
                ? ` whose arguments contain ${JSON.stringify(step.check.argsInclude)}`
                : "") +
              " that completed after the check was declared and before this update ran. Run it, then update the step in a later turn. Nothing was changed.",
          );
        }
        step.check.satisfiedBy = evidence.callId;
      }
      step.status = change.status;
    }
    this.#steps = next;
    this.#version++;
  }

  /** A deep copy of the plan, for persistence. */
  snapshot(): PlanSnapshot {
    return { version: this.#version, steps: structuredClone(this.#steps) };
  }

  /**
   * The plan as the model sees it in the protected head, at most {@linkcode MAX_PLAN_RENDER_CHARS}.
   * @returns `undefined` before the first `create`
   */
  render(): string | undefined {
    if (this.#steps.length === 0) return undefined;
    const total = this.#steps.length;
    const done = this.#steps.filter((s) => s.status === "done").length;
    const blocked = this.#steps.filter((s) => s.status === "blocked").length;
    if (done === total) {
      return `[Current plan: v${this.#version} - ${
        total === 1 ? "its one step is" : `all ${total} steps are`
      } complete.]`;
    }
    const head = `[Current plan: v${this.#version} - ${done}/${total} done${
      blocked ? `, ${blocked} blocked` : ""
    }. Structured state, not instructions.]`;
    const lines = this.#steps.map((s) => {
      const check = s.check
        ? s.check.satisfiedBy
          ? ` (check met by ${s.check.satisfiedBy})`
          : ` (check: a successful ${s.check.tool} call${
            s.check.argsInclude ? ` containing ${JSON.stringify(s.check.argsInclude)}` : ""
          })`
        : "";
      return `${s.id} [${s.status}] ${s.title}${check}${s.note ? ` - ${s.note}` : ""}`;
    });
    let text = [head, ...lines].join("\n");
    // Over the cap: drop done steps first, then cut.
    const doneLines = lines.filter((_, i) => this.#steps[i].status === "done");
    if (text.length > MAX_PLAN_RENDER_CHARS && doneLines.length > 0) {
      const open = lines.filter((_, i) => this.#steps[i].status !== "done");
      text = [head, `[+${doneLines.length} done steps omitted]`, ...open].join("\n");
    }
    if (text.length > MAX_PLAN_RENDER_CHARS) {
      const marker = "\n[plan truncated: exceeded max_render_chars]";
      text = text.slice(0, MAX_PLAN_RENDER_CHARS - marker.length) + marker;
    }
    return text;
  }

  #evidence(check: PlanCheck): LedgerEntry | undefined {
    return this.#ledger.findLast((entry) =>
      entry.seq > check.declaredAt && entry.succeeded && entry.name === check.tool &&
      (check.argsInclude === undefined || argumentsContain(entry.argsText, check.argsInclude))
    );
  }
}

/** `needle` occurs in the raw arguments or in one of their string values (JSON-unescaped). */
function argumentsContain(argsText: string, needle: string): boolean {
  if (argsText.includes(needle)) return true;
  const strings: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") strings.push(value);
    else if (value && typeof value === "object") Object.values(value).forEach(walk);
  };
  try {
    walk(JSON.parse(argsText));
  } catch {
    return false;
  }
  return strings.some((s) => s.includes(needle));
}

/** One line: newlines flattened, em dashes made hyphens (odek-go §4.3). */
function flatten(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ").replace(/\u2014/g, "-").trim();
}
