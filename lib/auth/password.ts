import "server-only";
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

// Staff passwords are hashed with scrypt, a memory-hard function built into Node (no native add-on to compile).
// N=2^15, r=8 costs 32 MiB and roughly 50-100 ms per hash here: slow for a guesser, fine for a sign-in.
const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_MEM = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, n = N, r = R, p = P): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { N: n, r, p, maxmem: MAX_MEM }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** scrypt's cost parameters. */
export interface ScryptCost {
  n: number;
  r: number;
  p: number;
}

/**
 * A self-describing hash: `scrypt$N$r$p$salt$key` (base64url), so parameters can be raised later and a hash made at
 * another cost (a test's, cheap) verifies at its own.
 */
export async function hashPassword(password: string, cost: ScryptCost = { n: N, r: R, p: P }): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost.n, cost.r, cost.p);
  return ["scrypt", cost.n, cost.r, cost.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"), Number(n), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// Verifying against this when the email is unknown makes both answers cost the same time, so timing does not tell
// whether an account exists.
let decoy: Promise<string> | undefined;
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoy ??= hashPassword(randomBytes(16).toString("hex"));
  await verifyPassword(password, await decoy);
  return false;
}

/** A random password for a new account, shown once to the admin who created it. */
export function generatePassword(): string {
  return randomBytes(15).toString("base64url");
}
