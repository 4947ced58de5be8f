import assert from "node:assert/strict";
import { launchHint, stdioServerSpec } from "../../src/mcp/_stdio_spec.ts";

Deno.test("stdioServerSpec(): an allow-listed environment without secrets, named variables, the operator's values, paths from the workspace", () => {
  const spec = stdioServerSpec("gh", {
    command: "node",
    args: ["/opt/gh/index.js"],
    envNames: ["GITHUB_TOKEN", "MISSING"],
    env: { LOG_LEVEL: "debug" },
    writablePaths: [".", "out"],
    readPaths: ["/opt/gh"],
    network: true,
  }, {
    workspace: "/srv/ws",
    env: {
      TZ: "UTC",
      LC_ALL: "C",
      LC_TOKEN: "not passed: secret-looking",
      ODEK_API_KEY: "sk-not-passed",
      AWS_SECRET_ACCESS_KEY: "not passed",
      GITHUB_TOKEN: "ghp_named",
      PATH: "/home/u/bin:/usr/bin",
    },
    logDir: "/h/.odek/logs/mcp",
    allowDomains: ["github.com"],
  });
  assert.deepEqual(spec.argv, ["node", "/opt/gh/index.js"]);
  assert.deepEqual(spec.env, {
    TZ: "UTC",
    LC_ALL: "C",
    GITHUB_TOKEN: "ghp_named",
    LOG_LEVEL: "debug",
  });
  assert.deepEqual(spec.writePaths, ["/srv/ws", "/srv/ws/out"]);
  assert.deepEqual(spec.readPaths, ["/opt/gh"]);
  assert.equal(spec.network, true);
  assert.deepEqual(spec.allowDomains, ["github.com"]);
  assert.equal(spec.logFile, "/h/.odek/logs/mcp/gh.log");
});

Deno.test("launchHint(): npx and its kin need network; installed servers do not", () => {
  assert.match(
    launchHint({ command: "npx", args: ["-y", "x"] }),
    /cannot work in a sandbox without network/,
  );
  assert.match(launchHint({ command: "/usr/bin/uvx" }), /install the server/);
  assert.equal(launchHint({ command: "npx", network: true }), "");
  assert.equal(launchHint({ command: "node" }), "");
});
