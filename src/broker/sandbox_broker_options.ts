/**
 * The options of {@linkcode SandboxBroker} (`sandbox_broker.ts`).
 *
 * @module
 */
import type { AddDir } from "../config/add_dirs.ts";
import type { TrustLevel } from "../danger/verdict.ts";
import type { EgressProxy } from "./egress_proxy.ts";
import type { SandboxContext } from "./render_sandbox.ts";

/** Options for `SandboxBroker`. */
export interface SandboxBrokerOptions {
  /** Paths and mode of this odek (see `sandboxContextFromEnvironment`). */
  context: Omit<SandboxContext, "workspace">;
  /**
   * Validates the workspace and returns its realpath. Called before every call (never cached);
   * an `OdekError` with code `WORKSPACE_INVALID` becomes a `denied` result.
   */
  resolveWorkspace: () => Promise<string>;
  /**
   * Validates the directories the operator granted (`--add-dir`) and returns them realpathed.
   * Called before every call, like `resolveWorkspace`; `WORKSPACE_INVALID` becomes `denied`.
   * @default none granted
   */
  resolveAddDirs?: () => Promise<AddDir[]>;
  /** The run's trust level: `untrusted` runs may only read. */
  trustLevel: TrustLevel;
  /** Shell timeout when the call names none, in milliseconds. @default 1_800_000 */
  shellTimeoutMs?: number;
  /** A file-tool call not answered within this many milliseconds is cancelled. @default 120_000 */
  fileCallTimeoutMs?: number;
  /** A compute call not answered within this many milliseconds is cancelled. @default 30_000 */
  computeCallTimeoutMs?: number;
  /**
   * The egress proxy that calls granted network go through (the broker closes it in `close()`).
   * Without it, a granted network part stays offline: the sandbox keeps only `lo`.
   */
  egress?: EgressProxy;
  /**
   * Where the session host's private scratch (every program's `TMPDIR`) is created.
   * @default "/tmp"
   */
  tmpDir?: string;
  /**
   * Whether the programs of this broker (shell commands, background jobs) share one network
   * namespace, so a server one started answers a later one. @default true
   */
  sharedNetwork?: boolean;
  /** Host ports forwarded into the shared namespace (`--allow-host-port`). @default [] */
  hostPorts?: readonly number[];
}
