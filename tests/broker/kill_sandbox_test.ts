import assert from "node:assert/strict";
import { killSandbox } from "../../src/broker/_kill_sandbox.ts";
import { bwrap, sandboxTest } from "../_helpers/sandbox.ts";
import { survivorsOf, uniqueSleep } from "./_processes.ts";

sandboxTest(
  "killSandbox() leaves nothing running even when bwrap is killed right after the spawn",
  async () => {
    // Plain SIGKILL of bwrap leaves about half of these sandboxes running (bubblewrap 0.8).
    const marker = uniqueSleep();
    for (let i = 0; i < 30; i++) {
      const child = new Deno.Command(bwrap!, {
        args: ["--die-with-parent", "--unshare-all", "--cap-drop", "ALL", "--ro-bind", "/", "/"]
          .concat(["--dev", "/dev", "--proc", "/proc", "--", "bash", "-c", marker]),
        clearEnv: true,
        env: { PATH: "/usr/bin:/bin" },
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      if (i % 2 === 1) await new Promise((resolve) => setTimeout(resolve, i % 7));
      await killSandbox(child.pid);
      assert.equal((await child.status).signal, "SIGKILL");
    }
    assert.deepEqual(await survivorsOf(marker), []);
  },
);

Deno.test("killSandbox() kills a plain child process", async () => {
  const child = new Deno.Command("sleep", { args: ["30"], stdout: "null", stderr: "null" }).spawn();
  await killSandbox(child.pid);
  assert.equal((await child.status).signal, "SIGKILL");
});
