/**
 * One escape attempt of the containment suite, and the helpers the attempt tables build calls
 * with (test helper).
 *
 * @module
 */
import type { ContainmentFixture } from "./_fixture.ts";

/** One escape attempt. */
export interface Attempt {
  /** What it tries, e.g. `read ODEK_HOME through a planted symlink (shell)`. */
  name: string;
  /** The tool call. */
  call(f: ContainmentFixture): { name: string; args: Record<string, unknown> };
  /** Binaries it needs: the attempt is skipped, with the reason, when one is missing. */
  needs?: string[];
  /** Output that proves an escape when the call ran with nothing writable (host secrets). */
  forbid?: RegExp;
  /** Runs only where sandboxes have a process limit (a pids cgroup), never unbounded. */
  needsProcessLimit?: boolean;
}

/** A shell call built from the fixture's paths, with a timeout in seconds. */
export const sh =
  (command: (f: ContainmentFixture) => string, timeout = 20) => (f: ContainmentFixture) => ({
    name: "shell",
    args: { command: command(f), timeout_seconds: timeout },
  });
/** A file-tool call built from the fixture's paths. */
export const tool =
  (name: string, args: (f: ContainmentFixture) => Record<string, unknown>) =>
  (f: ContainmentFixture) => ({ name, args: args(f) });
/** Base64 of a text. */
export const b64 = (text: string) => btoa(text);
