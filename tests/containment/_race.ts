/**
 * The broker-level race of issue 12 (test helper): a scratch folder with a home holding a canary
 * `.ssh/id_rsa`, a flipper process exchanging two of its entries every few milliseconds, and a
 * real `SandboxBroker` (bwrap) running one command many times while it flips. Everything lives
 * in one scratch folder under the system's temporary directory.
 *
 * @module
 */
import { join } from "node:path";
import type { AddDir } from "../../src/config/add_dirs.ts";
import { validateAddDirs } from "../../src/config/add_dirs.ts";
import { validateWorkspace } from "../../src/config/validate_workspace.ts";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import { sandboxContextFromEnvironment } from "../../src/broker/sandbox_context.ts";
import type { SandboxRefusal, ToolResult } from "../../src/broker/tool_broker.ts";
import type { Verdict } from "../../src/danger/verdict.ts";
import { REPO_TOOLS_DIR } from "../_helpers/sandbox.ts";

/** The scratch layout: `home/.ssh/id_rsa` (the canary), and whatever the scenario adds. */
export interface RaceScratch extends AsyncDisposable {
  root: string;
  home: string;
  /** The canary's content: a random token that must never appear in any output. */
  canary: string;
}

/** Create the scratch folder and its canary home. Dispose it to delete everything. */
export async function makeRaceScratch(): Promise<RaceScratch> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-race-" }));
  const home = join(root, "home");
  await Deno.mkdir(join(home, ".ssh"), { recursive: true });
  const canary = `odek-race-canary-${crypto.randomUUID()}`;
  await Deno.writeTextFile(join(home, ".ssh", "id_rsa"), `${canary}\n`);
  return {
    root,
    home,
    canary,
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

/** A running flipper; dispose it to stop it (and wait until it is gone). */
export interface Flipper extends AsyncDisposable {
  /** Stop it and return how many exchanges it made. */
  stop(): Promise<number>;
  /** How many exchanges it has reported so far (it reports as it goes). */
  flips(): number;
}

/**
 * Start `_flipper.ts` exchanging `dir/a` and `dir/b` every `periodMs`, and wait until it runs.
 *
 * @param deadlineMs it stops by itself after this long even if the test dies
 */
export async function startFlipper(
  dir: string,
  a: string,
  b: string,
  options: { periodMs?: number; deadlineMs?: number; pulseMs?: number } = {},
): Promise<Flipper> {
  const script = new URL("./_flipper.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-config",
      "--allow-ffi",
      "--allow-read",
      "--allow-env",
      script,
      dir,
      a,
      b,
      String(options.periodMs ?? 5),
      String(options.deadlineMs ?? 180_000),
      String(options.pulseMs ?? 0),
    ],
    stdout: "piped",
    stderr: "inherit",
    stdin: "null",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("ready\n")) {
    const { value, done } = await lines.read();
    if (done) throw new Error("the flipper ended before it was ready");
    text += value;
  }
  // Its reports, read as they come: the last whole `flips N` line is the count so far.
  let reported = 0;
  const take = () => {
    const whole = text.slice(0, text.lastIndexOf("\n") + 1);
    const last = [...whole.matchAll(/flips (\d+)/g)].at(-1);
    if (last) reported = Number(last[1]);
    text = text.slice(whole.length);
  };
  const reading = (async () => {
    for (;;) {
      const { value, done } = await lines.read();
      if (done) return;
      text += value;
      take();
    }
  })();
  let stopped: Promise<number> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      try {
        child.kill("SIGTERM"); // it prints how many exchanges it made, then exits
      } catch {
        // already gone
      }
      const kill = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch {
          // gone
        }
      }, 5_000);
      await reading;
      clearTimeout(kill);
      await child.status;
      text += "\n";
      take();
      return reported;
    })();
  return { stop, flips: () => reported, [Symbol.asyncDispose]: async () => void (await stop()) };
}

/** One scenario of the race. */
export interface RaceScenario {
  scratch: RaceScratch;
  /** The workspace as the operator named it. */
  workspace: string;
  addDirs?: AddDir[];
  command: string;
  verdict: Verdict;
  /**
   * The entries the flipper exchanges, every 5 ms (or, with `pulseMs`, swapped for that long
   * every 5 ms and put back).
   */
  flip: { dir: string; a: string; b: string; pulseMs?: number };
  /** Throws when the call leaked (checked after every call, with the flipper running). */
  assertNoLeak(result: ToolResult): Promise<void>;
  /** Whether the command really ran, in the right place (not refused): counted, not asserted. */
  ran(result: ToolResult): boolean;
}

/** What the race did. */
export interface RaceReport {
  iterations: number;
  /** Exchanges the flipper made meanwhile. */
  flips: number;
  ran: number;
  refused: number;
  events: number;
  ms: number;
}

/**
 * Run the scenario's command `iterations` times through a real broker while the flipper runs,
 * asserting after each call that nothing leaked, and on until the flipper has reported
 * `minFlips` exchanges (calls refused before a sandbox starts take well under 1 ms, so on a busy
 * machine 200 of them can end before the flipper made 20); stop after `budgetMs` at the latest.
 */
export async function runRace(
  scenario: RaceScenario,
  options: { iterations: number; budgetMs: number; minFlips?: number },
): Promise<RaceReport> {
  const { scratch } = scenario;
  const base = await sandboxContextFromEnvironment({
    odekHome: join(scratch.root, "odek_home"),
    installDir: join(scratch.root, "install"),
    mode: "bwrap",
  });
  const context = { ...base, toolsDir: REPO_TOOLS_DIR, home: scratch.home, readOnlyHomeFiles: [] };
  const protectedRoots = context.protectedRoots;
  const broker = new SandboxBroker({
    context,
    resolveWorkspace: () => validateWorkspace(scenario.workspace, { protectedRoots }),
    resolveAddDirs: () => validateAddDirs(scenario.addDirs ?? [], protectedRoots),
    trustLevel: "standard",
    shellTimeoutMs: 20_000,
  });
  const refusals: SandboxRefusal[] = [];
  const stopListening = broker.onSandboxRefusal((refusal) => refusals.push(refusal));
  const report: RaceReport = { iterations: 0, flips: 0, ran: 0, refused: 0, events: 0, ms: 0 };
  const started = performance.now();
  const { dir, a, b, pulseMs } = scenario.flip;
  try {
    // Before the flipper starts, the command must run where it should (else the race proves
    // nothing: a test whose calls are all refused cannot see a leak).
    const control = await broker.run({
      id: "control",
      name: "shell",
      args: { command: scenario.command },
      verdict: scenario.verdict,
    });
    if (!scenario.ran(control)) {
      throw new Error(`the control call did not run as expected: ${JSON.stringify(control)}`);
    }
    await scenario.assertNoLeak(control);
    await using flipper = await startFlipper(dir, a, b, { ...(pulseMs ? { pulseMs } : {}) });
    const minFlips = options.minFlips ?? 0;
    for (let i = 0; i < options.iterations || flipper.flips() < minFlips; i++) {
      if (performance.now() - started > options.budgetMs) {
        throw new Error(`the race took more than ${options.budgetMs} ms (${i} iterations done)`);
      }
      broker.prepare();
      const result = await broker.run({
        id: `race-${i}`,
        name: "shell",
        args: { command: scenario.command },
        verdict: scenario.verdict,
      });
      await scenario.assertNoLeak(result);
      report.iterations++;
      if (scenario.ran(result)) report.ran++;
      else if (!result.ok && result.error.kind === "denied") report.refused++;
    }
    report.flips = await flipper.stop();
  } finally {
    stopListening();
    await broker.close();
  }
  report.events = refusals.length;
  report.ms = Math.round(performance.now() - started);
  return report;
}
