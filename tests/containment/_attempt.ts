/**
 * One escape attempt of the containment suite, and the helpers the attempt tables build calls
 * with (test helper).
 *
 * @module
 */
import type { ToolResult } from "../../src/broker/tool_broker.ts";
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
  /**
   * More checks after the attempt, besides the containment every attempt gets (e.g. a command
   * that exited 0 really wrote the host file it claims). Throws an AssertionError.
   */
  verify?(f: ContainmentFixture, result: ToolResult): Promise<void>;
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

/** rot13 of a text: `tr` output is not static to the classifier, so the payload stays hidden. */
export const rot13 = (text: string) =>
  text.replace(/[a-z]/gi, (c) => {
    const base = c <= "Z" ? 65 : 97;
    return String.fromCharCode((c.charCodeAt(0) - base + 13) % 26 + base);
  });

/** A shell call running `payload` hidden from the classifier (rot13 through `tr`, then `sh`). */
export const hidden = (payload: (f: ContainmentFixture) => string) =>
  sh((f) =>
    `echo '${rot13(payload(f)).replaceAll("'", "'\\''")}' | tr 'A-Za-z' 'N-ZA-Mn-za-m' | sh`
  );
