/**
 * Subcommand tables of the package managers: subcommand → kind (`read`, `install`, `exec`,
 * `write`, `net`, `fetch`, `config`), and the build tools whose every use runs project code.
 *
 * @module
 */

/** What a package-manager subcommand does. */
export type Kind = "read" | "install" | "exec" | "write" | "net" | "fetch" | "config" | "unknown";

/** Build a table from `kind: "sub sub sub"` lists. */
function table(lists: Partial<Record<Kind, string>>): Record<string, Kind> {
  const out: Record<string, Kind> = {};
  for (const [kind, subs] of Object.entries(lists)) {
    for (const sub of subs!.split(/\s+/)) out[sub] = kind as Kind;
  }
  return out;
}

export const NODE_PM = table({
  install: "install i in ci add update up upgrade uninstall remove rm un r link dedupe " +
    "install-test it cit",
  exec: "rebuild test t tst run run-script start stop restart build exec pack lint format dev " +
    "typecheck workspace workspaces",
  write: "unlink prune version",
  fetch: "x dlx create init",
  read: "ls list ll la why explain root bin prefix help fund get licenses",
  net: "publish view info show search outdated audit ping whoami login logout doctor",
  config: "config set cache",
});

export const PIP = table({
  install: "install uninstall download wheel",
  read: "list show freeze check help inspect hash debug",
  config: "config cache",
  net: "search index",
});

export const CARGO = table({
  exec: "build b check c test t run r bench doc d clippy fmt generate miri nextest expand " +
    "package fix",
  write: "clean new init",
  read: "tree metadata read-manifest locate-project version help pkgid report",
  install: "add remove update fetch install vendor",
  config: "uninstall",
  net: "publish login search audit",
});

export const GO = table({
  exec: "build test run vet generate tool mod work install",
  write: "fmt clean fix",
  read: "list env version doc help bug telemetry",
  install: "get",
});

export const DENO = table({
  exec: "run test check fmt lint task bench compile repl eval serve lsp jupyter " +
    "approve-scripts bundle",
  read: "doc info coverage types completions help",
  write: "init",
  install: "install i add remove uninstall cache",
  net: "outdated publish",
  config: "upgrade clean",
  fetch: "x",
});

export const UV = table({
  exec: "run build",
  install: "sync add remove lock pip python",
  write: "venv init",
  fetch: "tool",
  read: "tree export version help",
  net: "publish",
  config: "cache",
});

export const POETRY = table({
  install: "install add remove update lock",
  exec: "run build shell",
  net: "publish",
  read: "show check env version",
  write: "init new",
  config: "config",
});

export const BUNDLE = table({
  install: "install update add",
  exec: "exec",
  read: "check list show",
  net: "outdated",
  config: "config",
  write: "init",
});

export const GEM = table({ install: "install", read: "list env", net: "search" });

export const COMPOSER = table({
  install: "install require update",
  exec: "run test",
  read: "show",
});

/** `npx`/`bunx` of a tool a project installs locally runs it (`code_execution`). */
export const LOCAL_TOOLS = new Set(
  ("tsc tsx ts-node jest vitest mocha eslint prettier biome vite next nuxt astro webpack rollup " +
    "esbuild playwright cypress nodemon turbo nx lerna jsdoc typedoc stylelint c8 nyc knip " +
    "depcheck svelte-kit svelte-check vue-tsc ng remix wrangler prisma drizzle-kit tailwindcss " +
    "postcss babel changeset semantic-release husky lint-staged concurrently rimraf cross-env " +
    "serve http-server").split(/\s+/),
);

/** Build tools, compilers, test runners and linters: every use runs project code. */
export const BUILD_TOOLS = (
  "make gmake cmake ctest ninja meson bazel bazelisk buck buck2 scons ant mvn mvnw gradle " +
  "gradlew sbt lein mix rebar3 dotnet swift swiftc xcodebuild msbuild just task rake gcc g++ cc " +
  "c++ clang clang++ rustc javac kotlinc scalac tsc esbuild swc babel webpack vite rollup parcel " +
  "zig ghc ghci cabal stack ocaml ocamlfind dune nasm as ld ar ranlib strip pytest py.test tox " +
  "nox jest vitest mocha ava karma rspec phpunit eslint prettier biome ruff black isort flake8 " +
  "pylint mypy pyright rubocop golangci-lint gofmt goimports rustfmt clang-format clang-tidy " +
  "shfmt hadolint markdownlint stylelint tflint ktlint swiftlint yamllint tsx ts-node nodemon " +
  "next nuxt astro jupyter ipython pre-commit turbo nx lerna playwright cypress coverage hugo " +
  "jekyll mkdocs sphinx-build doxygen protoc buf flutter gofumpt staticcheck gotestsum " +
  "benchstat cargo-nextest wasm-pack trunk elm elm-make purs spago node-gyp autoreconf autoconf " +
  "automake configure libtool pkg-config ccache sccache bear cppcheck perf gprof lcov gcov " +
  "pandoc latexmk pdflatex xelatex sqlite3 duckdb"
).split(/\s+/);
