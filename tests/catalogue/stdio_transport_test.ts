// A tool child's end of the protocol (tools/_catalogue/stdio_transport.ts): through real pipes
// to a child process with lines larger than a pipe and than one read, multi-byte characters split
// across reads, partial writes, concurrent sends that never interleave, and a gone core.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { streamTransport } from "../../tools/_catalogue/line_transport.ts";
import { type ByteWriter, stdioTransport } from "../../tools/_catalogue/stdio_transport.ts";

const ECHO = fileURLToPath(new URL("./fixtures/echo_lines.ts", import.meta.url));

Deno.test("lines cross real pipes whole: a 3 MB line, multi-byte text and a last line without newline", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", ECHO],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const core = streamTransport(child.stdout, child.stdin);
  const big = `a${"é".repeat(1_500_000)}z`; // 3 MB of two-byte characters
  const lines = ['{"n":1}', big, "ünïcødé ✓ 𝄞 end"];
  await core.send(lines[0]);
  await core.send(lines[1]);
  await core.send(lines[2]);
  await core.close();
  const answers: unknown[] = [];
  for await (const line of core.receive()) answers.push(JSON.parse(line));
  assert.equal((await child.status).code, 0);
  assert.deepEqual(answers, lines.map((l) => [l.length, l.slice(0, 10), l.slice(-10)]));
});

/** A writer that takes at most `step` bytes a call, after a pause, recording every write. */
function slowWriter(step: number): ByteWriter & { text: () => string; closed: boolean } {
  const parts: Uint8Array[] = [];
  return {
    closed: false,
    async write(bytes) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      parts.push(bytes.slice(0, step));
      return Math.min(step, bytes.length);
    },
    close() {
      this.closed = true;
    },
    text: () => new TextDecoder().decode(new Uint8Array(parts.flatMap((p) => [...p]))),
  };
}

const noInput = { read: () => Promise.resolve(null) };

Deno.test("concurrent sends over partial writes arrive whole and in order", async () => {
  const writer = slowWriter(3);
  const transport = stdioTransport(noInput, writer);
  const sent = Array.from({ length: 20 }, (_, i) => `line ${i} ${"x".repeat(i)} ✓`);
  await Promise.all(sent.map((line) => transport.send(line)));
  await transport.close();
  assert.equal(writer.text(), sent.map((line) => `${line}\n`).join(""));
  assert.ok(writer.closed);
});

Deno.test("a character split across reads decodes whole; blank lines are skipped", async () => {
  const bytes = new TextEncoder().encode("𝄞a\n\n\nb𝄞");
  const chunks = [...bytes].map((b) => new Uint8Array([b])); // one byte a read
  const reader = {
    read(buffer: Uint8Array) {
      const next = chunks.shift();
      if (next === undefined) return Promise.resolve(null);
      buffer.set(next);
      return Promise.resolve(next.length);
    },
  };
  const lines: string[] = [];
  for await (const line of stdioTransport(reader, slowWriter(64)).receive()) lines.push(line);
  assert.deepEqual(lines, ["𝄞a", "b𝄞"]);
});

Deno.test("a send after close, or to a gone core, rejects; the sends after a failure still run", async () => {
  let fail = true;
  const writer: ByteWriter = {
    write: (bytes) =>
      fail
        ? Promise.reject(new Deno.errors.BrokenPipe("the core is gone"))
        : Promise.resolve(bytes.length),
    close() {},
  };
  const transport = stdioTransport(noInput, writer);
  await assert.rejects(transport.send("one"), Deno.errors.BrokenPipe);
  fail = false;
  await transport.send("two");
  await transport.close();
  await transport.close(); // idempotent
  await assert.rejects(transport.send("three"), /closed/);
});
