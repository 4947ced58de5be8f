/**
 * The second layer against repository-configured programs (private to `broker/`): a program whose
 * workspace is read-only (a read scope) runs with every fixed-name git key that names a program
 * set by environment to something harmless, at git's command-line level, which wins over the
 * repository's `.git/config` and its includes. The keys come from the one table,
 * `REPO_PROGRAM_KEYS` (`src/danger/repo_programs.ts`); keys with a variable part
 * (`diff.<driver>.textconv`, `alias.*`, `pager.<command>`) cannot be named in advance and are
 * left to the first layer, the classifier.
 *
 * @module
 */
import { REPO_PROGRAM_KEYS } from "../danger/repo_programs.ts";

function neutralEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  let n = 0;
  for (const key of REPO_PROGRAM_KEYS) {
    if (key.neutral === undefined) continue;
    env[`GIT_CONFIG_KEY_${n}`] = key.name;
    env[`GIT_CONFIG_VALUE_${n}`] = key.neutral;
    n++;
  }
  env.GIT_CONFIG_COUNT = String(n);
  // The variables that win over the configuration keys of the same programs.
  env.GIT_PAGER = "cat";
  env.GIT_EDITOR = "false";
  env.GIT_SEQUENCE_EDITOR = "false";
  return env;
}

/** `GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_n`, `GIT_CONFIG_VALUE_n` and the program variables. */
export const GIT_NEUTRAL_ENV: Readonly<Record<string, string>> = Object.freeze(neutralEnv());
