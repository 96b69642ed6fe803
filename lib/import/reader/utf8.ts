import type { FileProblem } from "../limits";

// From the bytes of an uploaded file to its text, refusing bytes that are not UTF-8 and saying where the first one is.
// Part of the reader: only index.ts calls it.

/** The text of UTF-8 bytes (a leading byte-order mark dropped), or where the first byte that is not UTF-8 is. */
export function decodeUtf8(bytes: Uint8Array): { ok: true; text: string } | { ok: false; problem: FileProblem } {
  try {
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    const offset = firstInvalidUtf8(bytes);
    let line = 1;
    for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
    return {
      ok: false,
      problem: {
        message: `The file is not UTF-8 text: byte ${offset + 1} (on line ${line}) is not valid UTF-8. Save the export as UTF-8 and upload it again.`,
        line,
      },
    };
  }
}

/** Offset of the first byte that does not belong to a valid UTF-8 sequence. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let need = 0;
    let min = 0;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else return i;
    let code = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const next = bytes[i + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return i;
      code = (code << 6) | (next & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += need + 1;
  }
  return bytes.length;
}
