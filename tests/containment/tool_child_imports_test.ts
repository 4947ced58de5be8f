import assert from "node:assert/strict";
import { join } from "node:path";
import { renderSandbox } from "../../src/broker/render_sandbox.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { assertContained } from "./_check.ts";
import { type ContainmentFixture, makeContainmentFixture } from "./_fixture.ts";

/**
 * Deno does not permission-check static imports, `import … with { type: "text" | "json" }` or
 * remote imports (design §2). A tool child runs only odek's own entry, but should code in it
 * ever import a path the model chose, the child's configuration must still hold: these run a
 * module with exactly the flags and mounts the renderer gives the file child at read scope.
 */
const ATTEMPTS: { name: string; source: (f: ContainmentFixture) => string }[] = [
  {
    name: "static text import of ODEK_HOME/secret.txt",
    source: (f) => `import s from "${f.odek}/secret.txt" with { type: "text" };\nconsole.log(s);`,
  },
  {
    name: "static JSON import of ODEK_HOME/config.json",
    source: (f) => `import c from "${f.odek}/config.json" with { type: "json" };\nconsole.log(c);`,
  },
  {
    name: "dynamic text import of ~/.ssh/id_rsa",
    source: (f) =>
      `const m = await import("${f.home}/.ssh/id_rsa", { with: { type: "text" } });\nconsole.log(m.default);`,
  },
  {
    name: "static text import through a planted symlink",
    source: (f) => `import s from "${f.ws}/link_to_secret" with { type: "text" };\nconsole.log(s);`,
  },
  {
    name: "remote import from host loopback",
    source: (f) => `import "http://127.0.0.1:${f.port}/x.ts";\nconsole.log("imported");`,
  },
  {
    name: "Deno.readTextFile of ODEK_HOME and of the symlink",
    source: (f) =>
      `for (const p of ["${f.odek}/secret.txt", "${f.ws}/link_to_secret", "${f.home}/.ssh/id_rsa"]) {\n  try { console.log(await Deno.readTextFile(p)); } catch (e) { console.log(String(e)); }\n}`,
  },
  {
    name: "fetch and Deno.connect to host loopback",
    source: (f) =>
      `try { await fetch("http://127.0.0.1:${f.port}/"); } catch (e) { console.log(String(e)); }\ntry { await Deno.connect({ hostname: "127.0.0.1", port: ${f.port} }); } catch (e) { console.log(String(e)); }\ntry { await Deno.connect({ transport: "unix", path: "${f.sock}" }); } catch (e) { console.log(String(e)); }`,
  },
  {
    name: "Deno.env and Deno.Command",
    source: () =>
      `try { console.log(JSON.stringify(Deno.env.toObject())); } catch (e) { console.log(String(e)); }\ntry { await new Deno.Command("cat", { args: ["/proc/1/environ"] }).output(); } catch (e) { console.log(String(e)); }`,
  },
];

sandboxTest(
  "a tool child's configuration keeps imports and Deno APIs in its read scope",
  async (t) => {
    for (const attempt of ATTEMPTS) {
      await t.step(attempt.name, async () => {
        await using f = await makeContainmentFixture();
        const entry = join(f.ws, "attack.ts");
        await Deno.writeTextFile(entry, attempt.source(f));
        const before = await f.snapshot();
        const hitsBefore = f.hits();
        const set = {
          readPaths: [f.ws],
          writePaths: [],
          network: { type: "none" as const },
          runBinaries: [],
          envNames: [],
        };
        const { argv, env } = renderSandbox(set, f.context, { kind: "tool_child", entry });
        const out = await new Deno.Command(argv[0], {
          args: argv.slice(1),
          cwd: f.ws,
          clearEnv: true,
          env,
          stdin: "null",
        }).output();
        const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
        await new Promise((resolve) => setTimeout(resolve, 20));
        assertContained(f, attempt.name, {
          result: { ok: true, output: `exit ${out.code}\n${text}` },
          scope: set,
          before,
          after: await f.snapshot(),
          hitsBefore,
        });
      });
    }
  },
);

sandboxTest("control: the same tool child does import a text file inside its scope", async () => {
  await using f = await makeContainmentFixture();
  const entry = join(f.ws, "control.ts");
  await Deno.writeTextFile(
    entry,
    `import s from "${f.ws}/notes.txt" with { type: "text" };\nconsole.log(s.trim());`,
  );
  const set = {
    readPaths: [f.ws],
    writePaths: [],
    network: { type: "none" as const },
    runBinaries: [],
    envNames: [],
  };
  const { argv, env } = renderSandbox(set, f.context, { kind: "tool_child", entry });
  const out = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: f.ws,
    clearEnv: true,
    env,
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  // Either the import works (the attempts above were really tried) or text imports are refused
  // outright in the child's configuration; both are fine, anything else is a broken fixture.
  assert.ok(
    /workspace notes/.test(text) || /unstable-raw-imports|not supported|type "text"/i.test(text),
    text,
  );
  console.error(`control text import in a tool child: ${text.trim().split("\n")[0]}`);
});
