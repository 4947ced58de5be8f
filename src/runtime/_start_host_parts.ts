/**
 * The parts of a session host its first model request does not need — the broker (the sandbox
 * probes, the egress proxy, the scratch, the network namespace's holder), the gate's classifier
 * and the checkpoint store — as stand-ins that start them on first use and wait for them
 * (docs/runtime.md, "What a host starts later").
 *
 * @module
 */
import type { Approver } from "../approval/approver.ts";
import type { AddDir } from "../config/add_dirs.ts";
import type { DenyRule } from "../config/deny_rule.ts";
import type { TrustLevel } from "../config/trust_level.ts";
import type { Classifier } from "../danger/classifier.ts";
import type { SandboxContext } from "../broker/render_sandbox.ts";
import type { ToolGate } from "../loop/gate_tool_calls.ts";
import { buildGate } from "./build_gate.ts";
import { buildBroker, type ResolvedWorkspace, type Settings } from "./compose.ts";
import { workspaceWarnings } from "./_host_warnings.ts";
import { DeferredBroker } from "./_deferred_broker.ts";
import {
  type ClosableCheckpointStore,
  deferredCheckpointStore,
  deferredGate,
  once,
} from "./_host_startup.ts";
import { openCheckpointStore } from "./stored_sessions.ts";

/** What {@linkcode startHostParts} starts from. */
export interface HostPartsInput {
  /** The host's settings (its config has the project layer). */
  host: Settings;
  resolved: ResolvedWorkspace;
  /** The machine's sandbox context (the runtime's: probed once). */
  context: () => Promise<Omit<SandboxContext, "workspace">>;
  /** The runtime's classifier (its Bash parser loaded once). */
  classifier: () => Promise<Classifier>;
  addDirs: { parsed: readonly AddDir[]; granted: readonly AddDir[] };
  trust: TrustLevel;
  denyRules: readonly DenyRule[];
  approver: Approver;
}

/** The stand-ins of a host's parts that start later. */
export interface StartingParts {
  broker: DeferredBroker;
  /** The host's gate at its trust level (`ready()` starts and waits for every part). */
  gate: ToolGate;
  /** Starts the classifier and the broker; resolves when `gate` can classify. */
  classifiable(): Promise<void>;
  /** The gate at another trust level (a sub-agent's), over the same parts. */
  gateFor(trust: TrustLevel): ToolGate;
  /**
   * Starts every part (idempotent); resolves when all are up, with their warnings; rejects with
   * the first failure.
   */
  ready(): Promise<string[]>;
  /** The sandbox context once it is up, else `undefined` (a `delegate_tasks` call reads its deno). */
  contextNow(): Omit<SandboxContext, "workspace"> | undefined;
  /**
   * The checkpoint store of `sessionId` with `settings` (the runtime's: the store's caps are the
   * user's), opened with the other parts; `undefined` when checkpoints are off.
   */
  openStore(settings: Settings, sessionId: string): ClosableCheckpointStore | undefined;
}

/**
 * The stand-ins of the broker, the gate and the checkpoint store of a host; nothing starts until
 * one is used or `ready()` is called (a run's first model request calls it as it leaves).
 *
 * @param input the host's settings, workspace, trust and the runtime's parts
 * @returns stand-ins; nothing here throws, failures reject `ready()` (and each use)
 */
export function startHostParts(input: HostPartsInput): StartingParts {
  const { host, resolved, addDirs, trust, denyRules } = input;
  const { workspace } = resolved;
  const warnings: string[] = [];
  let contextUp: Omit<SandboxContext, "workspace"> | undefined;
  const context = once(() => {
    performance.mark("odek:parts-start");
    return input.context().then((c) => (contextUp = c));
  });
  const classifier = once(() => input.classifier());
  const built = once(async () => {
    classifier(); // loads while the sandbox is probed
    const broker = await buildBroker(host, resolved, {
      context: context(),
      addDirs: addDirs.parsed,
      trustLevel: trust,
      warn: (message) => warnings.push(message),
      denyDomains: denyRules.filter((r) => r.kind === "domain").map((r) => r.pattern),
    });
    try {
      // The scratch and the shared network namespace belong to the host (design §8.1).
      warnings.push(...(await broker.start()));
      warnings.push(
        ...await workspaceWarnings(workspace, broker.workspaceFacts(workspace).truncated),
      );
      const gateParts = {
        addDirs: addDirs.granted,
        denyRules,
        scratchDir: await broker.scratchDir(),
        hostPorts: (await broker.sharesNetwork()) ? host.config.network.allowHostPorts : [],
        facts: broker.workspaceFacts.bind(broker, workspace),
      };
      return { broker, gateParts };
    } catch (error) {
      await broker.close();
      throw error;
    }
  });
  const broker = new DeferredBroker(() => built().then((b) => b.broker));
  // The broker is built through its stand-in, whoever asks first (the gate's read classification
  // of context files does at open): the stand-in then owns it, and a host closed before its
  // first tool call closes it too (egress proxy, scratch, network namespace).
  const parts = once(() => Promise.all([classifier(), broker.ready().then(() => built())]));
  const store = Promise.withResolvers<() => Promise<unknown>>();
  const ready = once(async () => {
    await Promise.all([parts(), broker.ready(), store.promise.then((open) => open())]);
    // One parse now, while the model thinks: WebAssembly compiles the parser's functions on their
    // first call, which would otherwise land on the run's first shell call.
    await gate.built();
    try {
      gate.classify({ name: "shell", args: { command: "echo ready" } });
    } catch {
      // A warm-up only: the call that needs the verdict classifies for itself.
    }
    return warnings;
  });
  const gateFor = (level: TrustLevel) =>
    deferredGate(
      () =>
        parts().then(([classifier, { gateParts }]) =>
          buildGate(host, resolved, {
            ...gateParts,
            classifier,
            approver: input.approver,
            trustLevel: level,
          })
        ),
      () => ready().then(() => {}),
      input.approver,
    );
  const gate = gateFor(trust);
  return {
    broker,
    gate,
    classifiable: gate.built,
    gateFor,
    ready,
    contextNow: () => contextUp,
    openStore(settings, sessionId) {
      if (!settings.config.checkpoints.enabled) {
        store.resolve(() => Promise.resolve());
        return undefined;
      }
      const opened = deferredCheckpointStore(() =>
        openCheckpointStore(settings, workspace, sessionId).then((s) => s!)
      );
      store.resolve(opened.open);
      return opened;
    },
  };
}
