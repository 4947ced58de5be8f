/**
 * Runs client scenarios of the official MCP conformance suite against odek (test helper). The
 * suite's versions are pinned in the test task's command (deno.json `test` and `test:slow`), as
 * `ODEK_MCP_CONFORMANCE_2025` and `ODEK_MCP_CONFORMANCE_2026` (npm package specifiers), never in
 * the import map; the runner is started under Deno (it wants Node 22; this machine has 20) with
 * explicit permissions, no config and no lock file, in a scratch directory. It starts the
 * scenario's servers on loopback and runs `_conformance_client.ts` (odek) against them.
 *
 * @module
 */
import { fileURLToPath } from "node:url";

/** The two revisions and the variable that pins each suite version. */
export const SUITES = [
  { revision: "2025-11-25", variable: "ODEK_MCP_CONFORMANCE_2025" },
  { revision: "2026-07-28", variable: "ODEK_MCP_CONFORMANCE_2026" },
] as const;

const HERE = fileURLToPath(new URL("./", import.meta.url));
const CLIENT = `${HERE}_conformance_client.ts`;
const RUNNER_FLAGS = [
  "run",
  "--no-config",
  "--no-lock",
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
  "--allow-sys",
];

/** The suite package of a revision, or why it cannot run (printed once by the caller). */
export function suitePackage(variable: string): { pkg: string } | { skip: string } {
  const pkg = Deno.env.get(variable);
  if (pkg && /^@modelcontextprotocol\/conformance@[0-9][0-9A-Za-z.-]*$/.test(pkg)) return { pkg };
  return {
    skip:
      `skipping the MCP conformance scenarios: ${variable} is not set; run them through "deno task test" (or "deno task test:slow"), whose command pins the suite's version`,
  };
}

/** The expected-failures file of a revision. */
export function expectedFailuresFile(revision: string): string {
  return `${HERE}expected_failures_${revision}.yml`;
}

/**
 * The scenarios a revision's file expects to fail in one section (`client:` or `server:`), each
 * with its reason (the comment above).
 */
export async function expectedFailures(
  revision: string,
  section: "client" | "server" = "client",
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let reason: string[] = [];
  let afterEntry = false;
  let current = "";
  for (const line of (await Deno.readTextFile(expectedFailuresFile(revision))).split("\n")) {
    const comment = /^\s+#\s?(.*)$/.exec(line);
    const entry = /^\s+-\s+(\S+)/.exec(line);
    const heading = /^(\w+):/.exec(line);
    if (heading) current = heading[1];
    if (current !== section) continue;
    if (comment) {
      // A comment block gives its reason to the entries right below it.
      if (afterEntry) reason = [];
      reason.push(comment[1]);
      afterEntry = false;
    } else if (entry) {
      out.set(entry[1], reason.join(" "));
      afterEntry = true;
    } else if (/^\S/.test(line)) {
      reason = [];
    }
  }
  return out;
}

/** What one scenario run printed and how the runner exited. */
export interface ScenarioRun {
  code: number;
  output: string;
}

async function runner(pkg: string, args: string[], cwd: string): Promise<ScenarioRun> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...RUNNER_FLAGS, `npm:${pkg}`, ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, output: `${decode(out.stdout)}${decode(out.stderr)}` };
}

/** The client scenarios the suite lists. */
export async function clientScenarios(pkg: string): Promise<string[]> {
  return await listed(pkg, "Client");
}

/** The server scenarios the suite lists. */
export async function serverScenarios(pkg: string): Promise<string[]> {
  return await listed(pkg, "Server");
}

async function listed(pkg: string, kind: "Client" | "Server"): Promise<string[]> {
  const cwd = await Deno.makeTempDir({ prefix: "odek-conformance-" });
  try {
    const { output } = await runner(pkg, ["list"], cwd);
    const section = output.split(new RegExp(`${kind} scenarios[^\\n]*\\n`))[1]?.split(/\n\S/)[0] ??
      "";
    return [...section.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

/**
 * Run one server scenario against `url` (a running `odek mcp serve --http`, its token in the
 * path) with the revision's expected failures, like {@linkcode runScenario}.
 */
export async function runServerScenario(
  pkg: string,
  revision: string,
  scenario: string,
  url: string,
): Promise<ScenarioRun> {
  const cwd = await Deno.makeTempDir({ prefix: "odek-conformance-" });
  try {
    return await runner(pkg, [
      "server",
      "--url",
      url,
      "--scenario",
      scenario,
      "--expected-failures",
      expectedFailuresFile(revision),
    ], cwd);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

/**
 * Run one scenario with the revision's expected failures: exit code 0 when it passed, or failed
 * as expected; 1 when it failed unexpectedly, or passed while listed (a stale entry).
 */
export async function runScenario(
  pkg: string,
  revision: string,
  scenario: string,
): Promise<ScenarioRun> {
  const cwd = await Deno.makeTempDir({ prefix: "odek-conformance-" });
  const client = [
    Deno.execPath(),
    "run",
    "--no-lock",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-net",
    "--allow-run",
    "--allow-sys",
    CLIENT,
  ].join(" ");
  try {
    return await runner(pkg, [
      "client",
      "--command",
      client,
      "--scenario",
      scenario,
      "--expected-failures",
      expectedFailuresFile(revision),
      "--timeout",
      "90000",
    ], cwd);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

/** The result lines of a run (checks summary and verdict), for a failure message. */
export function summary(run: ScenarioRun): string {
  return run.output.split("\n").filter((l) =>
    /FAILURE|WARNING|^Passed:|OVERALL|odek: |Client exited|stale|expected/i.test(l)
  ).join("\n");
}
