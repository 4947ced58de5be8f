/**
 * `odek classify "<command>"`: classify a shell command the way a `shell` tool call is
 * classified before it runs, and print its parts, the decision at a trust level and the reason.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { OdekError } from "../_util/odek_error.ts";
import { flagError } from "./flag_error.ts";
import { TrustLevelSchema } from "../config/trust_level.ts";
import type { Classifier, ClassifyContext } from "../danger/classifier.ts";
import type { RiskClass, Verdict } from "../danger/verdict.ts";
import { terminalSafe } from "./terminal_safe.ts";
import type { CliIO } from "./cli_io.ts";
import { cliRuntime } from "./cli_runtime.ts";
import { EXIT } from "./exit_code.ts";
import { HELP_TEXT } from "./help_text.ts";

/** Options for {@linkcode classifyCommand}. */
export interface ClassifyCommandOptions {
  /** The classifier to use (tests share one). @default a new one from {@linkcode createClassifier} */
  classifier?: Classifier;
}

const FLAGS = {
  trust: { type: "string" },
  workspace: { type: "string" },
  "add-dir": { type: "string", multiple: true },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** Printable on a terminal and on one line: control characters dropped, newlines as `⏎`. */
function printable(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\s*\n\s*/g, " ⏎ ").replace(/[\u0000-\u001f\u007f-\u009f]/g, "");
}

/** The verdict as the text `odek classify` prints. */
function render(verdict: Verdict, context: ClassifyContext): string {
  const lines = verdict.parts.length === 0 ? ["  (no parts: the command runs nothing)"] : [];
  for (const part of verdict.parts) {
    lines.push(`  ${part.riskClass.padEnd(15)} ${printable(part.subject)}`);
    const why = part.detail ? [printable(part.detail)] : [];
    if (part.targets.length > 0) why.push(`targets: ${part.targets.map(printable).join(", ")}`);
    if (why.length > 0) lines.push(`  ${"".padEnd(15)} ${why.join("; ")}`);
  }
  return [
    "parts:",
    ...lines,
    `decision: ${verdict.decision} (trust level ${context.trustLevel})`,
    `reason: ${printable(verdict.reason)}`,
    "",
  ].join("\n");
}

/**
 * Run `odek classify` with its arguments (after the word `classify`): one positional command
 * (or `-` to read it from stdin), `--trust untrusted|standard|trusted` (default: the config's
 * `trustLevel`), `--workspace <dir>` (as for `odek run`; default the caller's directory),
 * `--add-dir <dir>[:ro]` (as for `odek run`), and `--json` to print the verdict (`{ parts, decision, reason }`) as JSON. Nothing is run.
 * The workspace's deny rules (user and project layers) apply as in a run: a part a rule blocks
 * names the rule, its layer and its file; the project file's warnings go to stderr.
 *
 * @param args the arguments after `classify`
 * @param io the process streams and environment
 * @param options a classifier to reuse
 * @returns the exit code: 0 when the command was classified, whatever the decision
 * @throws {OdekError} `USAGE` for bad flags, a missing command or a trust level outside
 *   `untrusted|standard|trusted`; configuration and workspace errors from the composition root.
 *
 * @example Classify a command as JSON
 * ```ts
 * import { classifyCommand } from "./classify_command.ts";
 * const home = await Deno.makeTempDir();
 * await Deno.mkdir(`${home}/ws`);
 * let out = "";
 * const io = {
 *   stdout: { write: (text: string) => void (out += text) },
 *   stderr: { write: () => {} },
 *   readStdin: () => Promise.resolve(""),
 *   stdinIsTerminal: false,
 *   stderrIsTerminal: false,
 *   env: { HOME: home },
 *   callerDir: home,
 *   installDir: "/opt/odek",
 *   onSignal: () => () => {},
 * };
 * const args = ["--json", "--workspace", "ws", "git status && curl https://example.com"];
 * const code = await classifyCommand(args, io);
 * await Deno.remove(home, { recursive: true });
 * if (code !== 0 || JSON.parse(out).decision !== "ask") throw new Error(out);
 * ```
 */
export async function classifyCommand(
  args: string[],
  io: CliIO,
  options: ClassifyCommandOptions = {},
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: FLAGS, allowPositionals: true, strict: true });
  } catch (error) {
    throw flagError(error, "classify");
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(`${HELP_TEXT.classify}\n`);
    return EXIT.ok;
  }
  if (positionals.length !== 1) {
    throw new OdekError(
      "USAGE",
      `odek classify takes one command in quotes, got ${positionals.length} arguments. Example: odek classify "git status && npm test"`,
    );
  }
  const trust = values.trust === undefined ? undefined : TrustLevelSchema.safeParse(values.trust);
  if (trust && !trust.success) {
    throw new OdekError(
      "USAGE",
      `--trust takes untrusted, standard or trusted, got "${values.trust}". Run "odek classify --help".`,
    );
  }
  const command = positionals[0] === "-" ? await io.readStdin() : positionals[0];
  await using runtime = await cliRuntime(io);
  const { workspace, protectedRoots } = await runtime.resolveWorkspace({
    ...(values.workspace !== undefined ? { workspace: values.workspace } : {}),
    dedicated: false,
  });
  // As in runs: config addDirs and --add-dir, validated; the workspace's project layer read.
  const addDirs = await runtime.resolveAddDirs(values["add-dir"] ?? []);
  const host = await runtime.configFor(workspace);
  for (const warning of host.warnings) io.stderr.write(`odek: warning: ${terminalSafe(warning)}\n`);
  const context: ClassifyContext = {
    workspace,
    home: runtime.paths.home,
    protectedRoots,
    addDirs: addDirs.granted,
    trustLevel: trust?.data ?? host.config.trustLevel,
    trustedClasses: host.config.trustedClasses as RiskClass[],
    denyRules: host.denyRules,
  };
  const classifier = options.classifier ?? await runtime.classifier();
  const verdict = classifier.classifyToolCall({ name: "shell", args: { command } }, context);
  io.stdout.write(values.json ? `${JSON.stringify(verdict)}\n` : render(verdict, context));
  return EXIT.ok;
}
