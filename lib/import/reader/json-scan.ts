import { MAX_NESTING_DEPTH } from "../limits";

// One pass over JSON text without building values: finds the first syntax error with a reason in words, refuses
// nesting deeper than MAX_NESTING_DEPTH and `__proto__` keys (which a later copy of the object could turn into a
// prototype change), and notes where each top-level array element starts (to name a link by its line). JSON.parse
// builds the values afterwards; its own messages often carry no position, so a file that fails here is never parsed.

export interface ScanProblem {
  /** Offset in the text (UTF-16 units) where the problem is. */
  offset: number;
  message: string;
}

export interface ScanResult {
  /** The first problem, if any; nothing after it was checked. */
  problem: ScanProblem | null;
  /** Where the top-level value ended (exclusive), after which only whitespace may follow. */
  end: number;
  /** Offsets where each element of a top-level array starts. */
  elementStarts: number[];
  /** Whether the top-level value is an array, an object, or something else. */
  top: "array" | "object" | "other" | null;
}

// Sticky regular expressions do the long runs (whitespace, the plain part of a string, a number) natively: a
// character-by-character loop in JavaScript is several times slower on a 20 MB file.
const WHITESPACE = /[ \t\n\r]*/y;
const PLAIN_STRING_PART = /[^"\\\x00-\x1f]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

const OBJECT = 1;
const ARRAY = 2;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

class Stop extends Error {
  constructor(readonly problem: ScanProblem) {
    super(problem.message);
  }
}

/**
 * Checks the JSON value in text[from, to). With `allowTrailing`, text after the first complete value is not an error
 * (the caller decides whether it is NDJSON); `end` says where the value ended.
 */
export function scanJson(text: string, from = 0, to = text.length, opts: { allowTrailing?: boolean } = {}): ScanResult {
  const stack = new Uint8Array(MAX_NESTING_DEPTH + 1);
  let depth = 0;
  let i = from;
  const elementStarts: number[] = [];
  let top: ScanResult["top"] = null;
  const fail = (offset: number, message: string): never => {
    throw new Stop({ offset, message });
  };
  const skipSpace = () => {
    WHITESPACE.lastIndex = i;
    WHITESPACE.test(text);
    i = Math.min(WHITESPACE.lastIndex, to);
  };
  const describeAt = (offset: number) => {
    if (offset >= to) return "the end of the text";
    const ch = text[offset]!;
    return ch === "\n" || ch === "\r" ? "a line break" : `"${ch}"`;
  };

  /** Reads a string starting at the opening quote; returns whether it is the key __proto__. */
  const readString = (isKey: boolean): boolean => {
    const start = i;
    i++;
    let escaped = false;
    for (;;) {
      PLAIN_STRING_PART.lastIndex = i;
      PLAIN_STRING_PART.test(text);
      i = PLAIN_STRING_PART.lastIndex;
      if (i >= to) fail(start, 'a string is not closed (a " is missing)');
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20)
        fail(
          i,
          c === 0x0a || c === 0x0d
            ? "a line break inside a string (write it as \\n)"
            : "a control character inside a string",
        );
      if (c === 0x5c) {
        escaped = true;
        const next = text.charCodeAt(i + 1);
        if (next === 0x75) {
          for (let k = 2; k <= 5; k++)
            if (!isHex(text.charCodeAt(i + k))) fail(i, "a \\u escape needs four hex digits");
          if (text.startsWith("0000", i + 2))
            fail(i, "a NUL character (\\u0000) inside a string, which cannot be stored");
          // PostgreSQL's JSON refuses half of a surrogate pair: a high half (\ud800–\udbff) must be followed at once
          // by an escaped low half (\udc00–\udfff), and a low half may not stand alone.
          const unit = Number.parseInt(text.slice(i + 2, i + 6), 16);
          if (unit >= 0xdc00 && unit <= 0xdfff)
            fail(
              i,
              "half of a surrogate pair (a \\udc00–\\udfff escape without the half before it), which cannot be stored",
            );
          if (unit >= 0xd800 && unit <= 0xdbff) {
            const low =
              text.charCodeAt(i + 6) === 0x5c && text.charCodeAt(i + 7) === 0x75 ? text.slice(i + 8, i + 12) : "";
            const lowUnit = /^[0-9a-fA-F]{4}$/.test(low) ? Number.parseInt(low, 16) : -1;
            if (lowUnit < 0xdc00 || lowUnit > 0xdfff)
              fail(
                i,
                "half of a surrogate pair (a \\ud800–\\udbff escape without the half after it), which cannot be stored",
              );
            i += 12;
            continue;
          }
          i += 6;
          continue;
        }
        if (!'"\\/bfnrt'.includes(String.fromCharCode(next)) || i + 1 >= to)
          fail(i, 'an unknown escape in a string (after \\ only " \\ / b f n r t u)');
        i += 2;
        continue;
      }
      i++;
    }
    i++;
    if (!isKey) return false;
    const length = i - start - 2;
    if (!escaped) return length === 9 && text.startsWith("__proto__", start + 1);
    return (JSON.parse(text.slice(start, i)) as string) === "__proto__";
  };

  const readNumber = () => {
    NUMBER.lastIndex = i;
    if (NUMBER.test(text) && NUMBER.lastIndex <= to) {
      const end = NUMBER.lastIndex;
      // The regex stops before a malformed tail ("1." or "1e"): the slow path below names it.
      const next = text.charCodeAt(end);
      if (next !== 0x2e && next !== 0x65 && next !== 0x45) {
        i = end;
        return;
      }
    }
    const start = i;
    if (text.charCodeAt(i) === 0x2d) i++;
    const first = text.charCodeAt(i);
    if (first === 0x30) i++;
    else if (isDigit(first)) while (isDigit(text.charCodeAt(i))) i++;
    else fail(start, "a number is malformed");
    if (text.charCodeAt(i) === 0x2e) {
      i++;
      if (!isDigit(text.charCodeAt(i))) fail(i, "a number needs digits after its decimal point");
      while (isDigit(text.charCodeAt(i))) i++;
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      const sign = text.charCodeAt(i);
      if (sign === 0x2b || sign === 0x2d) i++;
      if (!isDigit(text.charCodeAt(i))) fail(i, "a number needs digits in its exponent");
      while (isDigit(text.charCodeAt(i))) i++;
    }
  };

  const readLiteral = () => {
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    fail(
      i,
      `expected a value, found ${describeAt(i)}${text.charCodeAt(i) === 0x27 ? " (JSON strings use double quotes)" : ""}`,
    );
  };

  const push = (kind: number, at: number) => {
    if (depth >= MAX_NESTING_DEPTH) fail(at, `nested deeper than ${MAX_NESTING_DEPTH} levels`);
    stack[++depth] = kind;
  };

  try {
    skipSpace();
    if (i >= to) fail(i, "there is no JSON value");
    // Expecting a value; then after it, a separator or a closing bracket, until the top-level value is complete.
    value: for (;;) {
      if (depth === 1 && stack[1] === ARRAY) elementStarts.push(i);
      const c = text.charCodeAt(i);
      if (c === 0x7b) {
        if (depth === 0) top = "object";
        push(OBJECT, i);
        i++;
        skipSpace();
        if (text.charCodeAt(i) === 0x7d) {
          i++;
          depth--;
        } else {
          key();
          continue value;
        }
      } else if (c === 0x5b) {
        if (depth === 0) top = "array";
        push(ARRAY, i);
        i++;
        skipSpace();
        if (text.charCodeAt(i) === 0x5d) {
          i++;
          depth--;
        } else continue value;
      } else {
        if (depth === 0) top = "other";
        if (c === 0x22) readString(false);
        else if (c === 0x2d || isDigit(c)) readNumber();
        else readLiteral();
      }
      // After a value: close containers or move to the next member.
      for (;;) {
        if (depth === 0) break value;
        skipSpace();
        const d = text.charCodeAt(i);
        if (stack[depth] === OBJECT) {
          if (d === 0x2c) {
            i++;
            skipSpace();
            key();
            continue value;
          }
          if (d === 0x7d) {
            i++;
            depth--;
            continue;
          }
          fail(i, `expected , or } after a property's value, found ${describeAt(i)}`);
        } else {
          if (d === 0x2c) {
            i++;
            skipSpace();
            if (text.charCodeAt(i) === 0x5d) fail(i, "a comma before ] (trailing commas are not JSON)");
            continue value;
          }
          if (d === 0x5d) {
            i++;
            depth--;
            continue;
          }
          fail(i, `expected , or ] after an array element, found ${describeAt(i)}`);
        }
      }
    }
    const end = i;
    skipSpace();
    if (i < to && !opts.allowTrailing) fail(i, `unexpected ${describeAt(i)} after the end of the JSON value`);
    return { problem: null, end, elementStarts, top };
  } catch (error) {
    if (error instanceof Stop) return { problem: error.problem, end: i, elementStarts, top };
    throw error;
  }

  function key() {
    const c = text.charCodeAt(i);
    if (c === 0x7d) fail(i, "a comma before } (trailing commas are not JSON)");
    if (c !== 0x22) fail(i, `expected a property name in double quotes, found ${describeAt(i)}`);
    const at = i;
    if (readString(true)) fail(at, "a property named __proto__, which Linkdesk refuses");
    skipSpace();
    if (text.charCodeAt(i) !== 0x3a) fail(i, `expected : after a property name, found ${describeAt(i)}`);
    i++;
    skipSpace();
  }
}

/** Line and column (both from 1) of each offset; offsets must be ascending. One pass over the text up to the last. */
export function linesOf(text: string, offsets: number[]): { line: number; column: number }[] {
  const out: { line: number; column: number }[] = [];
  let line = 1;
  let lineStart = 0;
  let at = 0;
  for (const offset of offsets) {
    for (; at < offset && at < text.length; at++) {
      if (text.charCodeAt(at) === 0x0a) {
        line++;
        lineStart = at + 1;
      }
    }
    out.push({ line, column: offset - lineStart + 1 });
  }
  return out;
}
