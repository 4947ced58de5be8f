/**
 * `odek init`: write a commented configuration file — the user's `ODEK_HOME/config.jsonc`, or
 * with `--project` the workspace's `odek.jsonc` with only the keys a project may set.
 *
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { OdekError } from "../_util/odek_error.ts";
import { PROJECT_FILE } from "../config/read_project_layer.ts";
import type { CliIO } from "./cli_io.ts";
import { cliRuntime } from "./cli_runtime.ts";
import { EXIT } from "./exit_code.ts";
import { flagError } from "./flag_error.ts";
import { HELP_TEXT } from "./help_text.ts";
import { initTemplate } from "./init_templates.ts";

/**
 * Run `odek init` with its arguments (after the word `init`): `--project` (write
 * `<workspace>/odek.jsonc` instead of `ODEK_HOME/config.jsonc`), `--workspace <dir>` (with
 * `--project`; default the current directory). An existing file is never replaced.
 *
 * @param args the arguments after `init`
 * @param io the CLI's streams and environment
 * @returns 0 when the file was written
 * @throws {OdekError} `USAGE` for bad flags or when the file exists; `WORKSPACE_INVALID` for an
 *   unusable workspace; `CONFIG_INVALID` from the configuration layers
 *
 * @example Help
 * ```ts
 * import { initCommand } from "./init_command.ts";
 * let out = "";
 * const io = { stdout: { write: (t: string) => (out += t) }, stderr: { write() {} } } as never;
 * if (await initCommand(["--help"], io) !== 0 || !out.includes("--project")) throw new Error(out);
 * ```
 */
export async function initCommand(args: string[], io: CliIO): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      options: {
        project: { type: "boolean" },
        workspace: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw flagError(error, "init");
  }
  if (values.help) {
    io.stdout.write(`${HELP_TEXT.init}\n`);
    return EXIT.ok;
  }
  if (values.workspace !== undefined && !values.project) {
    throw new OdekError(
      "USAGE",
      '--workspace chooses where --project writes odek.jsonc: pass --project too. Run "odek init --help".',
    );
  }
  await using runtime = await cliRuntime(io);
  let file: string;
  if (values.project) {
    const { workspace } = await runtime.resolveWorkspace({
      ...(values.workspace !== undefined ? { workspace: values.workspace } : {}),
      dedicated: false,
    });
    file = join(workspace, PROJECT_FILE);
  } else {
    file = runtime.paths.configFile;
    await Deno.mkdir(runtime.paths.odekHome, { recursive: true, mode: 0o700 });
  }
  try {
    await Deno.writeTextFile(file, initTemplate(values.project ? "project" : "user"), {
      createNew: true,
      mode: values.project ? 0o644 : 0o600,
    });
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) {
      throw new OdekError(
        "USAGE",
        `${file} exists already: edit it (odek config show prints what takes effect), or remove it first.`,
      );
    }
    throw new OdekError("USAGE", `Cannot write ${file}: ${(error as Error).message}.`, {
      cause: error,
    });
  }
  io.stdout.write(
    `wrote ${file}: every value is commented out; uncomment what you change.${
      values.project
        ? " odek treats it as untrusted: it may only tighten each user's settings."
        : ""
    }\n`,
  );
  return EXIT.ok;
}
