/**
 * `ODEK_HOME/secrets.env`: `KEY=VALUE` lines the operator keeps out of shell profiles (odek-go
 * §2.1). Refused when any group or world permission bit is set; its variables fill only unset
 * ones; they are never copied into a child's environment (the runtime keeps them apart from the
 * environment it hands the broker) and their values are redacted.
 *
 * @module
 */
import { MAX_CONFIG_BYTES } from "./read_config_file.ts";

/** What {@linkcode readSecretsEnv} found. */
export interface SecretsEnv {
  /** The file's path. */
  file: string;
  /** `read`: its variables are `vars`; `absent`: no file; `ignored`: see `warnings`. */
  status: "read" | "absent" | "ignored";
  /** Every variable the file sets (names and values), whether or not the environment had it. */
  vars: Record<string, string>;
  /** For the operator: the file ignored, a line skipped (by number: a line may hold a secret). */
  warnings: string[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Read a `secrets.env` file: `NAME=VALUE` per line, `#` comments and blank lines skipped, an
 * optional `export ` prefix, one pair of matching single or double quotes around a value
 * removed (nothing is expanded). The file is ignored, with a warning, when it is not a regular
 * file, is larger than 5 MiB, or its mode has any group or world bit (`chmod 600` fixes it). A
 * line that is not a pair is skipped with a warning naming its number, never its text.
 *
 * @param file the path (`ODEK_HOME/secrets.env`)
 * @returns the variables, the status and the warnings; never throws for the file's content
 *
 * @example A missing file
 * ```ts
 * import { readSecretsEnv } from "./read_secrets_env.ts";
 * const read = await readSecretsEnv("/nonexistent/secrets.env");
 * if (read.status !== "absent" || Object.keys(read.vars).length !== 0) throw new Error();
 * ```
 */
export async function readSecretsEnv(file: string): Promise<SecretsEnv> {
  const ignored = (why: string): SecretsEnv => ({
    file,
    status: "ignored",
    vars: {},
    warnings: [`${file} ignored: ${why}`],
  });
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { file, status: "absent", vars: {}, warnings: [] };
    }
    return ignored(`it cannot be read (${(error as Error).message})`);
  }
  if (!info.isFile) return ignored("it is not a regular file (a symlink or a directory)");
  const mode = info.mode ?? 0;
  if ((mode & 0o077) !== 0) {
    return ignored(
      `its mode ${
        (mode & 0o777).toString(8).padStart(3, "0")
      } lets other users read or change it. Run: chmod 600 ${file}`,
    );
  }
  if (info.size > MAX_CONFIG_BYTES) return ignored("it is larger than 5 MiB");
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    return ignored(`it cannot be read (${(error as Error).message})`);
  }
  const vars: Record<string, string> = {};
  const warnings: string[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const body = line.replace(/^export\s+/, "");
    const eq = body.indexOf("=");
    const name = eq > 0 ? body.slice(0, eq).trim() : "";
    if (!NAME.test(name)) {
      warnings.push(`${file} line ${index + 1} skipped: it is not NAME=VALUE`);
      continue;
    }
    let value = body.slice(eq + 1).trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
      value = value.slice(1, -1);
    }
    vars[name] = value;
  }
  return { file, status: "read", vars, warnings };
}

/**
 * The variables of `secrets` that `env` does not set: the ones `secrets.env` fills.
 *
 * @param secrets the file's variables
 * @param env the process's environment
 * @returns the filled variables (an environment's value always wins, even an empty one)
 *
 * @example
 * ```ts
 * import { unsetOnly } from "./read_secrets_env.ts";
 * const filled = unsetOnly({ A: "1", B: "2" }, { A: "env" });
 * if (filled.A !== undefined || filled.B !== "2") throw new Error();
 * ```
 */
export function unsetOnly(
  secrets: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  return Object.fromEntries(Object.entries(secrets).filter(([name]) => env[name] === undefined));
}
