/**
 * Where odek keeps its data and where it is installed (design §4).
 *
 * @module
 */
import { join, resolve } from "node:path";
import { OdekError } from "../_util/odek_error.ts";

/**
 * The directories odek uses. All absolute.
 *
 * @example Where the sessions of a runtime are
 * ```ts
 * import { resolveOdekPaths, type OdekPaths } from "./odek_paths.ts";
 * const paths: OdekPaths = resolveOdekPaths({ HOME: "/home/ada" }, "/opt/odek");
 * if (paths.configFile !== "/home/ada/.odek/config.jsonc") throw new Error(paths.configFile);
 * ```
 */
export interface OdekPaths {
  /** `ODEK_HOME`, default `~/.odek`: config, sessions. A protected root. */
  odekHome: string;
  /** `ODEK_HOME/config.jsonc`. */
  configFile: string;
  /** `ODEK_HOME/sessions`. */
  sessionsDir: string;
  /** The directory holding `main.ts` (or the compiled binary). A protected root. */
  installDir: string;
  /** The user's home directory. */
  home: string;
}

/**
 * Resolve odek's paths from the environment.
 *
 * @param env the environment (`ODEK_HOME`, `HOME`)
 * @param installDir the directory of `main.ts` or of the compiled binary
 * @throws {OdekError} `CONFIG_INVALID` when neither `ODEK_HOME` nor `HOME` is set, or
 *   `ODEK_HOME` is relative.
 *
 * @example
 * ```ts
 * import { resolveOdekPaths } from "./odek_paths.ts";
 * const paths = resolveOdekPaths({ HOME: "/home/ada" }, "/opt/odek");
 * if (paths.sessionsDir !== "/home/ada/.odek/sessions") throw new Error(paths.sessionsDir);
 * ```
 */
export function resolveOdekPaths(
  env: Record<string, string | undefined>,
  installDir: string,
): OdekPaths {
  const home = env.HOME;
  if (!home) {
    throw new OdekError(
      "CONFIG_INVALID",
      "Cannot find the home directory: HOME is not set. Set HOME or ODEK_HOME.",
    );
  }
  const configured = env.ODEK_HOME;
  if (configured !== undefined && configured !== "" && !configured.startsWith("/")) {
    throw new OdekError(
      "CONFIG_INVALID",
      `ODEK_HOME must be an absolute path, got "${configured}". Set it to e.g. ${
        join(home, ".odek")
      }.`,
    );
  }
  const odekHome = resolve(configured || join(home, ".odek"));
  return {
    odekHome,
    configFile: join(odekHome, "config.jsonc"),
    sessionsDir: join(odekHome, "sessions"),
    installDir: resolve(installDir),
    home: resolve(home),
  };
}
