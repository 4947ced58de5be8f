/**
 * Drives a real odek in a tmux pane (a real pseudo-terminal) for the interactive tests: keys
 * are sent with `send-keys`, and every wait polls `capture-pane` until a condition holds or a
 * deadline passes — never a sleep. Each tmux server has its own socket (a random name), so
 * tests never share one. Screens asked for are written to `test-artefacts/interactive/`
 * (gitignored) to be looked at.
 *
 * @module
 */
import { join } from "node:path";
import { ODEK_FLAGS, ROOT } from "./_odek.ts";

/** The command that installs tmux, printed when a test is skipped for want of it. */
export const TMUX_INSTALL_COMMAND = "apt-get install tmux";

/** Whether tmux runs on this machine (checked once). */
export const tmuxAvailable: boolean = (() => {
  try {
    return new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" }).outputSync()
      .success;
  } catch {
    return false;
  }
})();

if (!tmuxAvailable) {
  console.error(
    `skipping the interactive terminal tests: tmux is missing (${TMUX_INSTALL_COMMAND})`,
  );
}

/** Options of {@linkcode startTmuxOdek}. */
export interface TmuxOdekOptions {
  /** odek's arguments (after `main.ts`). */
  args: string[];
  /** The whole environment of odek (cleared otherwise). */
  env: Record<string, string>;
  /** The directory odek starts in. */
  cwd: string;
  /** A name for the artefacts folder of this test. */
  name: string;
  /** Pane size. @default 120 x 40 */
  columns?: number;
  rows?: number;
  /** Also keep the pane's raw bytes (escape sequences included) for `raw()`. @default false */
  raw?: boolean;
}

/** A running odek in a tmux pane. */
export interface TmuxOdek extends AsyncDisposable {
  /** Type `text` literally (no key names). */
  type(text: string): Promise<void>;
  /** Paste `text` as a terminal paste (bracketed when odek asked for it), newlines kept. */
  paste(text: string): Promise<void>;
  /** Press keys by tmux name: `Enter`, `Escape`, `C-c`, `Tab`, `y`. */
  press(...keys: string[]): Promise<void>;
  /** The pane's whole history and screen, wrapped lines joined. */
  screen(): Promise<string>;
  /** What the pane was sent, escape sequences included (with `raw: true`; else ""). */
  raw(): Promise<string>;
  /**
   * Poll the screen until `condition` holds (a regex on the screen, or a function of it) and
   * return the screen; save it as artefact `step` when given. @throws on timeout, with the screen
   */
  waitFor(
    condition: RegExp | ((screen: string) => boolean),
    step?: string,
    timeoutMs?: number,
  ): Promise<string>;
  /** Wait for odek to exit and return its exit code. */
  exitCode(timeoutMs?: number): Promise<number>;
}

/** Poll `check` every 50 ms until it returns a value other than `undefined`, or throw. */
export async function pollUntil<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  what: () => string | Promise<string>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${await what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Start odek (`deno run … main.ts <args>`) in a detached tmux session of its own server; the
 * pane stays after odek exits so its exit code can be read. Dispose to kill the server.
 */
export async function startTmuxOdek(options: TmuxOdekOptions): Promise<TmuxOdek> {
  const socket = `odek-test-${crypto.randomUUID().slice(0, 8)}`;
  const artefacts = join(ROOT, "test-artefacts", "interactive", options.name);
  await Deno.mkdir(artefacts, { recursive: true });
  let steps = 0;
  const codeFile = join(artefacts, "exit-code");
  await Deno.remove(codeFile).catch(() => {});
  const tmux = async (...args: string[]) => {
    const out = await new Deno.Command("tmux", {
      args: ["-L", socket, "-f", "/dev/null", ...args],
      env: { ...options.env, TERM: "xterm-256color" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    if (!out.success) {
      throw new Error(`tmux ${args[0]} failed: ${new TextDecoder().decode(out.stderr)}`);
    }
    return text;
  };
  await tmux(
    "new-session",
    "-d",
    "-s",
    "main",
    "-x",
    String(options.columns ?? 120),
    "-y",
    String(options.rows ?? 40),
    "-c",
    options.cwd,
    Deno.execPath(),
    "run",
    "--quiet",
    "--allow-run",
    `--allow-write=${codeFile}`,
    join(ROOT, "tests", "e2e", "_exit_code_wrapper.ts"),
    codeFile,
    Deno.execPath(),
    ...ODEK_FLAGS,
    join(ROOT, "main.ts"),
    ...options.args,
    ";",
    "set-option",
    "-t",
    "main",
    "remain-on-exit",
    "on",
  );
  const rawFile = join(artefacts, "raw.txt");
  await Deno.remove(rawFile).catch(() => {});
  if (options.raw) await tmux("pipe-pane", "-t", "main", `cat >> '${rawFile}'`);
  const screen = () => tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "main");
  const self: TmuxOdek = {
    async type(text) {
      await tmux("send-keys", "-t", "main", "-l", text);
    },
    async paste(text) {
      await tmux("set-buffer", "-b", "odek-paste", "--", text);
      await tmux("paste-buffer", "-p", "-r", "-d", "-b", "odek-paste", "-t", "main");
    },
    async press(...keys) {
      await tmux("send-keys", "-t", "main", ...keys);
    },
    screen,
    raw: () => Deno.readTextFile(rawFile).catch(() => ""),
    async waitFor(condition, step, timeoutMs = 60_000) {
      const test = typeof condition === "function" ? condition : (s: string) => condition.test(s);
      const shown = await pollUntil(
        async () => {
          const now = await screen();
          return test(now) ? now : undefined;
        },
        timeoutMs,
        async () => `waiting for ${condition} on the screen:\n${await screen()}`,
      );
      if (step) {
        steps++;
        await Deno.writeTextFile(
          join(artefacts, `${String(steps).padStart(2, "0")}-${step}.txt`),
          shown,
        );
      }
      return shown;
    },
    async exitCode(timeoutMs = 60_000) {
      return await pollUntil(
        async () => {
          try {
            const text = await Deno.readTextFile(codeFile);
            return text.endsWith("\n") ? Number(text) : undefined;
          } catch {
            return undefined;
          }
        },
        timeoutMs,
        async () => `odek did not exit:\n${await screen()}`,
      );
    },
    async [Symbol.asyncDispose]() {
      await tmux("kill-server").catch(() => {});
    },
  };
  return self;
}
