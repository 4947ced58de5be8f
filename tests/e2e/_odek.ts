/**
 * Runs odek as a real process (`deno run … main.ts`) for end-to-end tests, with a private
 * `ODEK_HOME`, a private workspace and a cleared environment.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { untrustedBody } from "../../src/testing/untrusted_body.ts";

/** The repository root. */
export const ROOT: string = fileURLToPath(new URL("../../", import.meta.url));
/** The task's permission flags (as in deno.json's `odek` task). */
export const ODEK_FLAGS = [
  "run",
  "--quiet",
  "--no-prompt",
  "--v8-flags=--liftoff-only,--max-semi-space-size=1",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-net",
  "--allow-run",
  "--allow-sys=uid,gid,networkInterfaces",
];

/**
 * `scripts/install.ts --prefix <prefix>` as a user runs it (a `deno run` of the script from the
 * checkout); asserts it succeeded and returns its stderr (what it told the user).
 */
export async function installAsUser(
  prefix: string,
  env?: Record<string, string>,
): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-run",
      join(ROOT, "scripts/install.ts"),
      "--prefix",
      prefix,
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    ...(env ? { env } : {}),
  }).output();
  const log = new TextDecoder().decode(out.stderr);
  assert.ok(out.success, log);
  return log;
}

/** A private layout for one test: dispose it to delete everything. */
export interface OdekFixture extends AsyncDisposable {
  home: string;
  odekHome: string;
  workspace: string;
  /** Base env: PATH, HOME, ODEK_HOME, NO_COLOR, DENO_DIR, ODEK_ALLOW_DOMAINS. */
  env: Record<string, string>;
  /** Run odek to the end. */
  run(args: string[], options?: RunOptions): Promise<OdekResult>;
  /** Start odek and return the child (stdout/stderr piped). */
  spawn(args: string[], options?: RunOptions): Deno.ChildProcess;
}

/** Options of one odek invocation. */
export interface RunOptions {
  env?: Record<string, string>;
  stdin?: string;
  cwd?: string;
  /** Another main.ts (a copy of the project). */
  main?: string;
  /** Run this installed launcher (`deno task install`) instead of `deno run … main.ts`. */
  launcher?: string;
  /** Start odek in a new session (`setsid`), with no controlling terminal to ask on. */
  noTerminal?: boolean;
}

/** What an odek run printed and how it exited. */
export interface OdekResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** This process's deno cache, so the child odek finds its npm packages under a fake HOME. */
function denoDir(): string {
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  return Deno.env.get("DENO_DIR") ??
    (xdg ? join(xdg, "deno") : join(Deno.env.get("HOME") ?? "/root", ".cache", "deno"));
}

/** Make a fixture under /var/tmp (not /tmp, which every sandbox replaces). */
export async function odekFixture(): Promise<OdekFixture> {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ dir: "/var/tmp", prefix: "odek-e2e-" }),
  );
  const home = join(root, "home");
  const odekHome = join(home, ".odek");
  const workspace = join(root, "workspace");
  await Deno.mkdir(odekHome, { recursive: true });
  await Deno.mkdir(workspace);
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: home,
    ODEK_HOME: odekHome,
    NO_COLOR: "1",
    DENO_DIR: denoDir(),
    // Approved network goes through the egress proxy: keep every real name off DNS and the
    // internet in tests (only localhost passes the allow-list, and loopback is refused anyway).
    ODEK_ALLOW_DOMAINS: "localhost",
  };
  const command = (args: string[], options: RunOptions, stdin: "piped" | "null") => {
    const program = options.launcher ?? Deno.execPath();
    const odek = options.launcher !== undefined
      ? args
      : [...ODEK_FLAGS, options.main ?? join(ROOT, "main.ts"), ...args];
    return new Deno.Command(options.noTerminal ? "setsid" : program, {
      args: [...(options.noTerminal ? ["-w", program] : []), ...odek],
      env: { ...env, ...options.env },
      clearEnv: true,
      cwd: options.cwd ?? workspace,
      stdin,
      stdout: "piped",
      stderr: "piped",
    });
  };
  return {
    home,
    odekHome,
    workspace,
    env,
    async run(args, options = {}) {
      const child = command(args, options, options.stdin === undefined ? "null" : "piped").spawn();
      if (options.stdin !== undefined) {
        const writer = child.stdin.getWriter();
        await writer.write(new TextEncoder().encode(options.stdin));
        await writer.close();
      }
      const out = await child.output();
      const decode = (b: Uint8Array) => new TextDecoder().decode(b);
      return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
    },
    spawn(args, options = {}) {
      return command(args, options, "null").spawn();
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

/**
 * The tool messages of a recorded chat request, in order: `content` is the output inside the
 * untrusted-content boundary (see `untrustedBody`), `raw` the whole message content.
 */
export function toolMessages(
  body: { messages: { role: string; tool_call_id?: string; content?: string }[] },
): { tool_call_id: string; content: string; raw: string }[] {
  return body.messages.filter((m) => m.role === "tool").map((m) => ({
    tool_call_id: m.tool_call_id ?? "",
    content: untrustedBody(m.content ?? ""),
    raw: m.content ?? "",
  }));
}
