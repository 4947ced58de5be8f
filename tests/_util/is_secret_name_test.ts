import assert from "node:assert/strict";
import { isSecretName } from "../../src/_util/is_secret_name.ts";

Deno.test("isSecretName() matches whole segments split on _, -, . and camelCase", async (t) => {
  const secret = [
    "API_KEY",
    "OPENAI_API_KEY",
    "GITHUB_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
    "DB_PASSWORD",
    "MYSQL_PASSWD",
    "SMTP_PASS",
    "GOOGLE_CREDENTIALS",
    "DOCKER_CREDENTIAL",
    "NPM_AUTH",
    "BASIC_AUTH_HEADER",
    "PRIVATE_KEY_PEM",
    "SECRET_KEY_BASE",
    "my-secretkey",
    "apiKey",
    "clientSecret",
    "APIKey",
    "accessToken",
    "db.password",
    "ssh_passphrase",
    "token",
  ];
  const plain = [
    "KEYBOARD_LAYOUT",
    "MONKEY_PATCH",
    "AUTHOR",
    "GIT_AUTHOR_NAME",
    "TOKENIZER_PATH",
    "PASSPORT_ID",
    "PRIVATEER",
    "PORT",
    "DEBUG",
    "HOME",
    "PWD",
    // The last segment says the value is about the secret, not the secret.
    "SSH_AUTH_SOCK",
    "PASSWORD_STORE_DIR",
    "DB_PASSWORD_FILE",
    "PASSWORD_MIN_LENGTH",
    "API_KEY_NAME",
    "PASSPHRASE_HINT",
    "AUTH_PROVIDER",
    "OAUTH_TOKEN_URL",
    "AUTH_DOMAIN",
    // Meant to be public.
    "PUBLIC_KEY",
    "publicKey",
    "STRIPE_PUBLISHABLE_KEY",
    "",
  ];
  for (const name of secret) await t.step(`${name} is secret`, () => assert.ok(isSecretName(name)));
  for (const name of plain) {
    await t.step(`${name || "(empty)"} is not`, () => assert.ok(!isSecretName(name)));
  }
});
