// Deterministic randomness for seed data. Every seeded value comes from a PRNG stream keyed by (seed, purpose, index),
// so a link's data does not depend on which links were generated or read before it.

export type Rng = () => number;

/** mulberry32: tiny, fast, good enough for fake data; returns floats in [0, 1). */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes numbers and strings into one 32-bit seed (FNV-1a over the parts, then a murmur finaliser). */
export function hashSeed(...parts: (number | string)[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const text = typeof part === "number" ? `#${part}` : `"${part}`;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function rngFor(...parts: (number | string)[]): Rng {
  return mulberry32(hashSeed(...parts));
}

/** Integer in [min, max] inclusive. */
export function intBetween(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

export function chance(rng: Rng, probability: number): boolean {
  return rng() < probability;
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  const item = items[Math.floor(rng() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

export function pickWeighted<T extends { weight: number }>(rng: Rng, items: readonly T[]): T {
  const total = items.reduce((sum, item) => sum + item.weight, 0);
  let roll = rng() * total;
  for (const item of items) {
    roll -= item.weight;
    if (roll < 0) return item;
  }
  return pick(rng, items);
}

export function shuffled<T>(rng: Rng, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Amount with two decimals, as the upstream sends them. */
export function amountBetween(rng: Rng, min: number, max: number): number {
  return Math.round((min + rng() * (max - min)) * 100) / 100;
}

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** Upstream ids look like `mk_eqkWN34UEoa2NxyALG8pcV`: a prefix and 22 base58 characters. */
export function base58Id(rng: Rng, prefix: string, length = 22): string {
  let id = prefix;
  for (let i = 0; i < length; i++) id += BASE58[Math.floor(rng() * 58)];
  return id;
}

const HEX = "0123456789abcdef";

/** A version-4-shaped UUID drawn from the stream (transaction and merchant ids are UUID-looking upstream). */
export function uuidFrom(rng: Rng): string {
  let out = "";
  for (let i = 0; i < 32; i++) {
    let nibble = Math.floor(rng() * 16);
    if (i === 12) nibble = 4;
    if (i === 16) nibble = 8 + (nibble & 3);
    out += HEX[nibble];
    if (i === 7 || i === 11 || i === 15 || i === 19) out += "-";
  }
  return out;
}

export function digits(rng: Rng, count: number): string {
  let out = "";
  for (let i = 0; i < count; i++) out += String(Math.floor(rng() * 10));
  return out;
}
