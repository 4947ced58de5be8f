/**
 * The CLI's runtime: the process's environment, install directory and caller's directory handed
 * to `createRuntime`, with the command's flags as the top configuration layer.
 *
 * @module
 */
import type { ConfigLayer } from "../config/odek_config.ts";
import { createRuntime } from "../runtime/create_runtime.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { SessionStore } from "../session/session_store.ts";
import type { CliIO } from "./cli_io.ts";

/**
 * Create the runtime a command runs on.
 *
 * @param io the process as the CLI sees it
 * @param flags the configuration layer of the command's flags
 * @param store the session store (the queue's, with `--queue`) @default the file store
 * @returns the runtime (dispose it)
 * @throws {OdekError} `CONFIG_INVALID` from the configuration layers
 *
 * @example
 * ```ts ignore
 * await using runtime = await cliRuntime(io, flags.layer);
 * ```
 */
export function cliRuntime(
  io: CliIO,
  flags: ConfigLayer = {},
  store?: SessionStore,
): Promise<Runtime> {
  return createRuntime({
    env: io.env,
    installDir: io.installDir,
    cwd: io.callerDir,
    config: flags,
    ...(store ? { store } : {}),
  });
}
