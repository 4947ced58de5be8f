/**
 * Tools besides the built-in ones, as a surface hands them to the runtime: a ready
 * {@linkcode ToolProvider} (the same for every host), or a factory the runtime calls once per
 * session host (an MCP server process per host, `delegate_tasks` bound to the host's broker).
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import type { ToolBroker } from "../broker/tool_broker.ts";
import type { Clarifier } from "../approval/clarifier.ts";
import type { AddDir } from "../config/add_dirs.ts";
import type { ApprovedProjectMcpServer } from "../config/approve_project_mcp_servers.ts";
import type { TrustLevel } from "../config/trust_level.ts";
import type { ToolProvider } from "../loop/tool_provider.ts";

/**
 * What a provider factory is told of the session host it builds tools for.
 *
 * @example What a factory learns of its host
 * ```ts
 * import type { ToolProviderHost } from "./tool_provider_source.ts";
 * function describe(host: ToolProviderHost): string {
 *   return `${host.sessionId} in ${host.workspace} (${host.trust}, ${host.addDirs.length} added)`;
 * }
 * import { FakeBroker } from "../testing/fake_broker.ts";
 * const host: ToolProviderHost = {
 *   sessionId: "s1", workspace: "/srv/ws", addDirs: [], trust: "standard",
 *   broker: new FakeBroker(() => ({ ok: true, output: "" })), signal: new AbortController().signal,
 * };
 * if (describe(host) !== "s1 in /srv/ws (standard, 0 added)") throw new Error(describe(host));
 * ```
 */
export interface ToolProviderHost {
  /** The session's id. */
  readonly sessionId: string;
  /** The host's workspace (real path). */
  readonly workspace: string;
  /** The directories granted besides the workspace (validated real paths). */
  readonly addDirs: readonly AddDir[];
  /** The trust level of the host's runs. */
  readonly trust: TrustLevel;
  /** The host's broker: the only spawner of processes (design §8.7). */
  readonly broker: ToolBroker;
  /** Aborted when the host closes (after its last run ended). */
  readonly signal: AbortSignal;
  /**
   * The workspace's project MCP servers (`odek.jsonc`) the operator approved when the host
   * opened: the only form in which a project server may reach the MCP client. @default none
   */
  readonly projectMcpServers?: readonly ApprovedProjectMcpServer[];
  /**
   * The host's clarifier: a provider's tool may put a question or a form to the operator
   * (`ask`, `elicit`). @default nobody answers
   */
  readonly clarifier?: Clarifier;
}

/**
 * Builds a host's provider. The provider it returns may implement `Symbol.asyncDispose`: the host
 * disposes it when it closes (after its run ended, before its broker stops), or when the host
 * fails to open. A provider passed as it is (not through a factory) is never disposed by a host.
 *
 * @example A provider made for each host
 * ```ts
 * import { z } from "zod";
 * import type { ToolProviderFactory } from "./tool_provider_source.ts";
 * const perHost: ToolProviderFactory = (host) => ({
 *   name: "session info",
 *   list: () => [{ name: "session_id", description: "This session's id.", args: z.strictObject({}), classWithoutGate: "read" }],
 *   classify: () => ({ kind: "fixed", class: "read", detail: "reads the session id" }),
 *   run: () => Promise.resolve({ ok: true, output: host.sessionId }),
 * });
 * if (typeof perHost !== "function") throw new Error("a factory");
 * ```
 */
export type ToolProviderFactory = (
  host: ToolProviderHost,
) => ToolProvider | Promise<ToolProvider>;

/**
 * A provider for every host, or a factory called once per host.
 *
 * @example Mix a shared provider and a factory
 * ```ts
 * import { z } from "zod";
 * import type { ToolProviderSource } from "./tool_provider_source.ts";
 * const clock: ToolProviderSource = {
 *   name: "clock",
 *   list: () => [{ name: "now", description: "The time.", args: z.strictObject({}), classWithoutGate: "read" }],
 *   classify: () => ({ kind: "fixed", class: "read", detail: "reads the clock" }),
 *   run: () => Promise.resolve({ ok: true, output: new Date(0).toISOString() }),
 * };
 * const sources: ToolProviderSource[] = [clock, () => clock];
 * if (sources.length !== 2) throw new Error("sources");
 * ```
 */
export type ToolProviderSource = ToolProvider | ToolProviderFactory;

/**
 * Check a list of provider sources at the edge.
 *
 * @param name the option's name in messages
 * @param value what the caller passed
 * @throws {TypeError} naming the option and the index of a source that is neither a provider
 *   (`name`, `list`, `classify`, `run`) nor a function
 */
export function checkToolProviderSources(name: string, value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array, got ${typeof value}`);
  for (const [index, source] of value.entries()) {
    if (typeof source === "function") continue;
    const provider = source as Partial<ToolProvider> | null;
    const ok = typeof provider === "object" && provider !== null &&
      typeof provider.name === "string" &&
      ["list", "classify", "run"].every((m) =>
        typeof (provider as Record<string, unknown>)[m] === "function"
      );
    if (!ok) {
      throw new TypeError(
        `${name}[${index}] must be a tool provider (name, list(), classify(), run()) or a function of the host returning one`,
      );
    }
  }
}

/**
 * Turn sources into the host's providers: a provider as it is, a factory called with the host.
 * When a factory throws, the providers already made are disposed before the error goes on.
 *
 * @param sources the runtime's sources, then the host's
 * @param host what each factory is told
 * @returns the providers, in order, and a function disposing those the factories made that are
 *   disposable (in reverse order; every one is tried); a provider passed as it is stays its
 *   owner's to dispose
 * @throws {OdekError} `CONFIG_INVALID` when a factory returns no provider; what a factory throws
 *
 * @example A factory per host and a shared provider
 * ```ts
 * import { z } from "zod";
 * import { resolveToolProviders } from "./tool_provider_source.ts";
 * import type { ToolProvider } from "../loop/tool_provider.ts";
 * import { FakeBroker } from "../testing/fake_broker.ts";
 * const shared: ToolProvider = {
 *   name: "clock",
 *   list: () => [{ name: "now", description: "The time.", args: z.strictObject({}) }],
 *   classify: () => ({ kind: "fixed", class: "read", detail: "reads the clock" }),
 *   run: () => Promise.resolve({ ok: true, output: "0" }),
 * };
 * let disposed = 0;
 * const perHost = () => ({ ...shared, name: "per-host", [Symbol.asyncDispose]: async () => void disposed++ });
 * const host = {
 *   sessionId: "s", workspace: "/w", addDirs: [], trust: "standard" as const,
 *   broker: new FakeBroker(() => ({ ok: true, output: "" })),
 *   signal: new AbortController().signal,
 * };
 * const { providers, dispose } = await resolveToolProviders([shared, perHost], host);
 * if (providers.length !== 2) throw new Error("two providers");
 * await dispose();
 * if (disposed !== 1) throw new Error("the per-host provider is disposed");
 * ```
 */
export async function resolveToolProviders(
  sources: readonly ToolProviderSource[],
  host: ToolProviderHost,
): Promise<{ providers: ToolProvider[]; dispose: () => Promise<void> }> {
  const providers: ToolProvider[] = [];
  // Only what a factory made belongs to the host; a provider passed as it is stays its owner's.
  const made: ToolProvider[] = [];
  const dispose = async () => {
    const errors: unknown[] = [];
    for (const provider of [...made].reverse()) {
      const disposer = (provider as Partial<AsyncDisposable>)[Symbol.asyncDispose];
      if (typeof disposer !== "function") continue;
      try {
        await disposer.call(provider);
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, "Closing the tool providers failed");
  };
  try {
    for (const source of sources) {
      if (typeof source !== "function") {
        providers.push(source);
        continue;
      }
      const provider = await source(host);
      if (!provider || typeof provider.list !== "function" || typeof provider.run !== "function") {
        throw new OdekError(
          "CONFIG_INVALID",
          `A tool provider factory returned ${
            provider === null ? "null" : typeof provider
          } instead of a provider: return an object with name, list(), classify() and run().`,
        );
      }
      providers.push(provider);
      made.push(provider);
    }
  } catch (error) {
    await dispose().catch(() => {});
    throw error;
  }
  return { providers, dispose };
}
