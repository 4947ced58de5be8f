/**
 * A stand-in tool child for pool tests: it speaks the protocol but misbehaves on request.
 * Tools: `echo` (answers its args), `crash` (writes to stderr and exits 3), `hang` (never
 * answers), `garbage` (writes a line that is not a response).
 *
 * @module
 */
const encoder = new TextEncoder();
const write = (line: string) => Deno.stdout.writeSync(encoder.encode(`${line}\n`));
let carry = "";
for await (const text of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  const lines = (carry + text).split("\n");
  carry = lines.pop() ?? "";
  for (const line of lines) {
    const request = JSON.parse(line);
    if (request.tool === "echo") {
      write(JSON.stringify({ id: request.id, ok: true, output: JSON.stringify(request.args) }));
    } else if (request.tool === "crash") {
      Deno.stderr.writeSync(encoder.encode("scripted child: crashing on purpose\n"));
      Deno.exit(3);
    } else if (request.tool === "garbage") {
      write("this is not json");
    }
  }
}
