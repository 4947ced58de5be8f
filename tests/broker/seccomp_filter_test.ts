import assert from "node:assert/strict";
import { unixSocketFilter, writeSeccompFilter } from "../../src/broker/_seccomp_filter.ts";
import { runShell } from "../../src/broker/run_shell.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";

Deno.test("unixSocketFilter() knows x86_64 and aarch64 and nothing else", () => {
  assert.equal(unixSocketFilter("x86_64")?.length, 13 * 8);
  assert.equal(unixSocketFilter("aarch64")?.length, 13 * 8);
  assert.equal(unixSocketFilter("riscv64"), null);
  // The egress variant drops exactly the three socket() instructions and keeps the rest.
  assert.equal(unixSocketFilter("x86_64", { allowUnixSockets: true })?.length, 10 * 8);
  // The last two instructions return ALLOW and ERRNO(EPERM); every jump lands inside.
  const bytes = unixSocketFilter("x86_64")!;
  const view = new DataView(bytes.buffer);
  assert.equal(view.getUint32(11 * 8 + 4, true), 0x7fff0000);
  assert.equal(view.getUint32(12 * 8 + 4, true), 0x00050001);
  for (let i = 0; i < 11; i++) {
    assert.ok(i + 1 + view.getUint8(i * 8 + 2) <= 12 && i + 1 + view.getUint8(i * 8 + 3) <= 12);
  }
});

const python = new Deno.Command("bash", { args: ["-c", "command -v python3"], stdout: "null" })
  .outputSync().code === 0;

sandboxTest(
  "the sandbox's seccomp filter refuses AF_UNIX sockets but keeps socketpair and TCP",
  async (t) => {
    if (!python || (await writeSeccompFilter()) === null) {
      console.error("skipping: needs python3 and an x86_64 or aarch64 machine");
      return;
    }
    await using f = await makeSandboxFixture();
    assert.ok(f.context.seccompFile, "sandboxContextFromEnvironment() writes the filter");
    const set = {
      readPaths: [f.workspace],
      writePaths: [f.workspace],
      network: { type: "none" as const },
      runBinaries: [],
      envNames: [],
    };
    const run = async (code: string) => {
      const result = await runShell(`python3 -c '${code}'`, {
        set,
        context: f.context,
        timeoutMs: 20_000,
      });
      return result.ok ? `ok ${result.output}` : `${result.error.kind} ${result.error.message}`;
    };
    await t.step("socket(AF_UNIX) is refused with EPERM", async () => {
      assert.match(
        await run("import socket; socket.socket(socket.AF_UNIX)"),
        /PermissionError: \[Errno 1\]/,
      );
    });
    await t.step("keyctl is refused with EPERM (the keyring is not namespaced)", async () => {
      const code = "import ctypes; l = ctypes.CDLL(None, use_errno=True); " +
        'r = l.syscall(250 if __import__("platform").machine() == "x86_64" else 219, 0, -3, 0, 0, 0); ' +
        'print("keyctl", r, ctypes.get_errno())';
      assert.match(await run(code), /keyctl -1 1\b/);
    });
    await t.step("socketpair and a loopback TCP server inside the sandbox still work", async () => {
      const code = 'import socket; a, b = socket.socketpair(); a.send(b"x"); ' +
        's = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); ' +
        'c = socket.create_connection(s.getsockname()); print(b.recv(1), "tcp-ok")';
      assert.match(await run(code), /^ok[\s\S]*b'x' tcp-ok/);
    });
  },
);

Deno.test("writeSeccompFilter() writes one shared file under a given directory and reuses it", async () => {
  if (unixSocketFilter(Deno.build.arch) === null) return;
  const dir = await Deno.makeTempDir();
  try {
    const first = await writeSeccompFilter(dir);
    const second = await writeSeccompFilter(dir);
    assert.equal(first, second);
    assert.ok(first?.startsWith(`${await Deno.realPath(dir)}/sandbox/seccomp-`), first ?? "");
    assert.deepEqual(await Deno.readFile(first!), unixSocketFilter(Deno.build.arch));
    assert.equal([...Deno.readDirSync(`${dir}/sandbox`)].length, 1, "no temporary file left");
    const fallback = await writeSeccompFilter(`${dir}/missing`);
    assert.ok(
      fallback?.includes("/odek-seccomp-"),
      "a missing directory falls back to a temp file",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
