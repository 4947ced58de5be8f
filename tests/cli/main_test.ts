import assert from "node:assert/strict";
import type { CliIO } from "../../src/cli/cli_io.ts";
import { main } from "../../src/cli/main.ts";

function io(stdoutWrite: (text: string) => void): CliIO & { err: string } {
  const self = {
    err: "",
    stdout: { write: stdoutWrite },
    stderr: { write: (text: string) => void (self.err += text) },
    readStdin: () => Promise.resolve(""),
    stdinIsTerminal: false,
    stderrIsTerminal: false,
    env: {},
    callerDir: "/",
    installDir: "/",
    onSignal: () => () => {},
  };
  return self;
}

Deno.test("main(): a closed stdout (odek … | head) ends quietly with exit 0, other faults are reported", async () => {
  const closed = io(() => {
    throw new Deno.errors.BrokenPipe("Broken pipe (os error 32)");
  });
  assert.equal(await main(["help"], closed), 0);
  assert.equal(closed.err, "");
  const broken = io(() => {
    throw new Error("disk on fire");
  });
  assert.equal(await main(["help"], broken), 1);
  assert.match(broken.err, /^odek: Unexpected error: Error: disk on fire/);
});
