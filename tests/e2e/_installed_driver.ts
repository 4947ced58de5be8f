/**
 * Runs inside a network namespace the test created (`unshare --net`: only loopback): brings `lo`
 * up, starts the fake model server on 127.0.0.1, and drives the installed `odek` launcher — one
 * run with a `shell` and a `read_file` call, then one stopped by SIGTERM mid-command. Prints one
 * JSON line with what it saw. Test helper; not a test itself.
 *
 * @module
 */
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { processesAppear, uniqueSleep } from "../broker/_processes.ts";

const { launcher, home, odekHome, workspace, denoDir } = JSON.parse(Deno.args[0]) as {
  launcher: string;
  home: string;
  odekHome: string;
  workspace: string;
  denoDir: string;
};

const up = await new Deno.Command("ip", { args: ["link", "set", "lo", "up"] }).output();
const interfaces = Deno.networkInterfaces().map((i) => i.name);
const env = {
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  HOME: home,
  ODEK_HOME: odekHome,
  NO_COLOR: "1",
  DENO_DIR: denoDir,
  ODEK_ALLOW_DOMAINS: "localhost",
};
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

await using server = await startFakeOpenAIServer({
  turns: [
    {
      toolCalls: [{
        id: "s1",
        name: "shell",
        arguments: { command: "echo made-by-shell > out.txt" },
      }],
    },
    { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "out.txt" } }] },
    { text: "The file says made-by-shell." },
  ],
});
const run = await new Deno.Command(launcher, {
  args: ["run", "--base-url", server.url, "make out.txt and read it"],
  env,
  clearEnv: true,
  cwd: workspace,
  stdout: "piped",
  stderr: "piped",
}).output();
const lastRequest = JSON.stringify(server.requests.at(-1)?.body.messages ?? []);

const doctor = await new Deno.Command(launcher, {
  args: ["doctor", "--json"],
  env,
  clearEnv: true,
  cwd: workspace,
  stdout: "piped",
  stderr: "piped",
}).output();
const report = JSON.parse(decode(doctor.stdout) || "{}");

const marker = uniqueSleep();
await using second = await startFakeOpenAIServer({
  turns: [
    { toolCalls: [{ id: "long", name: "shell", arguments: { command: marker } }] },
    { text: "never asked" },
  ],
});
const child = new Deno.Command(launcher, {
  args: ["run", "--session", "stopped", "--base-url", second.url, "wait a long time"],
  env,
  clearEnv: true,
  cwd: workspace,
  stdout: "piped",
  stderr: "piped",
}).spawn();
const appeared = (await processesAppear(marker)).length > 0;
child.kill("SIGTERM");
const stopped = await child.output();
const journal = await Deno.readTextFile(join(odekHome, "sessions", "stopped.jsonl")).catch(() =>
  ""
);

console.log(JSON.stringify({
  loUp: up.success,
  interfaces,
  run: { code: run.code, stdout: decode(run.stdout), stderr: decode(run.stderr) },
  requests: server.requests.length,
  sawShellAndRead: lastRequest.includes("made-by-shell") && lastRequest.includes("r1"),
  fileMade: await Deno.readTextFile(join(workspace, "out.txt")).catch(() => null),
  doctor: { launcher: report.launcher?.path ?? null, binary: report.launcher?.binary ?? null },
  term: {
    appeared,
    code: stopped.code,
    stderr: decode(stopped.stderr),
    interruptedSaved: /interrupted/.test(journal) && journal.includes('"long"'),
  },
}));
