// The browser side of tests/serve/browser_test.ts, run under Node (playwright-core reads /proc
// files Deno grants only with --allow-all). It drives Debian's chromium against the test's
// server on 127.0.0.1 and exits 0 when every step held; each step is printed as it passes.
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const { chromium } = require("playwright-core");
const { ORIGIN, TOKEN, ARTIFACTS, DENY_REASON, CHROMIUM } = process.env;
const TIMEOUT = 30_000;

function step(text) {
  console.log(`step: ${text}`);
}

function check(ok, what) {
  if (!ok) throw new Error(`failed: ${what}`);
}

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.goto(`${ORIGIN}/?token=${TOKEN}`);
  check(page.url() === `${ORIGIN}/`, `the token left the address bar (${page.url()})`);
  step("opened with the token");

  await page.locator("#composer-input").fill("run the two commands");
  await page.locator("#send").click();
  await page.locator(".approval").first().waitFor({ timeout: TIMEOUT });
  const preview = await page.locator(".approval .preview").first().textContent();
  const risk = await page.locator(".approval .risk").first().textContent();
  check(/approved-canary/.test(preview), `the exact command is shown (${preview})`);
  check(/network/.test(risk), `the risk class is shown (${risk})`);
  await page.locator(".approval .approve").first().click();
  step("approved the first shell call");

  await page.locator(".msg.assistant strong").first().waitFor({ timeout: TIMEOUT });
  check(await page.locator(".msg.assistant strong").first().textContent() === "world", "markdown");
  await page.locator('[data-call="sh1"].ok, [data-call="sh1"].failed').first().waitFor({
    timeout: TIMEOUT,
  });
  await page.locator('[data-call="sh1"] details summary').first().click();
  check(
    /not a git repository|fatal|git/i.test(
      await page.locator('[data-call="sh1"] .tool-output').first().textContent(),
    ),
    "the result is shown",
  );
  step("saw the streamed text and the call's result");

  await page.waitForFunction(
    () =>
      [...document.querySelectorAll(".approval .preview")].some((p) =>
        p.textContent === "git push"
      ),
    undefined,
    { timeout: TIMEOUT },
  );
  await page.screenshot({ path: join(ARTIFACTS, "desktop.png"), fullPage: true });
  await page.reload();
  await page.locator(".approval").first().waitFor({ timeout: TIMEOUT });
  check(
    await page.locator(".approval .preview").first().textContent() === "git push",
    "the question after the reload",
  );
  await page.locator("#cancel:not([hidden])").waitFor({ timeout: TIMEOUT });
  await page.locator('[data-call="sh1"]').first().waitFor({ timeout: TIMEOUT });
  step("reloaded mid-run: the run and its question are back");

  await page.locator(".approval .deny-reason").first().fill(DENY_REASON);
  await page.locator(".approval .deny").first().click();
  await page.waitForFunction(
    () => document.querySelector("#transcript").textContent.includes("All done"),
    undefined,
    { timeout: TIMEOUT },
  );
  await page.locator("#cancel[hidden]").waitFor({ state: "attached", timeout: TIMEOUT });
  step("denied the second call; the run finished");

  await page.locator("#search").fill("two commands");
  await page.locator(".session.current").waitFor({ timeout: TIMEOUT });
  await page.locator("#search").fill("nothing like this");
  await page.locator(".session").first().waitFor({ state: "detached", timeout: TIMEOUT });
  await page.locator("#search").fill("");
  step("found the session in the list");

  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(ARTIFACTS, "phone.png"), fullPage: true });
  await page.locator("#menu").click();
  await page.locator(".session.current").waitFor({ timeout: TIMEOUT });
  await page.screenshot({ path: join(ARTIFACTS, "phone-menu.png"), fullPage: true });
  check(errors.length === 0, `no page errors (${errors.join("; ")})`);
  step("screenshots saved");
} finally {
  await browser.close();
}
