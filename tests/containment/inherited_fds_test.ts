/**
 * Issue 12, inherited descriptors: the broker is started from a shell holding an inheritable
 * descriptor on a canary directory (fd 7) and the write end of a pipe to a process outside
 * (fd 8), as a launcher or a test runner might leave them. Inside every sandbox only fds 0–2
 * exist — a shell command (started on demand and from a spare), a background job, unconfined
 * programs (`sandbox: "none"`) — and no process of a file-tool child holds either descriptor.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sandboxTest } from "../_helpers/sandbox.ts";

/** Opens fd 7 on the canary directory and fd 8 on a pipe, then becomes the driver. */
const HARNESS = 'exec 7<"$1"; exec 8> >(cat >/dev/null); shift; exec "$@"';

sandboxTest(
  "a broker started with inherited descriptors gives its sandboxes only fds 0-2",
  async () => {
    const scratch = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-fds-" }));
    try {
      const canaryDir = join(scratch, "canary_dir");
      await Deno.mkdir(canaryDir);
      await Deno.writeTextFile(join(canaryDir, "secret.txt"), "inherited-canary\n");
      const driver = new URL("./_inherited_fds_driver.ts", import.meta.url).pathname;
      const out = await new Deno.Command("/bin/bash", {
        args: [
          "-c",
          HARNESS,
          "odek-fds",
          canaryDir,
          Deno.execPath(),
          "run",
          "--allow-read",
          "--allow-write",
          "--allow-env",
          "--allow-run",
          "--allow-sys",
          driver,
          canaryDir,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.ok(out.success, `the driver failed: ${stderr}`);
      const { results } = JSON.parse(
        new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!,
      );
      // The harness works: a process started outside the broker inherits both descriptors.
      assert.match(results.control, new RegExp(`^${canaryDir}\npipe:`), results.control);
      for (const mode of ["bwrap", "none"]) {
        for (const key of [`${mode}_shell`, `${mode}_spare`]) {
          const result = results[key];
          assert.ok(result.ok, `${key}: ${JSON.stringify(result)}`);
          assert.match(result.output, /stdout:\n0\n1\n2\nfd7-gone\n/, `${key}: ${result.output}`);
          assert.ok(!result.output.includes("secret.txt"), `${key} listed the canary directory`);
        }
        const bg = results[`${mode}_bg`];
        assert.ok(bg.started.ok && bg.output.ok, `${mode}_bg: ${JSON.stringify(bg)}`);
        assert.match(bg.output.output, /0\n1\n2\nfd7-gone/, `${mode}_bg: ${bg.output.output}`);
        const fds: string[] = results[`${mode}_child_fds`];
        assert.ok(fds.length > 0, `${mode}: no file-tool child process was found`);
        const leaked = fds.filter((line) => line.endsWith(canaryDir) || / 8 pipe:/.test(line));
        assert.deepEqual(leaked, [], `${mode}: a file-tool child holds an inherited descriptor`);
      }
    } finally {
      await Deno.remove(scratch, { recursive: true });
    }
  },
);
