/**
 * A library tool's handler (test fixture, copied outside the checkout before use) that works
 * until its call is cancelled, then notes in the marker file `args.name` that it stopped.
 *
 * @module
 */

/** The handler: the default export of a library tool's module. */
export default function waitForCancel(
  args: { name: string },
  context: { workspace: string; signal: AbortSignal },
): Promise<string> {
  return new Promise((_resolve, reject) => {
    context.signal.addEventListener("abort", () => {
      Deno.writeTextFileSync(`${context.workspace}/${args.name}`, "stopped\n");
      reject(context.signal.reason);
    }, { once: true });
  });
}
