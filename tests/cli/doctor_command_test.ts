import assert from "node:assert/strict";
import { renderDoctorReport } from "../../src/cli/doctor_command.ts";
import type { DoctorReport } from "../../src/cli/doctor_report.ts";

function report(overrides: Partial<DoctorReport> = {}): DoctorReport {
  const layer = (status: "active" | "inactive" | "unavailable", detail: string) => ({
    status,
    detail,
  });
  return {
    ok: true,
    problems: [],
    odek: {
      version: "0.1.0",
      configFile: "/h/.odek/config.jsonc",
      configFileExists: false,
      odekHome: "/h/.odek",
    },
    installDir: "/opt/odek",
    launcher: {
      path: "/h/.local/bin/odek",
      binary: "/h/.local/bin/odek-deno-2.9.6/deno",
      code: { runs: "bundle", bundle: "/h/.local/bin/odek-deno-2.9.6/bundle-1" },
    },
    deno: {
      core: { version: "2.9.6", path: "/usr/bin/deno" },
      children: { version: "2.9.6", path: "/usr/bin/deno", source: "self", compiled: false },
    },
    sandbox: { configured: "bwrap", started: true },
    layers: {
      denoFlags: layer("active", "scoped flags"),
      bwrap: {
        ...layer("active", "a trivial sandbox started"),
        path: "/usr/bin/bwrap",
        version: "0.8.0",
      },
      networkNamespace: layer("active", "interfaces inside a sandbox: lo"),
      sharedLoopback: layer("active", "the programs of a session share one network namespace"),
      egressGuard: layer(
        "active",
        "an approved network part leaves only through odek's egress proxy",
      ),
      docker: {
        ...layer("unavailable", "the docker engine is not reachable"),
        client: "/usr/bin/docker",
        clientVersion: "28.2.2",
        engine: false,
        engineVersion: null,
        image: false,
        started: false,
      },
      pidsLimit: layer("active", "1024 processes and threads per shell sandbox"),
      seccomp: layer("active", "no Unix-domain sockets, io_uring, keyring calls"),
      rootSecrets: layer("unavailable", "none hidden"),
    },
    workspace: {
      requested: "/w",
      kind: "current directory",
      ok: true,
      path: "/w",
      readOnly: "the workspace /w is on a read-only file system: every write to it will fail",
    },
    addDirs: [],
    config: {
      files: [
        { kind: "secrets", path: "/h/.odek/secrets.env", status: "absent" },
        { kind: "user", path: "/h/.odek/config.jsonc", status: "absent" },
        { kind: "project", path: "/w/odek.jsonc", status: "read" },
        {
          kind: "project",
          path: "/w/odek.json",
          status: "misnamed",
          detail: "/w/odek.json is not read",
        },
      ],
      warnings: ['/w/odek.jsonc: "baseUrl" ignored: a project may not choose'],
    },
    ...overrides,
  };
}

Deno.test("renderDoctorReport() shows every layer with its status, the versions and the paths", () => {
  const text = renderDoctorReport(report());
  for (
    const expected of [
      /^odek 0\.1\.0\n/,
      /config file +\/h\/\.odek\/config\.jsonc \(absent: defaults\)/,
      /ODEK_HOME +\/h\/\.odek/,
      /tool children +2\.9\.6 \(\/usr\/bin\/deno, the running deno\)/,
      /sandbox "bwrap": works/,
      /bwrap 0\.8\.0 +active · a trivial sandbox started/,
      /network namespace +active · interfaces inside a sandbox: lo/,
      /shared loopback +active · the programs of a session share one network namespace/,
      /egress guard +active · an approved network part leaves only through odek's egress proxy/,
      /pids limit +active · 1024 processes/,
      /seccomp filter +active · no Unix-domain sockets/,
      /root secrets +not available · none hidden/,
      /configuration layers \(later wins\)\n {2}secrets\.env +\/h\/\.odek\/secrets\.env · absent\n {2}user +\/h\/\.odek\/config\.jsonc · absent\n {2}project +\/w\/odek\.jsonc · read\n {2}project +\/w\/odek\.json · NOT READ \(misnamed\)/,
      /warning: \/w\/odek\.jsonc: "baseUrl" ignored/,
      /docker 28\.2\.2 +not available/,
      /workspace \(current directory\)\n +ok +\/w/,
      /WARNING +the workspace \/w is on a read-only file system/,
      /ok: odek can run here\n$/,
    ]
  ) {
    assert.match(text, expected);
  }
});

Deno.test("renderDoctorReport() lists the problems with their fixes when something cannot work", () => {
  const text = renderDoctorReport(report({
    ok: false,
    problems: ['sandbox is "docker" but no container started (no engine): start the docker engine'],
    sandbox: { configured: "docker", started: false },
    workspace: {
      requested: "/h",
      kind: "current directory",
      ok: false,
      error: 'Cannot use workspace "/h": it contains odek\'s protected directory /h/.odek.',
    },
    addDirs: [{ spec: "/x:ro", ok: true, path: "/x", readOnly: true }],
  }));
  assert.match(text, /sandbox "docker": CANNOT START/);
  assert.match(text, /UNUSABLE +Cannot use workspace "\/h"/);
  assert.match(text, /added directories\n +ok +\/x \(read-only\)/);
  assert.match(text, /1 problem:\n {2}- sandbox is "docker" but no container started/);
});

Deno.test("renderDoctorReport() shows the launcher and the binary odek runs with", () => {
  const text = renderDoctorReport(report());
  assert.match(text, /^ {2}launcher {12}\/h\/\.local\/bin\/odek$/m);
  assert.match(text, /^ {2}binary {14}\/h\/\.local\/bin\/odek-deno-2\.9\.6\/deno$/m);
  const bare = renderDoctorReport(report({
    launcher: {
      path: null,
      binary: "/root/.npm/_npx/abc/deno",
      warning: "inside npm's npx cache",
      code: { runs: "sources" },
    },
  }));
  assert.match(
    bare,
    /launcher {12}none: started with deno run or deno task \(install one: deno task install\)/,
  );
  assert.match(bare, /binary {14}\/root\/\.npm\/_npx\/abc\/deno \(inside npm's npx cache\)/);
  assert.match(
    text,
    /^ {2}core code {11}the installed bundle \/h\/\.local\/bin\/odek-deno-2\.9\.6\/bundle-1$/m,
  );
  assert.match(bare, /^ {2}core code {11}the sources of \/opt\/odek$/m);
  const stale = renderDoctorReport(report({
    launcher: {
      path: "/h/.local/bin/odek",
      binary: "/h/.local/bin/odek-deno-2.9.6/deno",
      code: { runs: "sources", bundle: "/b", stale: "src/a.ts changed since the bundle was built" },
    },
  }));
  assert.match(
    stale,
    /core code {11}the sources of \/opt\/odek: the installed bundle is out of date \(src\/a\.ts changed since the bundle was built\); run deno task install there to rebuild it/,
  );
});
