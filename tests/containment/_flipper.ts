/**
 * The flipper of the race tests (test helper, run as its own process): exchanges two entries of
 * one scratch folder atomically (`renameat2(RENAME_EXCHANGE)`, the attack of issue 12) every
 * `periodMs` milliseconds until it is killed or `deadlineMs` have passed. It touches nothing
 * else: both names must be plain entries of `dir`, and `dir` must be under the system's
 * temporary directory. Prints `ready` once it has exchanged them the first time.
 *
 * With `pulseMs` > 0 it exchanges them, waits `pulseMs`, exchanges them back and waits `periodMs`:
 * the names are mostly in place and swapped only briefly, as an attacker timing its swaps to the
 * sandbox's start would do; with 0 it simply exchanges them every `periodMs`. A `periodMs` of 0
 * exchanges them as fast as it can (yielding to the event loop every 64 exchanges).
 * It prints `flips N` as it goes (after every wait, or every 64 exchanges without one), so a test
 * can wait until it has really run, and once more when it stops.
 *
 * Usage: `deno run --allow-ffi --allow-read --allow-env _flipper.ts <dir> <a> <b> <periodMs> <deadlineMs> [pulseMs]`
 *
 * @module
 */
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";

const [dir, a, b, period, deadline, pulse = "0"] = Deno.args;
const plain = (name: string) => /^[A-Za-z0-9_.-]+$/.test(name) && name !== "." && name !== "..";
const scratch = resolve(Deno.realPathSync(tmpdir()));
if (!dir || !resolve(dir).startsWith(`${scratch}/`) || !plain(a ?? "") || !plain(b ?? "")) {
  console.error(
    `flipper: refusing ${JSON.stringify(Deno.args)}: not two entries of a scratch folder`,
  );
  Deno.exit(2);
}
const libc = Deno.dlopen("libc.so.6", {
  renameat2: { parameters: ["i32", "buffer", "i32", "buffer", "u32"], result: "i32" },
});
const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2;
const cString = (text: string) => new TextEncoder().encode(`${text}\0`);
const [pathA, pathB] = [cString(join(dir, a)), cString(join(dir, b))];
const exchange = () => {
  if (libc.symbols.renameat2(AT_FDCWD, pathA, AT_FDCWD, pathB, RENAME_EXCHANGE) !== 0) {
    console.error(`flipper: renameat2 failed for ${a} and ${b} in ${dir}`);
    Deno.exit(1);
  }
};
const end = Date.now() + Number(deadline);
const wait = Number(period);
exchange();
exchange();
console.log("ready");
let flips = 2;
Deno.addSignalListener("SIGTERM", () => {
  console.log(`flips ${flips}`);
  Deno.exit(0);
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
while (Date.now() < end) {
  exchange();
  flips++;
  if (Number(pulse) > 0) {
    await sleep(Number(pulse));
    exchange();
    flips++;
  }
  if (wait > 0) {
    console.log(`flips ${flips}`);
    await sleep(wait);
  } else if (flips % 64 === 0) {
    console.log(`flips ${flips}`);
    await sleep(0);
  }
}
console.log(`flips ${flips}`);
