/**
 * Open a URL in the operator's browser (the browser step of an MCP server's OAuth login), when
 * this machine has a desktop: `xdg-open <url>` with a fixed argv, only for http(s) URLs, only
 * when `DISPLAY` or `WAYLAND_DISPLAY` is set. The URL is always printed too; this is a
 * convenience.
 *
 * @module
 */

/** What the browser gets of odek's environment: the desktop session, never a secret. */
const PASSED = [
  "DISPLAY",
  "WAYLAND_DISPLAY",
  "XAUTHORITY",
  "XDG_RUNTIME_DIR",
  "XDG_CURRENT_DESKTOP",
  "DBUS_SESSION_BUS_ADDRESS",
  "BROWSER",
  "HOME",
  "PATH",
  "LANG",
];

/** Where xdg-open is looked for. */
const XDG_OPEN = ["/usr/bin/xdg-open", "/usr/local/bin/xdg-open", "/bin/xdg-open"];

/**
 * @param url the URL (only `http:` and `https:` are opened)
 * @param env odek's environment: the browser gets only the desktop session's variables
 * @returns whether a browser was asked to open it
 *
 * @example Nothing is opened without a desktop
 * ```ts
 * import { openInBrowser } from "./open_in_browser.ts";
 * if (await openInBrowser(new URL("http://127.0.0.1:9/authorize"), {})) throw new Error("opened");
 * ```
 */
export function openInBrowser(url: URL, env: Record<string, string>): Promise<boolean> {
  if (url.protocol !== "http:" && url.protocol !== "https:") return Promise.resolve(false);
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return Promise.resolve(false);
  const program = XDG_OPEN.find((path) => {
    try {
      return Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  });
  if (program === undefined) return Promise.resolve(false);
  try {
    const child = new Deno.Command(program, {
      args: [url.href],
      cwd: "/",
      env: Object.fromEntries(PASSED.filter((k) => env[k] !== undefined).map((k) => [k, env[k]])),
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    child.unref();
    return Promise.resolve(true);
  } catch {
    return Promise.resolve(false);
  }
}
