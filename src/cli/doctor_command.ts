/**
 * `odek doctor`: which protection layers are active, the versions, the paths, and whether the
 * workspace is usable; exit code 1 when the configured sandbox cannot start (docs/doctor.md).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { OdekError } from "../_util/odek_error.ts";
import { flagError } from "./flag_error.ts";
import type { CliIO } from "./cli_io.ts";
import { cliRuntime } from "./cli_runtime.ts";
import { type DoctorLayer, type DoctorReport, doctorReport } from "./doctor_report.ts";
import { EXIT } from "./exit_code.ts";
import { HELP_TEXT } from "./help_text.ts";
import { terminalSafe } from "./terminal_safe.ts";

/**
 * Run `odek doctor` with its arguments (after the word `doctor`).
 *
 * @param args `--workspace <dir>`, `--dedicated-workspace`, `--add-dir <dir>[:ro]`, `--json`
 * @param io the CLI's streams and environment
 * @returns 0 when everything needed for a run works, 1 otherwise
 * @throws {OdekError} `USAGE` for bad flags; `CONFIG_INVALID` from the configuration
 *
 * @example Help
 * ```ts
 * import { doctorCommand } from "./doctor_command.ts";
 * let out = "";
 * const io = { stdout: { write: (t: string) => (out += t) }, stderr: { write() {} } } as never;
 * if (await doctorCommand(["--help"], io) !== 0 || !out.includes("--json")) throw new Error(out);
 * ```
 */
export async function doctorCommand(args: string[], io: CliIO): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      options: {
        workspace: { type: "string" },
        "dedicated-workspace": { type: "boolean" },
        "add-dir": { type: "string", multiple: true },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw flagError(error, "doctor");
  }
  if (values.help) {
    io.stdout.write(`${HELP_TEXT.doctor}\n`);
    return EXIT.ok;
  }
  if (values.workspace !== undefined && values["dedicated-workspace"]) {
    throw new OdekError(
      "USAGE",
      '--workspace and --dedicated-workspace choose different directories: pass one. Run "odek doctor --help".',
    );
  }
  await using runtime = await cliRuntime(io);
  const report = await doctorReport(runtime, io, {
    workspace: values.workspace,
    dedicated: values["dedicated-workspace"] === true,
    addDirs: values["add-dir"] ?? [],
  });
  io.stdout.write(
    values.json ? `${JSON.stringify(report, null, 2)}\n` : renderDoctorReport(report),
  );
  return report.ok ? EXIT.ok : EXIT.error;
}

/**
 * The report as text for a terminal: one line per fact, problems last with what to do.
 *
 * @param report what {@linkcode doctorReport} found
 * @returns the text, ending with a newline
 *
 * @example
 * ```ts ignore
 * import { renderDoctorReport } from "./doctor_command.ts";
 * Deno.stdout.write(new TextEncoder().encode(renderDoctorReport(report)));
 * ```
 */
export function renderDoctorReport(report: DoctorReport): string {
  const lines: string[] = [];
  const row = (name: string, value: string) => lines.push(`  ${name.padEnd(20)}${value}`);
  lines.push(`odek ${report.odek.version}`);
  row(
    "config file",
    `${report.odek.configFile}${report.odek.configFileExists ? "" : " (absent: defaults)"}`,
  );
  row("ODEK_HOME", report.odek.odekHome);
  row("install directory", report.installDir);
  row(
    "launcher",
    report.launcher.path ??
      "none: started with deno run or deno task (install one: deno task install)",
  );
  row(
    "binary",
    `${report.launcher.binary}${report.launcher.warning ? ` (${report.launcher.warning})` : ""}`,
  );
  const code = report.launcher.code;
  row(
    "core code",
    code.runs === "bundle"
      ? `the installed bundle ${code.bundle}`
      : code.stale
      ? `the sources of ${report.installDir}: the installed bundle is out of date (${code.stale}); run deno task install there to rebuild it`
      : `the sources of ${report.installDir}`,
  );
  lines.push("deno");
  row("core", `${report.deno.core.version} (${report.deno.core.path})`);
  const c = report.deno.children;
  row(
    "tool children",
    c.path === null
      ? "none found"
      : `${c.version ?? "unknown version"} (${c.path}, ${
        c.source === "self" ? "the running deno" : `from ${c.source}`
      })`,
  );
  lines.push(
    `sandbox "${report.sandbox.configured}": ${report.sandbox.started ? "works" : "CANNOT START"}`,
  );
  const layer = (name: string, l: DoctorLayer) =>
    row(name, `${l.status === "unavailable" ? "not available" : l.status} · ${l.detail}`);
  const { layers } = report;
  layer("Deno flags", layers.denoFlags);
  layer(
    `bwrap${layers.bwrap.version ? ` ${layers.bwrap.version}` : ""}`,
    layers.bwrap,
  );
  layer("network namespace", layers.networkNamespace);
  layer("shared loopback", layers.sharedLoopback);
  layer("egress guard", layers.egressGuard);
  layer(
    `docker${layers.docker.clientVersion ? ` ${layers.docker.clientVersion}` : ""}`,
    layers.docker,
  );
  layer("pids limit", layers.pidsLimit);
  layer("seccomp filter", layers.seccomp);
  layer("root secrets", layers.rootSecrets);
  const ws = report.workspace;
  lines.push(`workspace (${ws.kind})`);
  row(ws.ok ? "ok" : "UNUSABLE", ws.ok ? ws.path! : ws.error!);
  if (ws.readOnly) row("WARNING", ws.readOnly);
  if (report.addDirs.length > 0) {
    lines.push("added directories");
    for (const dir of report.addDirs) {
      row(
        dir.ok ? "ok" : "UNUSABLE",
        dir.ok ? `${dir.path}${dir.readOnly ? " (read-only)" : ""}` : dir.error!,
      );
    }
  }
  lines.push("configuration layers (later wins)");
  for (const file of report.config.files) {
    const name = file.kind === "secrets" ? "secrets.env" : file.kind;
    const status = file.status === "read"
      ? `read${file.detail ? ` (${file.detail})` : ""}`
      : file.status === "absent"
      ? "absent"
      : file.status === "ignored"
      ? "IGNORED"
      : "NOT READ (misnamed)";
    row(name, `${file.path} · ${status}`);
  }
  row("environment", "ODEK_* variables, then flags");
  for (const warning of report.config.warnings) lines.push(`  warning: ${warning}`);
  if (report.problems.length === 0) lines.push("ok: odek can run here");
  else {
    const count = report.problems.length;
    lines.push(`${count} problem${count === 1 ? "" : "s"}:`);
    for (const problem of report.problems) lines.push(`  - ${problem}`);
  }
  // Paths and warnings quote the workspace's files: printed with escapes removed.
  return `${lines.map((line) => terminalSafe(line)).join("\n")}\n`;
}
