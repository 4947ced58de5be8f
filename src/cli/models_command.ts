/**
 * `odek models`: the models the configured provider lists (`GET <base URL>/models`).
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { ConfigLayer } from "../config/odek_config.ts";
import type { CliIO } from "./cli_io.ts";
import { cliRuntime } from "./cli_runtime.ts";
import { EXIT } from "./exit_code.ts";
import { flagError } from "./flag_error.ts";
import { HELP_TEXT } from "./help_text.ts";
import { terminalSafe } from "./terminal_safe.ts";

/**
 * Run `odek models` with its arguments (after the word `models`): one model id per line (with
 * its owner and context window when the server says), or `--json` for the list as JSON.
 *
 * @param args `--base-url <url>`, `--provider <name>`, `--json`, `--help`
 * @param io the CLI's streams and environment
 * @returns 0 when the server listed its models
 * @throws {OdekError} `USAGE` for bad flags or an unknown preset; `MODEL_UNREACHABLE`,
 *   `MODEL_ERROR` (a 404: the server lists no models there), `MODEL_PROTOCOL` from the request
 *
 * @example Help
 * ```ts
 * import { modelsCommand } from "./models_command.ts";
 * let out = "";
 * const io = { stdout: { write: (t: string) => (out += t) }, stderr: { write() {} } } as never;
 * if (await modelsCommand(["--help"], io) !== 0 || !out.includes("--provider")) throw new Error(out);
 * ```
 */
export async function modelsCommand(args: string[], io: CliIO): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      options: {
        "base-url": { type: "string" },
        provider: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw flagError(error, "models");
  }
  if (values.help) {
    io.stdout.write(`${HELP_TEXT.models}\n`);
    return EXIT.ok;
  }
  const layer: ConfigLayer = {};
  // The configuration resolves a preset's base URL (and refuses an unknown name); --base-url wins.
  if (values.provider !== undefined) layer.provider = values.provider as ConfigLayer["provider"];
  if (values["base-url"] !== undefined) layer.baseUrl = values["base-url"];
  await using runtime = await cliRuntime(io, layer);
  const models = await runtime.listModels();
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ baseUrl: runtime.config.baseUrl, models }, null, 2)}\n`);
    return EXIT.ok;
  }
  if (models.length === 0) {
    io.stderr.write(`odek: ${terminalSafe(runtime.config.baseUrl)} lists no models.\n`);
    return EXIT.ok;
  }
  for (const model of models) {
    const facts = [
      model.ownedBy ? `owned by ${model.ownedBy}` : "",
      model.contextWindow ? `${model.contextWindow} tokens` : "",
    ].filter((fact) => fact !== "");
    io.stdout.write(
      `${terminalSafe(model.id, true)}${
        facts.length > 0 ? `  (${terminalSafe(facts.join(", "), true)})` : ""
      }\n`,
    );
  }
  return EXIT.ok;
}
