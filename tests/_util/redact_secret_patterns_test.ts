import assert from "node:assert/strict";
import { redactSecretPatterns } from "../../src/_util/redact_secret_patterns.ts";

const R = "[REDACTED]";

/** [format, text with a secret, expected text] */
const POSITIVES: [string, string, string][] = [
  ["OpenAI legacy", "key sk-abcdefghij0123456789ABCDEFGHIJ012345 end", `key ${R} end`],
  ["OpenAI project", "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34_-xyz", R],
  ["OpenAI service account", "sk-svcacct-Zz9Yy8Xx7Ww6Vv5Uu4Tt3", R],
  ["Anthropic", "x=sk-ant-api03-abcDEF123456ghiJKL789012-mnoPQR", `x=${R}`],
  ["GitHub classic", "ghp_0123456789abcdefghijABCDEFGHIJ012345", R],
  ["GitHub OAuth", "gho_0123456789abcdefghijABCDEFGHIJ012345", R],
  ["GitHub server", "ghs_0123456789abcdefghijABCDEFGHIJ012345", R],
  ["GitHub user", "ghu_0123456789abcdefghijABCDEFGHIJ012345", R],
  ["GitHub fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", R],
  ["GitLab", "glpat-abcdefghij0123456789", R],
  ["AWS access key id", "id AKIAIOSFODNN7EXAMPLE.", `id ${R}.`],
  ["AWS session key id", "ASIAIOSFODNN7EXAMPLE", R],
  [
    "AWS secret (ini)",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    `aws_secret_access_key = ${R}`,
  ],
  [
    "AWS secret (JSON)",
    '{"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCY"}',
    `{"SecretAccessKey": "${R}"}`,
  ],
  ["Slack bot", "xoxb-1234567890-0987654321-AbCdEfGh", R],
  ["Slack user", "xoxp-1234567890-abc", R],
  ["Stripe", "sk_live_0123456789abcdefABCDEF", R],
  ["Google API key", "AIzaSyA0123456789abcdefghijklmnopqrstuv", R],
  ["npm", "npm_0123456789abcdefghijABCDEFGHIJ012345", R],
  ["Hugging Face", "hf_abcdefghijklmnopqrstuvwxyz0123456", R],
  [
    "JWT",
    "Bearer-less eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    `Bearer-less ${R}`,
  ],
  [
    "PEM RSA",
    "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAbC=\n-----END RSA PRIVATE KEY-----\nb",
    `a\n-----BEGIN RSA PRIVATE KEY----- ${R} -----END RSA PRIVATE KEY-----\nb`,
  ],
  [
    "PEM PKCS#8 unterminated",
    "-----BEGIN PRIVATE KEY-----\nMIIEvQ\nrest",
    `-----BEGIN PRIVATE KEY----- ${R} -----END PRIVATE KEY-----`,
  ],
  [
    "PEM OpenSSH",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----",
    `-----BEGIN OPENSSH PRIVATE KEY----- ${R} -----END OPENSSH PRIVATE KEY-----`,
  ],
  ["Postgres URL", "postgres://app:s3cr3t@db:5432/x", `postgres://app:${R}@db:5432/x`],
  [
    "MongoDB SRV URL",
    "mongodb+srv://u:p%40ss@c0.example.net/db",
    `mongodb+srv://u:${R}@c0.example.net/db`,
  ],
  ["Redis URL", "redis://:hunter2@cache:6379", `redis://:${R}@cache:6379`],
  ["Authorization header", "Authorization: Basic dXNlcjpwYXNz", `Authorization: Basic ${R}`],
  ["Bearer token", "curl -H 'x: Bearer abcdefghijklmnopqrstuvwxyz'", `curl -H 'x: Bearer ${R}'`],
  [
    ".npmrc",
    "//registry.npmjs.org/:_authToken=0f1e2d3c-aaaa-bbbb-cccc-1234567890ab",
    `//registry.npmjs.org/:_authToken=${R}`,
  ],
  [
    ".netrc",
    "machine api.example.com login ada password s3cr3t",
    `machine api.example.com login ada password ${R}`,
  ],
  [
    "GCP service account",
    '{"private_key_id": "0a1b2c", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----\\n", "client_email": "a@b.iam"}',
    `{"private_key_id": "${R}", "private_key": "${R}", "client_email": "a@b.iam"}`,
  ],
  [".env line", "DB_PASSWORD=hunter2", `DB_PASSWORD=${R}`],
  ["export line", "export API_KEY=abc123", `export API_KEY=${R}`],
  ["double-quoted", 'SECRET="a b c"', `SECRET="${R}"`],
  ["single-quoted", "TOKEN='a b c'", `TOKEN='${R}'`],
  ["YAML", "  password: hunter2 # comment", `  password: ${R} # comment`],
  ["YAML list", "- client_secret: abc", `- client_secret: ${R}`],
  ["camelCase JSON", '{"apiKey": "abc", "port": 1}', `{"apiKey": "${R}", "port": 1}`],
  ["Python dict", "{'auth_token': 'abc'}", `{'auth_token': '${R}'}`],
  ["Makefile", "TOKEN := abc", `TOKEN := ${R}`],
  [
    "inside JSON text",
    '{"content":"A=1\\nMY_SECRET=zz\\n"}',
    `{"content":"A=1\\nMY_SECRET=${R}\\n"}`,
  ],
  ["escaped JSON key", '{\\"password\\": \\"p w\\"}', `{\\"password\\": \\"${R}\\"}`],
];

Deno.test("redactSecretPatterns() redacts each format", async (t) => {
  for (const [name, text, expected] of POSITIVES) {
    await t.step(name, () => assert.equal(redactSecretPatterns(text), expected));
  }
});

/** Near misses: text that looks like a secret format but is not one. */
const NEGATIVES: [string, string][] = [
  ["sk- slug without digits", "sk-learn-preprocessing-pipeline"],
  ["sk- too short", "sk-abc123def456ghi789j"],
  ["sk inside a word", "desk-0123456789abcdefghijklmno"],
  ["ghp_ too short", "ghp_0123456789abcdef"],
  ["unknown gh prefix", "ghx_0123456789abcdefghijABCDEFGHIJ012345"],
  ["AKIA too short", "AKIAIOSFODNN7EXAMPL"],
  ["AKIA lowercase", "akiaiosfodnn7example"],
  ["AKIA inside a longer word", "XAKIAIOSFODNN7EXAMPLE"],
  ["Slack unknown type", "xoxz-1234567890-abcdef"],
  ["Slack without digits", "xoxb-abcdefghijkl"],
  ["JWT with two parts", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0"],
  ["public key", "-----BEGIN PUBLIC KEY-----\nMIIBIj\n-----END PUBLIC KEY-----"],
  ["certificate", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"],
  ["URL without password", "https://user@example.com/path"],
  ["URL with a port", "http://example.com:8080/a@b"],
  ["non-secret names", "PORT=8080\nDEBUG=true\nKEYBOARD_LAYOUT=dvorak\nAUTHOR=ada"],
  ["secret name, boolean value", "USE_AUTH=true\nAPI_KEY=\nTOKEN=null"],
  ["secret name, reference value", "DB_PASSWORD=$DB_PASSWORD_FROM_VAULT\nTOKEN=${GH_TOKEN}"],
  ["about a secret, not the secret", "PASSWORD_FILE=/run/secrets/db\nSSH_AUTH_SOCK=/tmp/agent.1"],
  ["prose with a colon", "Note: the key is in the vault"],
  ["prose about a password", "the password reset flow sends a link"],
  ["npm registry without auth", "//registry.npmjs.org/:always-auth=true"],
  ["assignment not at line start", "we set PORT=8080 and x DB_PASSWORD=1 later"],
  ["quoted non-secret key", '{"name": "odek", "version": "1.0"}'],
  ["code: a call", 'api_key = os.getenv("API_KEY")\ntoken = get_token(user)'],
  ["code: member access", "password = settings.DB_PASSWORD\nsecret: this.config.secret,"],
  ["code: indexing and objects", 'token = request.headers["x-token"]\nauth: { user, pass },'],
  [
    "code: type annotations",
    "  token: string;\n  apiKey: String,\n  password: Option<String>,\n  secret: str = None",
  ],
];

Deno.test("redactSecretPatterns() leaves near misses alone", async (t) => {
  for (const [name, text] of NEGATIVES) {
    await t.step(name, () => assert.equal(redactSecretPatterns(text), text));
  }
});

Deno.test("redactSecretPatterns() is idempotent and keeps JSON valid", () => {
  const json = JSON.stringify({
    path: ".env",
    content: 'A=1\nSECRET_KEY="x\\"y"\nTOKEN=abc"def\n',
    nested: '{"password": "p\\"w"}',
  });
  const once = redactSecretPatterns(json);
  assert.equal(redactSecretPatterns(once), once);
  const parsed = JSON.parse(once);
  assert.match(parsed.content, /^A=1\nSECRET_KEY=/);
  assert.ok(!once.includes("abc"), once);
});

Deno.test("redactSecretPatterns() reports each value it replaced", () => {
  const seen: string[] = [];
  redactSecretPatterns(
    'DB_PASSWORD="p4ss word"\nghp_0123456789abcdefghijABCDEFGHIJ012345\n-----BEGIN PRIVATE KEY-----\nx',
    {
      onSecret: (value) => seen.push(value),
    },
  );
  assert.deepEqual(seen.sort(), ["ghp_0123456789abcdefghijABCDEFGHIJ012345", "p4ss word"]);
});

Deno.test("redactSecretPatterns() finds assignments after read_file's N| line numbers, whatever read them first", () => {
  const numbered = "1|# app\n2|PORT=8080\n5|DATABASE_PASSWORD=pg-Pa55word-planted-1\n" +
    "7|export SESSION_TOKEN='tok-planted-ABCDEF-987654'\n12|  api_key: abc123def456\n";
  const out = redactSecretPatterns(numbered);
  assert.ok(out.includes("2|PORT=8080"), out);
  assert.ok(out.includes("5|DATABASE_PASSWORD=[REDACTED]"), out);
  assert.ok(out.includes("7|export SESSION_TOKEN='[REDACTED]'"), out);
  assert.ok(out.includes("12|  api_key: [REDACTED]"), out);
  // A number that is not a line-number prefix changes nothing.
  assert.equal(redactSecretPatterns("x 5|PORT=1"), "x 5|PORT=1");
});
