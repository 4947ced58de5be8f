/**
 * A stand-in tool child for pool tests: it speaks the child protocol but misbehaves on request.
 * Tools: `echo` (answers its args), `crash` (writes to stderr and exits 3), `hang` (never
 * answers, but stops when cancelled: it then answers `cancelled`), `hanging` (how many `hang`
 * calls are still running), `stuck` (never answers and ignores a cancel), `garbage` (writes a
 * line that is not a message).
 *
 * @module
 */
const encoder = new TextEncoder();
const write = (message: unknown) =>
  Deno.stdout.writeSync(
    encoder.encode(
      `${typeof message === "string" ? message : JSON.stringify(message)}\n`,
    ),
  );
const hanging = new Set<number>();
let carry = "";
for await (const text of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  const lines = (carry + text).split("\n");
  carry = lines.pop() ?? "";
  for (const line of lines) {
    const message = JSON.parse(line);
    if (message.type === "cancel") {
      if (hanging.delete(message.id)) {
        write({
          type: "result",
          id: message.id,
          ok: false,
          error: { kind: "cancelled", message: "hang stopped" },
        });
      }
      continue;
    }
    if (message.type !== "call") continue;
    if (message.tool === "echo") {
      write({
        type: "result",
        id: message.id,
        ok: true,
        output: JSON.stringify(message.args),
      });
    } else if (message.tool === "hanging") {
      write({
        type: "result",
        id: message.id,
        ok: true,
        output: String(hanging.size),
      });
    } else if (message.tool === "hang") {
      hanging.add(message.id);
    } else if (message.tool === "crash") {
      Deno.stderr.writeSync(encoder.encode("scripted child: crashing on purpose\n"));
      Deno.exit(3);
    } else if (message.tool === "garbage") {
      write("this is not json");
    }
  }
}
