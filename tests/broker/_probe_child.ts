/**
 * A probe run in the compute child's exact configuration (no `--allow-*` flag, no workspace
 * mounted): for each request it attempts every kind of access and answers with what each attempt
 * threw (`error.name`), or `"allowed"`, as a child-protocol result. Args: `{ file, url, port }`.
 *
 * @module
 */
const encoder = new TextEncoder();

async function attempt(fn: () => unknown): Promise<string> {
  try {
    await fn();
    return "allowed";
  } catch (error) {
    return (error as Error).name;
  }
}

async function probe(args: { file: string; url: string; port: number }) {
  return {
    readTextFile: await attempt(() => Deno.readTextFile(args.file)),
    readDir: await attempt(() => Array.fromAsync(Deno.readDir("/"))),
    stat: await attempt(() => Deno.stat(args.file)),
    writeTextFile: await attempt(() => Deno.writeTextFile("/tmp/probe.txt", "x")),
    fetch: await attempt(() => fetch(args.url)),
    connect: await attempt(() => Deno.connect({ hostname: "127.0.0.1", port: args.port })),
    envGet: await attempt(() => Deno.env.get("HOME")),
    envToObject: await attempt(() => Deno.env.toObject()),
    run: await attempt(() => new Deno.Command("true").output()),
    hostname: await attempt(() => Deno.hostname()),
    ffi: await attempt(() => Deno.dlopen("libc.so.6", {})),
  };
}

let carry = "";
for await (const text of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  const lines = (carry + text).split("\n");
  carry = lines.pop() ?? "";
  for (const line of lines) {
    const request = JSON.parse(line);
    if (request.type !== "call") continue;
    const output = JSON.stringify(await probe(request.args));
    Deno.stdout.writeSync(
      encoder.encode(
        `${JSON.stringify({ type: "result", id: request.id, ok: true, output })}\n`,
      ),
    );
  }
}
