/**
 * odek's own git: only odek's settings (no system or global file, hooks and attributes off), the
 * credential helper only when given, no variable of odek's environment.
 */
import assert from "node:assert/strict";
import { runGit } from "../../src/broker/run_git.ts";
import { gitMissing } from "../durable/_git_repository.ts";

const missing = gitMissing();
if (missing) console.log(`run_git tests skipped: ${missing}`);

Deno.test({
  name:
    "runGit: only odek's settings, the credential helper only when given, a cleared environment",
  ignore: missing !== undefined,
  fn: async () => {
    const gitdir = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-rungit-" }));
    try {
      assert.equal((await runGit({ gitdir, args: ["init", "--bare", "--quiet", gitdir] })).code, 0);
      const list = async (credentialHelper?: string) => {
        const out = await runGit({
          gitdir,
          args: ["config", "--list", "--show-scope"],
          ...(credentialHelper ? { credentialHelper } : {}),
        });
        assert.equal(out.code, 0, out.stderr);
        return new TextDecoder().decode(out.stdout).trim().split("\n");
      };
      const plain = await list();
      // Nothing from a system or global file; the repository's own file is odek's (init).
      assert.deepEqual(
        plain.filter((l) => !l.startsWith("command\t") && !l.startsWith("local\t")),
        [],
      );
      for (
        const setting of [
          "core.hookspath=/dev/null",
          "core.attributesfile=/dev/null",
          "protocol.ext.allow=never",
          "transfer.fsckobjects=true",
          "credential.helper=",
        ]
      ) {
        assert.ok(plain.includes(`command\t${setting}`), `${setting} in ${plain.join(" | ")}`);
      }
      assert.equal(plain.filter((l) => l.startsWith("command\tcredential.helper=")).length, 1);
      // The helper comes after the reset, so it is the only one git asks.
      const helped = await list("store --file /nonexistent/odek-test-credentials");
      const helpers = helped.filter((l) => l.startsWith("command\tcredential.helper="));
      assert.deepEqual(helpers, [
        "command\tcredential.helper=",
        "command\tcredential.helper=store --file /nonexistent/odek-test-credentials",
      ]);
      // odek's environment does not reach git (a marker variable set in this process).
      const marker = `ODEK_TEST_MARKER_${crypto.randomUUID().slice(0, 8)}`;
      Deno.env.set(marker, "secret");
      try {
        const env = await runGit({ gitdir, args: ["var", "-l"] });
        assert.doesNotMatch(new TextDecoder().decode(env.stdout), new RegExp(marker));
        const shell = await runGit({
          gitdir,
          args: ["-c", `alias.envdump=!env`, "envdump"],
        });
        const text = new TextDecoder().decode(shell.stdout);
        assert.doesNotMatch(text, new RegExp(marker));
        assert.match(text, /GIT_CONFIG_NOSYSTEM=1/);
      } finally {
        Deno.env.delete(marker);
      }
    } finally {
      await Deno.remove(gitdir, { recursive: true });
    }
  },
});
