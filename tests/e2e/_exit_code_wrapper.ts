/**
 * Runs a command on the terminal it was started on (stdio inherited) and writes its exit code to
 * a file: tmux 3.3 sometimes marks a pane dead without its exit status, so the interactive tests
 * read the code from here. Usage: `deno run --allow-run --allow-write _exit_code_wrapper.ts
 * <code-file> <program> [args…]`.
 *
 * @module
 */
const [codeFile, program, ...args] = Deno.args;
const child = new Deno.Command(program, {
  args,
  stdin: "inherit",
  stdout: "inherit",
  stderr: "inherit",
}).spawn();
// The session's signals go to odek (its process group is the terminal's), not to this wrapper.
for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, () => {});
const status = await child.status;
const code = status.signal
  ? 128 + (status.signal === "SIGTERM" ? 15 : status.signal === "SIGINT" ? 2 : 9)
  : status.code;
await Deno.writeTextFile(codeFile, `${code}\n`);
Deno.exit(0); // the signal listeners above would keep this process waiting
