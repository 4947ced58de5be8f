/**
 * Makes sure bubblewrap (`bwrap`) is present before the demo or the tests run. When it is missing
 * and this is root with apt-get, it installs it and says so. Otherwise: `--demo` stops with the
 * exact install command (exit 1); `--tests` prints why the sandbox tests will be skipped and
 * carries on (exit 0).
 *
 * @module
 */
const INSTALL = "apt-get install -y bubblewrap";
const mode = Deno.args.includes("--demo") ? "demo" : "tests";

async function works(cmd: string, args: string[]): Promise<boolean> {
  try {
    const out = await new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output();
    return out.success;
  } catch {
    return false;
  }
}

async function run(cmd: string, args: string[]): Promise<boolean> {
  const out = await new Deno.Command(cmd, { args, stdout: "inherit", stderr: "inherit" }).output();
  return out.success;
}

if (await works("bwrap", ["--version"])) Deno.exit(0);

const isRoot = Deno.uid() === 0;
if (isRoot && (await works("apt-get", ["--version"]))) {
  console.error(
    `odek: bwrap (bubblewrap) is missing; installing it as root with: apt-get update && ${INSTALL}`,
  );
  const ok = (await run("apt-get", ["update", "-qq"])) &&
    (await run("apt-get", ["install", "-y", "-qq", "bubblewrap"]));
  if (ok && (await works("bwrap", ["--version"]))) {
    console.error("odek: bubblewrap installed.");
    Deno.exit(0);
  }
  console.error("odek: installing bubblewrap failed (see apt-get's output above).");
}

const hint = isRoot ? INSTALL : `sudo ${INSTALL}`;
if (mode === "demo") {
  console.error(
    `odek: the demo runs its shell commands in a bubblewrap sandbox, and bwrap is not installed.\nInstall it with:\n  ${hint}\nthen run the demo again.`,
  );
  Deno.exit(1);
}
console.error(
  `odek: bwrap is not installed: the sandbox-dependent tests will be skipped (each prints why).\nInstall it with:\n  ${hint}`,
);
Deno.exit(0);
